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

const SCHEDULE_TAG = '$:/tags/AI/Schedule';
const WANTED = `[all[tiddlers]tag[${SCHEDULE_TAG}]limit[1]] [all[shadows+tiddlers]tag[$:/tags/AI/Agent]has[agent-heartbeat-interval]limit[1]]`;

export function startup(): void {
  // The server edition's mark has content only when the server edition serves the page.
  if (document.querySelector('meta[name="tiddlyagent-server"]')?.getAttribute('content')?.trim()) return;
  const start = () => {
    $tw.wiki.removeEventListener('change', onChange);
    const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
    lib.startScheduler(lib.getLocalRunner(), lib.createTiddlyWikiPort($tw.wiki), $tw.wiki);
  };
  // Until then, a change starts it only when it brings a schedule or a heartbeat.
  const onChange = (changes: unknown) => {
    for (const title of Object.keys(changes as Record<string, unknown>)) {
      const fields = $tw.wiki.getTiddler(title)?.fields;
      if (fields && ((fields.tags as string[] | undefined)?.includes(SCHEDULE_TAG) || fields['agent-heartbeat-interval'] !== undefined)) return start();
    }
  };
  if ($tw.wiki.filterTiddlers(WANTED).length) start();
  else $tw.wiki.addEventListener('change', onChange);
}
