/*\
Tool messages: why a call did not run to its end, beyond what `tool-status` says (the UI
says it in the user's language; the text stays the English the model was sent):
user-denied (the user chose Deny), expired (nobody confirmed in time), rule-denied (an
approval rule), stopped (the user stopped the turn), replaced (the user sent a new message
instead), dismissed (a question the user dismissed), canceled (the MCP session or parent turn
it belonged to ended), unanswered (a question in a turn no user started that nobody answered
in time: runner/services/turn-unattended.ts). A call that took too long has `tool-status: timeout`. No zod here:
the chat's UI reads it, and a page need not compile the schemas to show a chat.
\*/
export const TOOL_OUTCOMES = ['user-denied', 'expired', 'rule-denied', 'stopped', 'replaced', 'dismissed', 'canceled', 'unanswered'] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];
