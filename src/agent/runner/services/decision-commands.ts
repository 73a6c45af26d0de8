/*\
The user's answers to what a turn waits for (runner/services/decisions.ts): a decision on a call waiting
for approval (with the scope "always" needs, or the user's own version of the call's text),
the answers to a question, and the revoking of the rule that let a call run without asking
(runner/services/rule-book.ts). The turn resumes once nothing waits; in a chat whose calls come from an
MCP session, the session is woken instead.
\*/
import type { ApprovalScope } from '../../engine/approval-rules';
import { userVersionRefusal } from '../../engine/edited-call';
import type { TurnResult } from '../../engine/loop';
import { RunnerError } from '../chat-runner';
import type { ValidCommand } from '../commands';
import type { Outcome } from './decisions';
import { type ImmediateHandler, type QueuedHandler, type RunnerContext, requireChat } from './handler';
import { refuse } from '../refusals';

/**
 * A decision, checked first: the waiting call, the scope "always" needs (rule-book.ts), and the
 * user's version of the call's text, planned as the call will run: a version the write gate
 * refuses is refused here, with its reason, and nothing is decided.
 */
export const decide: QueuedHandler<ValidCommand<'decide'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    const { chat, message, choice } = command;
    const text = command.text ?? undefined;
    requireChat(ctx, chat);
    ctx.decisions.requireWaiting(chat, message, 'approval');
    const scope = ctx.decisions.checkScope(message, choice, command.scope);
    if (text !== undefined) {
      if (choice === 'deny') throw refuse('bad-request', 'denied-with-text');
      const waiting = ctx.decisions.requireEditable(chat, message);
      const refusal = userVersionRefusal(ctx.store, ctx.host.tools, { now: ctx.now, semantic: ctx.host.semantic }, waiting, text);
      if (refusal) throw new RunnerError('bad-request', refusal);
    }
    return { kind: 'decide', chat, message, choice, ...(scope ? { scope } : {}), ...(text !== undefined ? { text } : {}) };
  },
  run(ctx, op) {
    return afterDecision(ctx, op.chat, ctx.decisions.decide(op.chat, op.message, op.choice, op.scope as ApprovalScope | undefined, op.text ?? undefined));
  },
};

/** The answers to an ask-question card; null cancels the turn without a reply. */
export const answer: QueuedHandler<ValidCommand<'answer'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    requireChat(ctx, command.chat);
    ctx.decisions.requireWaiting(command.chat, command.message, 'question');
    return command;
  },
  run(ctx, op) {
    return afterDecision(ctx, op.chat, ctx.decisions.answer(op.chat, op.message, op.answers));
  },
};

/** Remove the rule that let a call run without asking; no turn needs to wait for it. */
export const revokeRule: ImmediateHandler<ValidCommand<'revoke-rule'>> = {
  queued: false,
  run(ctx, { chat, message }) {
    requireChat(ctx, chat);
    return ctx.rules.revoke(chat, message);
  },
};

/** The turn resumes once nothing waits for the user; a dismissed question ends it. */
function afterDecision(ctx: RunnerContext, chat: string, outcome: Outcome | { error: string }): Promise<TurnResult> {
  if (typeof outcome === 'object') return Promise.resolve({ status: 'failed', error: outcome.error });
  if (ctx.isExternal(chat)) return ctx.externalTurn(chat);
  if (outcome === 'dismissed') {
    ctx.setStatus(chat, 'canceled');
    return Promise.resolve({ status: 'canceled' });
  }
  return outcome === 'resume' ? ctx.runTurn(chat, {}) : Promise.resolve({ status: 'input-required' });
}
