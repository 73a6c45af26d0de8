/*\
Starts the server edition when this process starts serving the wiki (--listen), and only
then: a build, a render or the headless --agent-send command loads this plugin but serves
nothing, runs no recovery and writes no state.

Before TiddlyWiki's server sees a request:
- the Host check (host-check.ts) answers 403 to a request whose Host does not name this server,
  whatever its route (DNS rebinding);
- requests to /mcp are authenticated as reads (the request handler's own `authorizationType`
  option): TiddlyWiki would otherwise demand a writer and the `X-Requested-With` header of
  every POST, which MCP clients cannot send. Users are still authenticated and must be
  readers; the endpoint requires a writer for every write tool (mcp/mcp-endpoint.ts).
It also gives the agent plugin the owner's configuration file (`agent-config=` on the
command line) and the port this server listens on, which calls from the wiki never reach.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';
import { hostRefusal } from './host-check';

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
    const agent = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Agent;
    if (server.get('agent-config')) agent.setOwnerConfigPath(server.get('agent-config'));
    const listening = () => {
      const address = nodeServer.address();
      if (address && typeof address === 'object') agent.setOwnServerPorts([address.port]);
    };
    listening();
    nodeServer.on('listening', listening);
    const edition = lib.startServerEdition(server);
    guardRequests(server, nodeServer, agent);
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
  address(): { port: number } | string | null;
  removeAllListeners(event: 'request'): void;
}

function guardRequests(server: TiddlyWikiServer, nodeServer: NodeServer, agent: typeof Agent): void {
  const mcpPath = `${server.get('path-prefix') ?? ''}/mcp`;
  const original = nodeServer.listeners('request');
  nodeServer.removeAllListeners('request');
  nodeServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const refused = hostRefusal(request.headers.host, server.get('host'), agent.ownerPolicy().hosts);
    if (refused) {
      response.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(`Refused: ${refused}\n`);
      return;
    }
    const pathname = (request.url ?? '').split('?')[0];
    if (pathname === mcpPath) server.requestHandler(request, response, { authorizationType: 'readers' });
    else for (const listener of original) listener.call(nodeServer, request, response);
  });
}
