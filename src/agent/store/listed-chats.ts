/*\
Which chats the user sees listed (the Chats tab, the Background panel's heartbeat chats, the
heartbeats that wake chats, the chats a schedule may wake): every chat but a sub-agent's (it
names its parent chat in `agent-parent`) and one marked `agent-hidden` (a sub-agent's chat
carries both: ChatStore.createSubAgentChat). The one definition: TypeScript reads it here;
wikitext lists chats through the global function `ai.chats.listed` (ui/chat-globals.tid), which
spells the same steps (test/unit/store/listed-chats.test.ts holds them together).
\*/

/** Field of a sub-agent's chat: its parent chat. */
export const CHAT_PARENT = 'agent-parent';
/** Field of a chat kept out of the user's lists (`yes`). */
export const CHAT_HIDDEN = 'agent-hidden';

/** The filter steps that keep only chats the user sees listed (they follow a step that finds chats). */
export const LISTED_CHAT_STEPS = `!has[${CHAT_PARENT}]!has[${CHAT_HIDDEN}]`;

/** Whether a chat tiddler's fields keep it out of the user's lists (a sub-agent's chat, a hidden one). */
export function isUnlistedChat(fields: Readonly<Record<string, unknown>> | undefined): boolean {
  return !!(fields?.[CHAT_PARENT] || fields?.[CHAT_HIDDEN]);
}
