/*\
The plugin's library module, required on first use rather than imported at the top of a UI
module: TiddlyWiki executes every widget and parser module when a page loads, and the
library (engine, providers, tools; about 190 KB) is then compiled only once a chat is shown
or a reply is rendered, so a wiki that shows no chat loads almost as fast as a plain one.
The chat calls it for every streamed delta, so the module is looked up once.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';

let library: typeof Library | undefined;

export function lib(): typeof Library {
  return (library ??= require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library);
}
