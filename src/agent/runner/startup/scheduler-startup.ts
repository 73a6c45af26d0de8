/*\
Browser-only wikis: schedules, heartbeats and triggers run in this page while it is open (the
background panel says so). The library is loaded only once the wiki has a schedule, a
heartbeat or a trigger; a page served by the server edition leaves them to the server. Of several tabs
of the same wiki only one runs them (a Web Lock per address), so a run is not sent twice.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import { AGENT_TAG, SCHEDULE_TAG, TRIGGER_TAG } from '../../store/tags';
import { startInOneTab } from './background-start';

export const name = 'tiddlyagent-scheduler';
export const platforms = ['browser'];
export const after = ['tiddlyagent-runner'];
export const synchronous = true;

const WANTED = `[all[tiddlers]tag[${SCHEDULE_TAG}]limit[1]] [all[tiddlers]tag[${TRIGGER_TAG}]limit[1]] [all[shadows+tiddlers]tag[${AGENT_TAG}]has[agent-heartbeat-interval]!field:agent-heartbeat-interval[0]limit[1]]`;

export function startup(): void {
  startInOneTab(
    'tiddlyagent-scheduler',
    () => $tw.wiki.filterTiddlers(WANTED).length > 0,
    // A change brings them when it brings a schedule, a trigger or a heartbeat.
    (changes) =>
      Object.keys(changes).some((title) => {
        const fields = $tw.wiki.getTiddler(title)?.fields;
        const tags = fields?.tags as string[] | undefined;
        return !!fields && (!!tags?.includes(SCHEDULE_TAG) || !!tags?.includes(TRIGGER_TAG) || fields['agent-heartbeat-interval'] !== undefined);
      }),
    () => {
      const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
      lib.startScheduler(lib.getLocalRunner(), lib.createTiddlyWikiPort($tw.wiki), $tw.wiki);
    },
  );
}
