/*\
The MCP SDK's client, bundled as its own module so it is compiled only when an agent first
uses an MCP server (runner/mcp-client.ts requires it then), never at page load. Streamable
HTTP works in both runners; stdio comes from the server plugin (src/server/mcp-stdio.ts).
\*/
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
