/*\
The chat status machine: which status may follow which. ChatStore.setStatus, the one status
writer, checks every change against this table, so no code path (engine, runner, restart
recovery) can leave a chat in an impossible state.
\*/
import type { ChatStatus } from './schemas';

export const STATUS_TRANSITIONS: Record<ChatStatus, readonly ChatStatus[]> = {
  idle: ['working'],
  completed: ['working'],
  canceled: ['working'],
  failed: ['working'],
  interrupted: ['working'],
  working: ['input-required', 'completed', 'canceled', 'failed', 'interrupted'],
  'input-required': ['working', 'canceled', 'failed', 'interrupted'],
};

export function canTransition(from: ChatStatus, to: ChatStatus): boolean {
  return from === to || STATUS_TRANSITIONS[from].includes(to);
}
