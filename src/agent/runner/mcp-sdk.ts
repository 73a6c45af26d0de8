/*\
The MCP SDK's client, bundled as its own module so it is compiled only when an agent first
uses an MCP server (runner/mcp-client.ts requires it then), never at page load. Streamable
HTTP works in both runners; stdio comes from the server plugin (src/server/mcp-stdio.ts).
\*/
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import * as z from 'zod/v4';

/**
 * `tools/list` read leniently: the SDK's own schema refuses the whole list when one tool's
 * input schema is not an object; the client leaves out just that tool, with its reason.
 */
export const LenientListToolsSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), description: z.optional(z.string()), inputSchema: z.unknown() })),
  nextCursor: z.optional(z.string()),
});
