/*\
POST | GET | DELETE /mcp: the wiki as an MCP server (Streamable HTTP), off by default; see
mcp/mcp-endpoint.ts. TiddlyWiki's server authenticates these requests as reads (startup.ts),
so readers reach the read tools; the endpoint itself requires a writer for write tools.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const methods = ['POST', 'GET', 'DELETE'];
export const path = /^\/mcp$/;
export const bodyFormat = 'stream';
export const info = { priority: 100 };

export function handler(request: IncomingMessage, response: ServerResponse, state: Parameters<typeof Server.handleMcp>[2]): void {
  const server = require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server;
  void server.handleMcp(request, response, state);
}
