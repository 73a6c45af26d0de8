/*\
Browser-only wikis: schedules and heartbeats run in this page while it is open (the
background panel says so). The library is loaded only once the wiki has a schedule or a
heartbeat; a page served by the server edition leaves them to the server. Of several tabs
of the same wiki only one runs them (a Web Lock per address), so a run is not sent twice.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import { servedByServerEdition } from './server-edition';

export const name = 'tiddlyagent-scheduler';
export const platforms = ['browser'];
export const after = ['tiddlyagent-runner'];
export const synchronous = true;

/** schedules/schedule.ts SCHEDULE_TAG, repeated so this module does not load the library. */
const SCHEDULE_TAG = '$:/tags/AI/Schedule';
const WANTED = `[all[tiddlers]tag[${SCHEDULE_TAG}]limit[1]] [all[shadows+tiddlers]tag[$:/tags/AI/Agent]has[agent-heartbeat-interval]!field:agent-heartbeat-interval[0]limit[1]]`;

interface LockManager {
  request(name: string, callback: () => Promise<void>): Promise<void>;
}

export function startup(): void {
  if (servedByServerEdition()) return;
  const run = () => {
    const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
    lib.startScheduler(lib.getLocalRunner(), lib.createTiddlyWikiPort($tw.wiki), $tw.wiki);
  };
  const start = () => {
    $tw.wiki.removeEventListener('change', onChange);
    const locks = (navigator as { locks?: LockManager }).locks;
    if (!locks) return run();
    // Held until this tab closes; then the next tab of this wiki takes over.
    void locks.request(`tiddlyagent-scheduler ${location.origin}${location.pathname}`, () => new Promise<void>(() => run()));
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
