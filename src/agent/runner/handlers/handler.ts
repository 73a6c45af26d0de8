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
import type { CommandKind, QueryKind, ValidCommand, ValidQuery } from '../commands';
import type { LocalRunner } from '../local-runner';
import type { Operation, QueuedCommand } from '../operations';

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

type CommandOf<K extends CommandKind> = ValidCommand<K>;
export type CommandHandler<K extends CommandKind> =
  CommandOf<K> extends QueuedCommand ? QueuedHandler<CommandOf<K>> | ImmediateHandler<CommandOf<K>> : ImmediateHandler<CommandOf<K>>;
export type QueryHandler<K extends QueryKind> = (ctx: RunnerContext, query: ValidQuery<K>, signal?: AbortSignal) => Promise<unknown>;

/** A queued command whose failure rejects the in-process caller (a rename, a compaction), instead of resolving with the result. */
export function rejectFailure(result: TurnResult): void {
  if (result.error) throw new RunnerError(result.status === 'canceled' ? 'conflict' : 'bad-request', result.error);
}

// ---- checks ------------------------------------------------------------------------------

export function requireChat(ctx: RunnerContext, chat: string): void {
  const fields = ctx.host.wiki.getFields(chat);
  if (!fields) throw new RunnerError('not-found', `The chat "${chat}" does not exist.`);
  if (typeof fields.agent !== 'string' || !fields.agent.trim()) throw new RunnerError('bad-request', `"${chat}" is not a chat: it has no "agent" field.`);
}

export function requireTitle(ctx: RunnerContext, title: string): void {
  const problem = titleProblem(ctx.host.wiki, title);
  if (problem) throw new RunnerError(problem === 'exists' ? 'conflict' : 'bad-request', titleProblemText(title, problem));
}

export function requireIdle(ctx: RunnerContext, chat: string): void {
  requireChat(ctx, chat);
  if (ctx.isActive(chat)) throw new RunnerError('conflict', `"${chat}" is running a turn; stop it first.`);
}

/** A chat may fork (edit, switch) when no turn runs and nothing waits for the user. */
export function requireForkable(ctx: RunnerContext, chat: string): void {
  requireIdle(ctx, chat);
  if (ctx.isExternal(chat)) throw new RunnerError('conflict', `"${chat}" lists what an MCP client did; it has no turns to edit.`);
  if (ctx.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') {
    throw new RunnerError('conflict', `"${chat}" is waiting for your decision or answer; give it, or stop the turn, first.`);
  }
}

export function requireLastTurn(ctx: RunnerContext, chat: string, userMessage: string): void {
  requireIdle(ctx, chat);
  if (ctx.isExternal(chat)) throw new RunnerError('conflict', `"${chat}" lists what an MCP client did; there is no reply to regenerate.`);
  ctx.turns.require(chat, userMessage);
  if (!ctx.turns.isLast(chat, userMessage)) throw new RunnerError('conflict', 'Only the last turn can be answered again.');
}
