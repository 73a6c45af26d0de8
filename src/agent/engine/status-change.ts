/*\
How a chat's status changes, the one way: the one status writer (ChatStore.setStatus, which
holds it to the status table, store/status.ts) writes it, then a `status` event on the bus
(events.ts) announces it, which every page showing the chat follows (live-state.ts). The
engine's status plugin, the runner and an MCP session's chat all change a status here.
\*/
import type { ChatStore } from '../store/chat-store';
import type { ChatStatus } from '../store/schemas';
import type { AgentEventBody } from './events';

/** Where a status change is announced: the runner's bus, or a turn's context. */
export interface StatusBus {
  emit(event: AgentEventBody): unknown;
}

/** Write `status` through the one status writer (a StatusError if the table forbids it), then announce it. */
export function changeStatus(store: Pick<ChatStore, 'setStatus'>, bus: StatusBus, chat: string, status: ChatStatus): void {
  store.setStatus(chat, status);
  bus.emit({ type: 'status', chat, status });
}
