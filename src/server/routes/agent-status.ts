/*\
GET /agent/status: what a reader may know of the server edition: that it runs, per provider
profile whether the server has its key for the profile's address (set | missing | refused;
never a variable's name or value), and the push channel's position.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const methods = ['GET'];
export const path = /^\/agent\/status$/;
export const info = { priority: 100 };

export function handler(_request: IncomingMessage, response: ServerResponse): void {
  const server = require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server;
  const edition = server.getServerEdition();
  response.writeHead(edition ? 200 : 503, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(
    JSON.stringify(
      edition
        ? { runner: 'server', keys: server.keyStates(), cursor: edition.hub.cursor(), pages: edition.hub.clientCount }
        : { error: 'The TiddlyAgent server edition is not running.' },
    ),
  );
}
