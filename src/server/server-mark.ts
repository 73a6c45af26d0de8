/*\
<<tiddlyagent-server-mark>>: rendered into the <head> of every page this server serves (by
$:/plugins/tiddlyagent/agent/server-mark), it tells the page that turns run on the server,
where the routes are and the push channel's position at the moment the page was rendered,
so the page misses nothing written after it. Empty when the server edition does not run
(e.g. `--build` renders a single-file wiki), so such a page runs turns itself.
\*/
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const name = 'tiddlyagent-server-mark';
export const params = [];

export function run(): string {
  const edition = (require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server).getServerEdition();
  return edition ? `${encodeURIComponent(edition.prefix)} ${edition.hub.cursor()}` : '';
}
