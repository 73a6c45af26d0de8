/*\
Fields of a chat tiddler that say where it stands for the user (DESIGN 4), beside the schema's
(store/schemas.ts): in the bin, archived, messages queued behind a running turn, a chat that
lists what an MCP client did. One home, read by the runner, the handlers and the UI; zod-free.
\*/

/** The chat is in the bin (when it was put there); its messages stay until it is deleted forever. */
export const CHAT_DELETED = 'agent-deleted';
/** `yes` hides the chat from the Chats list but under "Archived". */
export const CHAT_ARCHIVED = 'agent-archived';
/** Messages sent during a turn and not started yet (JSON), so a reload keeps them. */
export const CHAT_QUEUED = 'agent-queued';
/** A chat whose calls come from outside (the MCP client's name): no model turn ever runs in it. */
export const CHAT_MCP_SESSION = 'agent-mcp-session';
