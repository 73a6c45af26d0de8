/*\
Browser start-up: a turn cannot survive a page load, so a chat still marked `working` was
cut off by a reload or a closed tab and is marked `interrupted`; chats waiting for the user
keep waiting (their cards are tiddlers) and their confirmation timeouts are restored.
A wiki with no such chat does not load the library at all here.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import { servedByServerEdition } from '../server-edition';

export const name = 'tiddlyagent-runner';
export const platforms = ['browser'];
export const after = ['startup'];
export const synchronous = true;

export function startup(): void {
  // The library is compiled only when some chat has a turn to restore (see ui/library.ts), and
  // never in a page of the server edition: its turns run, and are restored, on the server.
  if (servedByServerEdition()) return;
  if (!$tw.wiki.filterTiddlers('[has[agent]field:agent-status[working]] [has[agent]field:agent-status[input-required]] [has[agent]has[agent-queued]]').length)
    return;
  (require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library).getLocalRunner().restore();
}
