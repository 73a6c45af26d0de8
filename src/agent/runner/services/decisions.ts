/*\
Decisions: the calls of a chat that wait for the user (a confirmation card, a question),
as their tool messages hold them, and what the user's choice writes. Messages are the
source of truth, so this is all a runner needs to check a decision, write it, know when a
turn can resume, and when an unanswered confirmation expires, after a reload or a restart.
\*/
import type { ApprovalScope } from '../../engine/approval-rules';
import type { ChatStore } from '../../store/chat-store';
import type { Message, ToolOutcome } from '../../store/schemas';
import { APPROVAL_EDIT, APPROVAL_TEXT, userVersionField } from '../../store/user-version';
import { parseTitleList, type TiddlerFields, type WikiPort } from '../../store/wiki-port';
import { formatClarifications } from '../../tools/control-tools';
import { isOffered, offeredChoices, type ApprovalChoice } from '../../store/approval-choices';
import { RunnerError } from '../chat-runner';
import { RuleBook, parseScope, scopeProblem } from './rule-book';
import { refuse } from '../refusals';

/** What the chat does after a decision or an answer was written. */
export type Outcome = 'resume' | 'wait' | 'dismissed';

export class Decisions {
  private readonly rules: RuleBook;

  constructor(
    private readonly store: ChatStore,
    private readonly wiki: WikiPort,
    /** Whether a tool is confirm-only (ToolDefinition.confirmOnly): each call asks again. */
    private readonly confirmOnly: (tool: string) => boolean = () => false,
  ) {
    this.rules = new RuleBook(store, wiki);
  }

  /** The chat's calls waiting for the user. */
  pending(chat: string): Message[] {
    return this.store.listMessages(chat).filter((m) => m.role === 'tool' && m['tool-status'] === 'pending');
  }

  /** Whether every waiting call has its decision (questions always wait for an answer). */
  allDecided(chat: string): boolean {
    return !this.pending(chat).some((m) => (m['tool-name'] === 'ask-question' ? true : !m.approval));
  }

  /** When the first unanswered confirmation expires (milliseconds since 1970), if any does. */
  nextExpiry(chat: string): number | undefined {
    const expiries = this.pending(chat)
      .filter((m) => !m.approval && m['approval-expires'])
      .map((m) => Number(m['approval-expires']));
    return expiries.length ? Math.min(...expiries) : undefined;
  }

  /** A RunnerError unless `message` is a call of `chat` waiting for this kind of input. */
  requireWaiting(chat: string, message: string, reason: 'approval' | 'question'): void {
    if (typeof message !== 'string' || !message) throw new RunnerError('bad-request', 'No message was named.');
    const fields = this.wiki.getFields(message);
    if (!fields || fields['agent-chat'] !== chat) throw refuse('not-found', 'not-a-message', { message, chat });
    const question = fields['tool-name'] === 'ask-question';
    if (fields['tool-status'] !== 'pending' || (reason === 'approval' && (question || fields.approval)) || (reason === 'question' && !question)) {
      throw refuse('conflict', reason === 'approval' ? 'no-decision-waits' : 'no-answer-waits');
    }
  }

  /** The waiting call `message` (requireWaiting first), or a RunnerError unless the user may edit its text (Edit before allowing). */
  requireEditable(chat: string, message: string): Message {
    const waiting = this.pending(chat).find((m) => m.title === message);
    if (!waiting?.[APPROVAL_EDIT]) throw refuse('bad-request', 'not-editable');
    return waiting;
  }

  /** Deny every waiting call (a new message supersedes them, Stop ends them): `reason` for the model, `outcome` for the UI. */
  close(chat: string, reason: string, outcome: ToolOutcome): void {
    for (const m of this.pending(chat))
      this.store.updateFields(m.title, { 'tool-status': 'denied', 'tool-outcome': outcome, text: reason, 'approval-expires': undefined });
  }

  /**
   * A RunnerError unless `scope` fits the choice on this waiting call: "always" needs one
   * (tiddler, prefix or tool) that covers what the call touches, other choices take none.
   * A confirm-only tool's "always" counts as "once", so its scope is not looked at.
   */
  checkScope(message: string, choice: ApprovalChoice, scope: unknown): ApprovalScope | undefined {
    if (choice !== 'always') {
      if (scope !== undefined && scope !== null) throw refuse('bad-request', 'scope-without-always');
      return undefined;
    }
    const fields = this.wiki.getFields(message) ?? {};
    if (this.asOnce(fields, choice)) return undefined;
    if (scope === undefined || scope === null) throw refuse('bad-request', 'always-needs-scope');
    const parsed = parseScope(scope);
    const problem = scopeProblem(parsed, parseTitleList(fields['approval-targets']));
    if (problem) throw new RunnerError('bad-request', problem);
    return parsed;
  }

  /**
   * Write the user's choice on a waiting call: "in this chat" and "always" also allow the tool
   * from now on ("always" as far as its scope says), except a confirm-only tool's (by its
   * definition or the choices its card offers), for which they count as "once": nothing is
   * allowed beyond this one call. `text` is the user's version of the call's text, which the
   * call then writes (engine/loop.ts).
   */
  decide(chat: string, message: string, choice: ApprovalChoice, scope?: ApprovalScope, text?: string): Outcome | { error: string } {
    const fields = this.waiting(chat, message);
    if (!fields || fields.approval) return { error: 'The call no longer waits for a decision.' };
    const tool = fields['tool-name'] ?? '';
    if (this.asOnce(fields, choice)) choice = 'once';
    if (choice === 'chat') this.rules.allowInChat(chat, tool);
    else if (choice === 'always' && scope) this.rules.allowAlways(chat, tool, scope, parseTitleList(fields['approval-targets']));
    this.store.updateFields(message, { approval: choice, [APPROVAL_TEXT]: choice === 'deny' ? undefined : userVersionField(text) });
    return this.allDecided(chat) ? 'resume' : 'wait';
  }

  /** Whether a choice other than deny counts as "once" on this call (a confirm-only tool). */
  private asOnce(fields: TiddlerFields, choice: ApprovalChoice): boolean {
    return choice !== 'deny' && (this.confirmOnly(fields['tool-name'] ?? '') || !isOffered(choice, offeredChoices(fields)));
  }

  /** Write the user's answers to a question (Agentty's `Clarifications:` format); `null` dismisses it and every other waiting call. */
  answer(chat: string, message: string, answers: string[] | null): Outcome | { error: string } {
    const fields = this.waiting(chat, message);
    if (!fields) return { error: 'The question was already answered.' };
    if (answers === null) {
      this.store.updateFields(message, { 'tool-status': 'denied', 'tool-outcome': 'dismissed', text: 'The user dismissed the question.' });
      this.close(chat, 'The user dismissed the question.', 'dismissed');
      return 'dismissed';
    }
    let question = '';
    try {
      question = (JSON.parse(fields['tool-args'] ?? '{}') as { question?: string }).question ?? '';
    } catch {
      // the question text is only used to label the answer
    }
    this.store.updateFields(message, { 'tool-status': 'ok', text: formatClarifications([{ question, answer: answers.join(', ') }]) });
    return this.allDecided(chat) ? 'resume' : 'wait';
  }

  private waiting(chat: string, message: string): TiddlerFields | undefined {
    const fields = this.wiki.getFields(message);
    return fields && fields['tool-status'] === 'pending' && fields['agent-chat'] === chat ? fields : undefined;
  }
}
