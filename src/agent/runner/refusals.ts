/*\
Why the runner refuses a request, the one list: each reason a language key (`Refused/<name>`)
and its English text, with `$param$` places. The English is the RunnerError's message (what
the HTTP API, the headless command and a log read); the UI says it again in the user's
language from the key (ui/runner-error.ts), where the language has it translated
(zh-Hans.multids), with the English kept after it as the detail.
\*/
import { type RunnerErrorCode, RunnerError } from './chat-runner';
import { fillIn } from './lingo';

export const REFUSALS = {
  'chat-missing': 'The chat "$chat$" does not exist.',
  'not-a-chat': '"$chat$" is not a chat: it has no "agent" field.',
  'message-empty': 'The message is empty.',
  'mcp-chat': '"$chat$" lists what an MCP client did; no agent answers in it. Start a new chat to talk to the agent.',
  'mcp-chat-history': '"$chat$" lists what an MCP client did; it has no turns to change.',
  'in-bin': '"$chat$" is in the bin; restore it first.',
  'not-in-bin': '"$chat$" is not in the bin: delete it first, then delete it forever.',
  'nothing-to-stop': '"$chat$" has no turn to stop.',
  'turn-running': '"$chat$" is running a turn; stop it first.',
  'waits-for-user': '"$chat$" is waiting for your decision or answer; give it, or stop the turn, first.',
  'not-last-turn': 'Only the last turn can be answered again.',
  'no-such-version': '"$chat$" has no version $version$ at message $at$.',
  'sub-agent-chat': '"$chat$" is a sub-agent\'s chat: it moves with its parent\'s.',
  'busy-for-schedule': '"$chat$" is busy or waiting for the user; the scheduler tries again when it is free.',
  'not-a-message': '"$message$" is not a message of "$chat$".',
  'not-a-user-message': '"$message$" is not a user message of "$chat$".',
  'no-decision-waits': 'This call does not wait for a decision.',
  'no-answer-waits': 'This question does not wait for an answer.',
  'not-editable': 'The text of this call cannot be edited before allowing it.',
  'denied-with-text': 'A denied call has no text to allow.',
  'scope-without-always': 'A scope goes only with the choice "always".',
  'always-needs-scope': '"Always" needs a scope: {"kind": "tiddler"}, {"kind": "prefix", "prefix": "…"} or {"kind": "tool"}.',
  'scope-invalid': 'The scope must be {"kind": "tiddler"}, {"kind": "prefix", "prefix": "…"} or {"kind": "tool"}.',
  'no-rule': 'No rule of yours let this call run: there is nothing to revoke.',
  'rule-agent-gone': 'The agent whose rule let this call run ("$agent$") is gone.',
  'rules-invalid': 'The approval rules of "$agent$" are not valid JSON: edit them in the settings.',
  'nothing-to-roll-back': 'This turn changed no tiddler: there is nothing to roll back.',
  'no-such-agent': 'There is no agent "$agent$".',
  'no-such-profile': 'There is no provider profile "$profile$".',
  'server-unreachable': 'The wiki server cannot be reached ($detail$).',
  stopped: 'Stopped.',
} as const;

export type RefusalName = keyof typeof REFUSALS;

/** A RunnerError for a reason of the list: English message, and its language key for the UI. */
export function refuse(code: RunnerErrorCode, name: RefusalName, params: Readonly<Record<string, string | number>> = {}): RunnerError {
  return withReason(new RunnerError(code, fillIn(REFUSALS[name], params)), `Refused/${name}`, params);
}

/** Give an error from elsewhere (a title's problem, ...) the language key the UI says it with. */
export function withReason(error: RunnerError, key: string, params: Readonly<Record<string, string | number>> = {}): RunnerError {
  error.reason = { key, params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) };
  return error;
}
