/*\
The MCP SDK's client under Node.js (the server edition and the headless command): required
from node_modules when an agent first uses an MCP server (runner/host/mcp-client.ts), never
bundled, so no page carries it. Streamable HTTP, the older HTTP+SSE, and stdio for servers defined with
`mcp-command` (a child process).
\*/
import * as z from 'zod/v4';

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

/** `tools/list` read leniently: one tool with a non-object schema does not hide the others. */
export const LenientListToolsSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), description: z.optional(z.string()), inputSchema: z.unknown() })),
  nextCursor: z.optional(z.string()),
});
