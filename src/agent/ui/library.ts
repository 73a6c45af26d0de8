/*\
The plugin's library modules, required on first use rather than imported at the top of a UI
module: TiddlyWiki executes every widget and parser module when a page loads, and a library is
then compiled only once it is needed, so a wiki that shows no chat loads almost as fast as a
plain one.
- page(): what a chat needs to be shown and driven (page.ts: the runner, the safe reply
  parser, the diff): all a page of the server edition ever compiles for a chat;
- lib(): everything else (lib.ts: the engine, providers, tools, schedules, settings' helpers).
The chat calls them for every streamed delta, so each module is looked up once.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import type * as PageLibrary from '$:/plugins/tiddlyagent/agent/page.js';

let library: typeof Library | undefined;
let pageLibrary: typeof PageLibrary | undefined;

export function lib(): typeof Library {
  return (library ??= require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library);
}

export function page(): typeof PageLibrary {
  return (pageLibrary ??= require('$:/plugins/tiddlyagent/agent/page.js') as typeof PageLibrary);
}
