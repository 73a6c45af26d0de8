/*\
The commands the chat keyboard shortcuts send to a chat's <$ai-chat> widget (action-chat-widget.ts),
as a DOM event on the chat's element.
\*/
export const COMMAND_EVENT = 'tc-ai-command';
export type ChatCommand = 'send' | 'stop' | 'focus';
