/*\
Filter operator `aimcp`, for the settings tab: what an MCP server tiddler says about itself.
Operand `problem`: why it cannot be used (nothing when it can); `transport`: "stdio: <command>"
or "<HTTP transport>: <url>" (as `mcp-transport` chooses; empty: "Streamable HTTP (or HTTP+SSE)").
\*/
import { describeEach, type Source } from './fields-filter';
import { lib } from './library';

export function aimcp(source: Source, operator: { operand: string }, options: { wiki: unknown }): string[] {
  const L = lib();
  return describeEach(source, L.createTiddlyWikiPort(options.wiki as never), (fields) => {
    if (operator.operand === 'problem') {
      try {
        L.parseTiddler(L.McpServerSchema, 'MCP server', fields);
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
    } else if (operator.operand === 'transport') {
      const http = { sse: 'HTTP+SSE', 'streamable-http': 'Streamable HTTP' }[fields['mcp-transport']?.trim() ?? ''] ?? 'Streamable HTTP (or HTTP+SSE)';
      return fields['mcp-url'] ? `${http}: ${fields['mcp-url']}` : fields['mcp-command'] ? `stdio: ${fields['mcp-command']}` : '';
    }
    return '';
  });
}
