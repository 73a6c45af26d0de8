/*\
The plugin's library modules, required on first use rather than imported at the top of a UI
module: TiddlyWiki executes every widget and parser module when a page loads, and a library is
then compiled only once it is needed, so a wiki that shows no chat loads almost as fast as a
plain one.
- page(): what a chat needs to be shown and driven (page.ts: the runner, the safe reply
  parser): with diff(), all a page of the server edition ever compiles for a chat;
- diff(): what the change view needs once a chat shows a change (diff.ts: the text diff, the
  active-content flags);
- lib(): everything else (lib.ts: the engine, providers, tools, schedules, settings' helpers).
The chat calls them for every streamed delta, so each module is looked up once.
Code they share with the modules TiddlyWiki executes at start-up is compiled once, not once
per module (scripts/bundle-modules.mjs).
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import type * as PageLibrary from '$:/plugins/tiddlyagent/agent/page.js';
import type * as DiffLibrary from '$:/plugins/tiddlyagent/agent/diff.js';

let library: typeof Library | undefined;
let pageLibrary: typeof PageLibrary | undefined;
let diffLibrary: typeof DiffLibrary | undefined;

export function lib(): typeof Library {
  library ??= require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
  return library;
}

export function page(): typeof PageLibrary {
  pageLibrary ??= require('$:/plugins/tiddlyagent/agent/page.js') as typeof PageLibrary;
  return pageLibrary;
}

export function diff(): typeof DiffLibrary {
  diffLibrary ??= require('$:/plugins/tiddlyagent/agent/diff.js') as typeof DiffLibrary;
  return diffLibrary;
}
