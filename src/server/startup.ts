/*\
Starts the server edition when this process starts serving the wiki (--listen), and only
then: a build, a render or the headless --agent-send command loads this plugin but serves
nothing, runs no recovery and writes no state.

It also has TiddlyWiki's server authenticate requests to /mcp as reads (its request handler's
own `authorizationType` option): TiddlyWiki would otherwise demand a writer and the
`X-Requested-With` header of every POST, which MCP clients cannot send. Users are still
authenticated and must be readers; the endpoint requires a writer for every write tool
(mcp/mcp-endpoint.ts).
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const name = 'tiddlyagent-server';
export const platforms = ['node'];
export const after = ['startup'];
// The listen command runs in the 'commands' start-up step: the hook must be there before it.
export const before = ['commands'];
export const synchronous = true;

export function startup(): void {
  $tw.hooks.addHook('th-server-command-post-start', (...args: unknown[]) => {
    const [server, nodeServer] = args as [TiddlyWikiServer, NodeServer];
    const lib = require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server;
    const edition = lib.startServerEdition(server);
    routeMcpAsReads(server, nodeServer);
    nodeServer.on('close', () => {
      lib.closeMcpSessions();
      edition.stop();
    });
    return server;
  });
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

interface TiddlyWikiServer {
  get(name: string): string | undefined;
  requestHandler(request: IncomingMessage, response: ServerResponse, options?: { authorizationType?: 'readers' | 'writers' }): void;
}

interface NodeServer {
  on(event: string, fn: (...args: never[]) => void): void;
  listeners(event: 'request'): Listener[];
  removeAllListeners(event: 'request'): void;
}

function routeMcpAsReads(server: TiddlyWikiServer, nodeServer: NodeServer): void {
  const mcpPath = `${server.get('path-prefix') ?? ''}/mcp`;
  const original = nodeServer.listeners('request');
  nodeServer.removeAllListeners('request');
  nodeServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const pathname = (request.url ?? '').split('?')[0];
    if (pathname === mcpPath) server.requestHandler(request, response, { authorizationType: 'readers' });
    else for (const listener of original) listener.call(nodeServer, request, response);
  });
}
