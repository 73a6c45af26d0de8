/*\
The MCP SDK's client for browser-only wikis (a single HTML file): Streamable HTTP and the older
HTTP+SSE, bundled (~325 KB), in a plugin of its own that such a wiki adds only to call MCP
servers from the page, so no other wiki carries it. The server edition and the headless command
use the SDK from node_modules instead (src/server/mcp-sdk.ts). runner/host/mcp-client.ts
requires it on first use.
\*/
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

import * as z from 'zod/v4';

/**
 * `tools/list` read leniently: the SDK's own schema refuses the whole list when one tool's
 * input schema is not an object; the client leaves out just that tool, with its reason.
 */
export const LenientListToolsSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), description: z.optional(z.string()), inputSchema: z.unknown() })),
  nextCursor: z.optional(z.string()),
});
