/*\
The commands that start or end a model turn: send (a user's message, or a schedule's), stop,
retry (answer the last turn again), edit (an edited copy of an earlier message, forking the
chat) and resume (a turn going on after its confirmations expired, or, when no user started it,
ending because nobody answered in time). Each runs through the
runner's one turn path (LocalRunner.runTurn).
\*/
import type { TurnResult } from '../../engine/loop';
import type { ValidCommand } from '../commands';
import { CHAT_DELETED, CHAT_QUEUED } from '../../store/chat-fields';
import type { Operation } from '../operations';
import { type ImmediateHandler, type QueuedHandler, type RunnerContext, requireChat, requireForkable, requireLastTurn } from './handler';
import { refuse } from '../refusals';
import { endUnattended, holdAtCap, runMaybeUnattended } from './turn-unattended';

export const send: QueuedHandler<ValidCommand<'send'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    const { chat } = command;
    requireChat(ctx, chat);
    if (!command.text.trim()) throw refuse('bad-request', 'message-empty');
    if (ctx.isExternal(chat)) throw refuse('conflict', 'mcp-chat', { chat });
    if (ctx.host.wiki.getFields(chat)?.[CHAT_DELETED]) throw refuse('conflict', 'in-bin', { chat });
    // "Talk with AI" attachments and a queue saved before a reload were in the input: this message carries them.
    if (!ctx.isActive(chat)) ctx.store.updateChat(chat, { 'agent-draft-attachments': undefined, [CHAT_QUEUED]: undefined });
    return { ...command, attachments: command.attachments ?? [] };
  },
  run(ctx, op) {
    // An unattended run of an agent at its spending cap does not start (the chat says so).
    const held = holdAtCap(ctx, op.chat, op.source);
    if (held) return Promise.resolve(held);
    // A new message supersedes whatever the last turn was waiting for.
    ctx.decisions.close(op.chat, 'The user sent a new message instead.', 'replaced');
    return runMaybeUnattended(ctx, op.chat, op.source, () =>
      ctx.runTurn(op.chat, { userText: op.text, attachments: op.attachments ?? [], operation: op.id, source: op.source }),
    );
  },
};

export const stop: ImmediateHandler<ValidCommand<'stop'>> = {
  queued: false,
  run(ctx, { chat }) {
    requireChat(ctx, chat);
    const running = ctx.queue.current(chat);
    const waiting = ctx.host.wiki.getFields(chat)?.['agent-status'] === 'input-required';
    if (!running && !waiting && !ctx.queue.waiting(chat).length) throw refuse('conflict', 'nothing-to-stop', { chat });
    ctx.queue.cancelWaiting(chat, { status: 'canceled' });
    if (running) ctx.controllers.get(chat)?.abort();
    else if (waiting) {
      ctx.expiry.clear(chat);
      ctx.decisions.close(chat, 'The user stopped the turn.', 'stopped');
      ctx.setStatus(chat, 'canceled');
      ctx.external.get(chat)?.wake();
    }
    return undefined;
  },
};

export const retry: QueuedHandler<ValidCommand<'retry'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    requireLastTurn(ctx, command.chat, command.message);
    return command;
  },
  run(ctx, { chat, message }) {
    if (!ctx.turns.isLast(chat, message)) return Promise.resolve({ status: 'failed', error: 'Only the last turn can be answered again.' });
    keepReplies(ctx, chat, message);
    return ctx.runTurn(chat, {});
  },
};

export const edit: QueuedHandler<ValidCommand<'edit'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    if (!command.text.trim()) throw refuse('bad-request', 'message-empty');
    requireForkable(ctx, command.chat);
    ctx.turns.require(command.chat, command.message);
    return command;
  },
  run: editTurn,
};

/**
 * A wait ran out while nobody looked: a turn no user started whose unattended time is up ends
 * (runner/services/turn-unattended.ts); otherwise the turn goes on with the expired confirmations denied.
 */
export function resume(ctx: RunnerContext, chat: string): Promise<TurnResult> {
  if (ctx.host.wiki.getFields(chat)?.['agent-status'] !== 'input-required') return Promise.resolve({ status: 'completed' });
  return Promise.resolve(endUnattended(ctx, chat) ?? ctx.runTurn(chat, {}));
}

/**
 * Before a retry: the turn's replies are parked as a version (runner/services/branches.ts), unless
 * they are only errors (nothing anyone wants to read again): those go.
 */
function keepReplies(ctx: RunnerContext, chat: string, userMessage: string): void {
  const replies = ctx.turns.messages(chat, userMessage).slice(1);
  if (replies.every((m) => m.role === 'error')) {
    ctx.store.deleteMessages(
      chat,
      replies.map((m) => m.title),
    );
  } else ctx.branches.park(chat, replies[0]!['agent-seq']);
}

/** Edit and resend: park the path from the edited message on and answer the edited copy, in one step before the turn. */
function editTurn(ctx: RunnerContext, op: Operation & ValidCommand<'edit'>): Promise<TurnResult> {
  const { chat } = op;
  const original = ctx.store.listMessages(chat).find((m) => m.title === op.message && m.role === 'user');
  if (!original) return Promise.resolve({ status: 'failed', error: 'The message to edit is no longer in the chat.' });
  ctx.branches.park(chat, original['agent-seq']);
  ctx.store.appendMessage(chat, { role: 'user', text: op.text, attachments: original.attachments, operation: op.id });
  return ctx.runTurn(chat, {});
}
