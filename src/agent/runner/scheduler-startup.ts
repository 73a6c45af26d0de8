/*\
Browser-only wikis: schedules and heartbeats run in this page while it is open (the
background panel says so). The library is loaded only once the wiki has a schedule or a
heartbeat; a page served by the server edition leaves them to the server.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';

export const name = 'tiddlyagent-scheduler';
export const platforms = ['browser'];
export const after = ['tiddlyagent-runner'];
export const synchronous = true;

const WANTED = '[all[tiddlers]tag[$:/tags/AI/Schedule]limit[1]] [all[shadows+tiddlers]tag[$:/tags/AI/Agent]has[agent-heartbeat-interval]limit[1]]';

export function startup(): void {
  // The server edition's mark has content only when the server edition serves the page.
  if (document.querySelector('meta[name="tiddlyagent-server"]')?.getAttribute('content')?.trim()) return;
  const check = () => {
    if (!$tw.wiki.filterTiddlers(WANTED).length) return;
    $tw.wiki.removeEventListener('change', check);
    const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
    lib.startScheduler(lib.getLocalRunner(), lib.createTiddlyWikiPort($tw.wiki), $tw.wiki);
  };
  $tw.wiki.addEventListener('change', check);
  check();
}
