/*\
Built-in plugin: the chat's status field follows the turn, and every change is announced.
\*/
import type { EnginePlugin } from '../hooks';

export const statusPlugin: EnginePlugin = {
  name: 'status',
  apply(hooks) {
    hooks.agentStatusChanged.tap('status', ({ status }, ctx) => {
      ctx.store.setStatus(ctx.chat, status);
      ctx.emit({ type: 'status', chat: ctx.chat, status });
    });
  },
};
