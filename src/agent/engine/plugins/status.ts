/*\
Built-in plugin: the chat's status field follows the turn, and every change is announced.
\*/
import type { EnginePlugin } from '../hooks';
import { changeStatus } from '../status-change';

export const statusPlugin: EnginePlugin = {
  name: 'status',
  apply(hooks) {
    hooks.agentStatusChanged.tap('status', ({ status }, ctx) => changeStatus(ctx.store, ctx, ctx.chat, status));
  },
};
