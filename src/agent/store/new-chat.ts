/*\
A new chat tiddler, the one definition of what it starts with: its title, its agent, the status
a new chat has (idle) and an empty text, whoever makes it: ChatStore.createChat and
createSubAgentChat, an import (transfer/plan.ts), <$action-ai-send> (ui/ai-send.ts). Wikitext's
New chat actions make one through the global procedure <<ai-new-chat>> (ui/chat-globals.tid),
which writes the same fields. Light and zod-free, for the UI too.
\*/
import type { ChatStatus } from './schemas';

/** The status a new chat starts with. */
export const NEW_CHAT_STATUS: ChatStatus = 'idle';

/**
 * A new chat's fields: `fields` (its dates, and whatever else its maker gives it, an empty text
 * unless they hold one), with its title, its agent and the status a new chat starts with.
 */
export function newChatFields<V = string>(title: string, agent: string, fields: Readonly<Record<string, V>> = {}): Record<string, V | string> {
  return { text: '', ...fields, title, agent, 'agent-status': NEW_CHAT_STATUS };
}
