/*\
The commands that change a chat's history without a model turn: switch to another version at a
fork (runner/services/branches.ts), delete a turn's messages or roll back what its tools changed
(runner/services/turns.ts), and compact the older turns into a summary (engine/compaction.ts). After
each, the context meter is measured again (LocalRunner.recountContext).
\*/
import { compactNow, type TurnResult } from '../../engine/loop';
import { RunnerError } from '../chat-runner';
import type { ValidCommand } from '../commands';
import { type ImmediateHandler, type QueuedHandler, type RunnerContext, rejectFailure, requireChat, requireForkable, requireIdle } from './handler';
import { refuse } from '../refusals';

export const switchBranch: QueuedHandler<ValidCommand<'switch-branch'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    const { chat, at, version } = command;
    requireForkable(ctx, chat);
    if (!ctx.branches.forks(chat).get(at)?.versions.includes(version)) throw refuse('not-found', 'no-such-version', { chat, version, at });
    return command;
  },
  run(ctx, { chat, at, version }) {
    if (!ctx.branches.switchTo(chat, at, version)) return Promise.resolve({ status: 'failed', error: 'That version is no longer there.' });
    return ctx.recountContext(chat).then(() => ({ status: 'completed' }));
  },
};

/**
 * Remove a turn's messages (not what its tools changed in the wiki). A turn whose changes stand
 * (not rolled back) is deleted only with `keepChanges`: its journal is the only way back, so no
 * caller removes it without saying so.
 */
export const deleteTurn: ImmediateHandler<ValidCommand<'delete-turn'>> = {
  queued: false,
  run(ctx, { chat, message, keepChanges }) {
    requireIdle(ctx, chat);
    const turn = ctx.turns.require(chat, message);
    const standing = ctx.turns.standingChanges(chat, message);
    if (standing.length && keepChanges !== true) {
      throw new RunnerError(
        'conflict',
        `This turn changed ${standing.length === 1 ? '1 tiddler' : `${standing.length} tiddlers`} (${standing.join(', ')}): roll it back first, or delete it with keepChanges to keep the changes without a way back.`,
      );
    }
    ctx.turns.delete(chat, message);
    // Its versions go with it (they have no message left to be switched back on).
    ctx.branches.drop(chat, turn[0]!['agent-seq'], turn.at(-1)!['agent-seq']);
    void ctx.recountContext(chat);
    return undefined;
  },
};

/** Restore what a turn's tools changed; with conflicts, only when `force`. */
export const rollback: ImmediateHandler<ValidCommand<'rollback'>> = {
  queued: false,
  run(ctx, { chat, message, force }) {
    requireChat(ctx, chat);
    const result = ctx.turns.rollback(chat, message, force === true);
    if (!result.conflicts.length) void ctx.recountContext(chat);
    return result;
  },
};

/** "Compact now", in the chat's queue so it never runs beside a turn: Stop aborts the summary; the chat's status does not change. */
export const compact: QueuedHandler<ValidCommand<'compact'>> = {
  queued: true,
  answer: 'done',
  check(ctx, command) {
    requireChat(ctx, command.chat);
    return command;
  },
  run: (ctx, { chat }) => runCompaction(ctx, chat),
  settle(result) {
    rejectFailure(result);
    return { compacted: true };
  },
};

async function runCompaction(ctx: RunnerContext, chat: string): Promise<TurnResult> {
  const controller = new AbortController();
  ctx.controllers.set(chat, controller);
  let outcome: Awaited<ReturnType<typeof compactNow>>;
  try {
    outcome = await compactNow(ctx.engineDeps(await ctx.turnTools(chat, controller.signal)), chat, controller.signal);
  } catch (e) {
    return { status: 'failed', error: e instanceof Error ? e.message : String(e) };
  } finally {
    ctx.controllers.delete(chat);
  }
  if (controller.signal.aborted) return { status: 'canceled', error: 'Compaction was stopped; the chat is as it was.' };
  if (!outcome.compacted) return { status: 'failed', error: outcome.error };
  await ctx.recountContext(chat);
  return { status: 'completed' };
}
