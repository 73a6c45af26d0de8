/*\
Built-in plugin: streamed text and reasoning go to the event bus (and from there straight to
the chat on screen), never through the wiki store.
\*/
import type { EnginePlugin } from '../hooks';

export const streamingPlugin: EnginePlugin = {
  name: 'streaming',
  apply(hooks) {
    hooks.responseUpdate.tap('streaming', (part, ctx) => {
      if (part.type === 'text-delta') ctx.emit({ type: 'text-delta', chat: ctx.chat, text: part.text });
      else if (part.type === 'reasoning-delta') ctx.emit({ type: 'reasoning-delta', chat: ctx.chat, text: part.text });
    });
  },
};
