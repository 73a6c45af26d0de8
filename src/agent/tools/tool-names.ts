/*\
What one entry of an agent's `agent-tools` enables: the tool of that name, or, for
`mcp-<server>` and `plugin-<prefix>`, every tool whose name begins with `<name>-` (an MCP
server's tools, a plugin's DataSource and Actions). A turn (engine/agent-setup.ts) and the
wiki's MCP endpoint (runner/services/external-session.ts) read an agent's list the same way.
\*/
import { MCP_PREFIX } from './mcp-tools';
import { PLUGIN_TOOL_PREFIX } from './plugin-tools';
import type { ToolDefinition } from './tool';

export function toolsNamed(name: string, all: ReadonlyMap<string, ToolDefinition>): ToolDefinition[] {
  const tool = all.get(name);
  if (tool) return [tool];
  if (!name.startsWith(MCP_PREFIX) && !name.startsWith(PLUGIN_TOOL_PREFIX)) return [];
  return [...all.values()].filter((t) => t.name.startsWith(`${name}-`));
}
