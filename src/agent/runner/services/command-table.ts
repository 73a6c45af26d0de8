/*\
The one handler table: every command and query kind of runner/commands.ts, and what carries it
out. LocalRunner dispatches through it; the server's route and RemoteRunner need nothing per
kind, so a new command is a schema and a handler.
\*/
import type { CommandKind, QueryKind, ValidCommand } from '../commands';
import { deleteChat, rename } from './chat-commands';
import { answer, decide, revokeRule } from './decision-commands';
import type { ImmediateHandler, QueryHandler, QueuedHandler } from './handler';
import { compact, deleteTurn, rollback, switchBranch } from './history-commands';
import { askAi, mcpTest, preview, providerTest } from './queries';
import { edit, retry, send, stop } from './turn-commands';

export { resume } from './turn-commands';
export { moveChat } from './chat-commands';

// biome-ignore lint/suspicious/noExplicitAny: the table holds each kind's handler; dispatch narrows by kind
type AnyQueued = QueuedHandler<any>;

export const COMMAND_HANDLERS: { readonly [K in CommandKind]: AnyQueued | ImmediateHandler<ValidCommand<K>> } = {
  send,
  stop,
  decide,
  'revoke-rule': revokeRule,
  answer,
  retry,
  edit,
  'switch-branch': switchBranch,
  'delete-turn': deleteTurn,
  rollback,
  rename,
  'delete-chat': deleteChat,
  compact,
};

export const QUERY_HANDLERS: { readonly [K in QueryKind]: QueryHandler<K> } = {
  preview,
  'mcp-test': mcpTest,
  'provider-test': providerTest,
  'propose-edit': askAi,
};
