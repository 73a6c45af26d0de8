/*\
Built-in plugin: tool calling. Offers the agent's tools to the model (native function
calling, or the text protocol's instructions in the system prompt), and after a reply
decides who acts next: the engine again when the reply called tools.
\*/
import type { EnginePlugin } from '../hooks';
import { parseToolUses, renderToolInstructions } from '../text-tool-protocol';

export const toolCallingPlugin: EnginePlugin = {
  name: 'tool-calling',
  apply(hooks) {
    hooks.processPrompts.tap('tool-calling', (build, ctx) => {
      if (!build.toolSpecs.length) return;
      if (ctx.agent['agent-tool-protocol'] === 'text') {
        const system = build.sections.findIndex((section) => section.id === 'system');
        build.sections.splice(system + 1, 0, {
          id: 'tools',
          kind: 'tools',
          protected: true,
          messages: [{ role: 'system', content: renderToolInstructions(build.toolSpecs) }],
        });
        build.toolSpecs = [];
      }
    });
    hooks.responseComplete.tap('tool-calling', (response, ctx) => {
      if (ctx.agent['agent-tool-protocol'] === 'text' && !response.canceled && !response.error) {
        const parsed = parseToolUses(response.text);
        if (parsed.calls.length) {
          response.text = parsed.text;
          response.toolCalls = parsed.calls.map((c) => ('error' in c ? { id: c.id, name: c.name, args: {}, invalid: c.error } : c));
        }
      }
      if (response.toolCalls.length && !response.canceled && !response.error) ctx.actions.yieldNextRoundTo = 'self';
    });
  },
};
