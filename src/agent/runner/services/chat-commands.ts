/*\
The commands on a chat as a whole: rename it with everything keyed by its title
(runner/services/chat-move.ts), in its queue after a running turn; and delete a chat in the bin forever
with everything it owns (store/chat-parts.ts).
\*/
import type { TurnResult } from '../../engine/loop';
import { CHAT_DELETED } from '../../store/chat-fields';
import { chatFamily, chatPartTitles, OWN_PARTS } from '../../store/chat-parts';
import { titleProblem, titleProblemText } from '../../store/chat-titles';
import { applyChatMove, planChatMove } from './chat-move';
import type { ValidCommand } from '../commands';
import { type ImmediateHandler, type QueuedHandler, type RunnerContext, rejectFailure, requireChat, requireIdle, requireTitle } from './handler';
import { refuse } from '../refusals';

/** Refuses a blank, system, unsafe or existing title; a sub-agent's chat moves with its parent's. */
export const rename: QueuedHandler<ValidCommand<'rename'>> = {
  queued: true,
  answer: 'receipt',
  check(ctx, command) {
    requireChat(ctx, command.chat);
    if (ctx.host.wiki.getFields(command.chat)?.['agent-parent']) throw refuse('conflict', 'sub-agent-chat', { chat: command.chat });
    requireTitle(ctx, command.to);
    return command;
  },
  run: (ctx, { chat, to }) => Promise.resolve(moveChat(ctx, chat, to)),
  settle(result, { to }) {
    rejectFailure(result);
    return { title: to };
  },
};

/** "Delete forever" a chat in the bin: the chat, its messages, journals, images, todo list and sub-agents' chats. */
export const deleteChat: ImmediateHandler<ValidCommand<'delete-chat'>> = {
  queued: false,
  run(ctx, { chat }) {
    requireIdle(ctx, chat);
    const wiki = ctx.host.wiki;
    if (!wiki.getFields(chat)?.[CHAT_DELETED]) throw refuse('conflict', 'not-in-bin', { chat });
    // The chat, its parts, its sub-agents' chats and theirs; of the parts only hidden ones (`$:/ai/`): a tiddler of the user's stays.
    const owned = chatFamily(wiki, chat)
      .flatMap((c) => [c, ...chatPartTitles(wiki, c, OWN_PARTS)])
      .filter((t) => t === chat || t.startsWith('$:/ai/'));
    for (const title of owned) wiki.deleteTiddler(title);
    return { deleted: owned };
  },
};

/** Move the chat and all it owns to `to` in one synchronous step (one step on disk in the server edition). */
export function moveChat(ctx: RunnerContext, chat: string, to: string): TurnResult {
  const problem = titleProblem(ctx.host.wiki, to);
  if (problem) return { status: 'failed', error: titleProblemText(to, problem) };
  const move = planChatMove(ctx.host.wiki, chat, to);
  applyChatMove(ctx.host.wiki, move);
  ctx.queue.move(chat, to, move.renamed);
  ctx.expiry.move(chat, to);
  return { status: 'completed' };
}
