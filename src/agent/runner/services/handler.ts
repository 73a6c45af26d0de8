/*\
What a command's handler is, and the checks handlers share. A handler is either queued (its
command is persisted as an operation and runs in the chat's queue, one at a time, after a
running turn) or immediate (it runs at once). Its `check` runs before anything is queued or
done, against the wiki as it is now, so a refused command changes nothing and its caller learns
why at once. The runner (runner/local-runner.ts) is the context every handler drives.
\*/
import type { TurnResult } from '../../engine/loop';
import { titleProblem, titleProblemText } from '../../store/chat-titles';
import { RunnerError } from '../chat-runner';
import type { QueryKind, ValidQuery } from '../commands';
import type { LocalRunner } from '../local-runner';
import type { Operation, QueuedCommand } from '../operations';
import { refuse, withReason } from '../refusals';

export type RunnerContext = LocalRunner;

export interface QueuedHandler<C extends QueuedCommand> {
  queued: true;
  /** Refuse what cannot run (a RunnerError); returns the command as it is persisted. */
  check(ctx: RunnerContext, command: C): C;
  /** Carry it out when the chat's turn comes. */
  run(ctx: RunnerContext, op: Operation & C): Promise<TurnResult>;
  /** What an in-process submitter gets once it ran (default: the turn's result). */
  settle?(result: TurnResult, command: C): unknown;
  /** Over HTTP: answered with the receipt as soon as it is queued (a turn), or once it ran. */
  answer: 'receipt' | 'done';
}

export interface ImmediateHandler<C> {
  queued: false;
  run(ctx: RunnerContext, command: C, signal?: AbortSignal): unknown;
}

export type QueryHandler<K extends QueryKind> = (ctx: RunnerContext, query: ValidQuery<K>, signal?: AbortSignal) => Promise<unknown>;

/** A queued command whose failure rejects the in-process caller (a rename, a compaction), instead of resolving with the result. */
export function rejectFailure(result: TurnResult): void {
  if (result.error) throw new RunnerError(result.status === 'canceled' ? 'conflict' : 'bad-request', result.error);
}

// ---- checks ------------------------------------------------------------------------------

export function requireChat(ctx: RunnerContext, chat: string): void {
  const fields = ctx.host.wiki.getFields(chat);
  if (!fields) throw refuse('not-found', 'chat-missing', { chat });
  if (typeof fields.agent !== 'string' || !fields.agent.trim()) throw refuse('bad-request', 'not-a-chat', { chat });
}

export function requireTitle(ctx: RunnerContext, title: string): void {
  const problem = titleProblem(ctx.host.wiki, title);
  if (problem)
    throw withReason(new RunnerError(problem === 'exists' ? 'conflict' : 'bad-request', titleProblemText(title, problem)), `Chats/Refused/${problem}`, {
      title,
    });
}

export function requireIdle(ctx: RunnerContext, chat: string): void {
  requireChat(ctx, chat);
  if (ctx.isActive(chat)) throw refuse('conflict', 'turn-running', { chat });
}

/**
 * No turn runs in the chat: it is not `working` and nothing waits in its queue. An operation that
 * ended its turn and is finishing its bookkeeping does not count, so a fork or retry the user
 * asks for the moment a reply is shown queues behind it instead of being refused.
 */
export function requireNoTurn(ctx: RunnerContext, chat: string): void {
  requireChat(ctx, chat);
  if (ctx.host.wiki.getFields(chat)?.['agent-status'] === 'working' || ctx.queue.waiting(chat).length) throw refuse('conflict', 'turn-running', { chat });
}

/** A chat may fork (edit, switch) when no turn runs and nothing waits for the user. */
export function requireForkable(ctx: RunnerContext, chat: string): void {
  requireNoTurn(ctx, chat);
  if (ctx.isExternal(chat)) throw refuse('conflict', 'mcp-chat-history', { chat });
  if (ctx.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') {
    throw refuse('conflict', 'waits-for-user', { chat });
  }
}

export function requireLastTurn(ctx: RunnerContext, chat: string, userMessage: string): void {
  requireNoTurn(ctx, chat);
  if (ctx.isExternal(chat)) throw refuse('conflict', 'mcp-chat-history', { chat });
  ctx.turns.require(chat, userMessage);
  if (!ctx.turns.isLast(chat, userMessage)) throw refuse('conflict', 'not-last-turn');
}
