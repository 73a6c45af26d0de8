/*\
GET /agent/events?chat=<title>&chat=…[&sync=<title>…][&last-event-id=<id>]: the page's
push channel (server-sent events, push/push-hub.ts). Readers may watch: TiddlyWiki's server
has checked that the user may read the wiki. A `Last-Event-ID` header (the browser's own
reconnect) wins over the query parameter (the cursor rendered into the page).
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const methods = ['GET'];
export const path = /^\/agent\/events$/;
export const info = { priority: 100 };

export function handler(request: IncomingMessage, response: ServerResponse, state: { queryParameters: Record<string, string | string[] | undefined> }): void {
  const server = require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server;
  const edition = server.getServerEdition();
  if (!edition) {
    response.writeHead(503, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ error: 'The TiddlyAgent server edition is not running.' }));
    return;
  }
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const header = request.headers['last-event-id'];
  const lastEventId = (Array.isArray(header) ? header[0] : header) || list(state.queryParameters['last-event-id'])[0];
  edition.hub.connect(response, list(state.queryParameters.chat).slice(0, 200), lastEventId, list(state.queryParameters.sync));
}
