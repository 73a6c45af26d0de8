/*\
Built-in plugin: the chat's status field follows the turn, and every change is announced.
\*/
import type { EnginePlugin } from '../hooks';
import { canTransition } from '../status';

export const statusPlugin: EnginePlugin = {
  name: 'status',
  apply(hooks) {
    hooks.agentStatusChanged.tap('status', ({ status }, ctx) => {
      const current = ctx.store.readChat(ctx.chat)['agent-status'];
      if (!canTransition(current, status)) throw new Error(`Chat "${ctx.chat}" cannot go from ${current} to ${status}`);
      ctx.store.setStatus(ctx.chat, status);
      ctx.emit({ type: 'status', chat: ctx.chat, status });
    });
  },
};
