/*\
Filter operator `aimcp`, for the settings tab: what an MCP server tiddler says about itself.
Operand `problem`: why it cannot be used (nothing when it can); `transport`: "stdio: <command>"
or "Streamable HTTP: <url>".
\*/
import { lib } from './library';

type Source = (iterator: (tiddler: unknown, title: string) => void) => void;

export function aimcp(source: Source, operator: { operand: string }, options: { wiki: unknown }): string[] {
  const L = lib();
  const port = L.createTiddlyWikiPort(options.wiki as never);
  const out: string[] = [];
  source((_tiddler, title) => {
    const fields = port.getFields(title);
    if (!fields) return;
    let value = '';
    if (operator.operand === 'problem') {
      try {
        L.parseTiddler(L.McpServerSchema, 'MCP server', fields);
      } catch (e) {
        value = e instanceof Error ? e.message : String(e);
      }
    } else if (operator.operand === 'transport') {
      value = fields['mcp-url'] ? `Streamable HTTP: ${fields['mcp-url']}` : fields['mcp-command'] ? `stdio: ${fields['mcp-command']}` : '';
    }
    if (value) out.push(value);
  });
  return out;
}
