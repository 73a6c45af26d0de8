/*\
A prompt that stays lean (issue 26): a bulky tool result stays in the prompt for a number of
rounds, then a one-line stub takes its place. When a result is written, `resultDuration`
gives its `agent-duration`: the agent's `agent-result-rounds` for the tool, else the tool's
own `resultRounds` (web-fetch, wiki-search, MCP tools: 3; wiki-read: 4), and nothing (always
kept) for a result under BULKY_RESULT_CHARS, whose stub would save little, or for a call that
did not run to its end. History (engine/history.ts) swaps an expired result for `expiredStub`:
the call and its stub stay paired, so the model knows what it had and how to get it again.
\*/
import { roundsFor } from '../store/result-rounds';
import type { AgentDefinition, Message } from '../store/schemas';
import type { ToolDefinition } from '../tools/tool';

/** Results shorter than this (characters) never expire. */
export const BULKY_RESULT_CHARS = 1_000;
/** How an expired result starts in the prompt; "Show prompt" marks messages that hold it. */
export const EXPIRED_MARK = '[Expired tool result:';
/** How much of the call's arguments the stub repeats. */
const ARGS_CHARS = 200;

/** The `agent-duration` of a tool result as it is written; undefined: it stays in the prompt. */
export function resultDuration(
  agent: Pick<AgentDefinition, 'agent-result-rounds'>,
  tool: Pick<ToolDefinition, 'resultRounds'> | undefined,
  name: string,
  result: { status: string; content: string },
): number | undefined {
  if (result.status !== 'ok' || result.content.length < BULKY_RESULT_CHARS) return undefined;
  const rounds = roundsFor(agent['agent-result-rounds'], name) ?? tool?.resultRounds;
  return rounds === 'always' ? undefined : rounds;
}

/** Whether a history message is a result past its rounds. */
export function isExpired(message: Message, age: number): boolean {
  const duration = message['agent-duration'];
  return message.role === 'tool' && duration !== undefined && age >= duration;
}

/** The one line that stands in for an expired result: what it was, that it expired, how to get it again. */
export function expiredStub(message: Message): string {
  const args = (message['tool-args'] ?? '{}').replace(/\s+/g, ' ');
  const shown = args.length > ARGS_CHARS ? `${args.slice(0, ARGS_CHARS)}…` : args;
  const rounds = message['agent-duration'];
  return `${EXPIRED_MARK} ${message['tool-name'] ?? 'tool'} ${shown} (${message.text.length} characters) left the prompt after ${rounds} round${rounds === 1 ? '' : 's'} to save room. Call the tool again if you need it.]`;
}
