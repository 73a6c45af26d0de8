/*\
Browser start-up: a turn cannot survive a page load, so a chat still marked `working` was
cut off by a reload or a closed tab and is marked `interrupted`; chats waiting for the user
keep waiting (their cards are tiddlers) and their confirmation timeouts are restored.
\*/
import { getRunner } from '$:/plugins/tiddlyagent/agent/lib.js';

export const name = 'tiddlyagent-runner';
export const platforms = ['browser'];
export const after = ['startup'];
export const synchronous = true;

export function startup(): void {
  getRunner().restore();
}
