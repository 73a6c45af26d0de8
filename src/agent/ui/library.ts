/*\
The plugin's library module, required on first use rather than imported at the top of a UI
module: TiddlyWiki executes every widget and parser module when a page loads, and the
library (engine, providers, tools; about 190 KB) is then compiled only once a chat is shown
or a reply is rendered, so a wiki that shows no chat loads almost as fast as a plain one.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';

export function lib(): typeof Library {
  return require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
}
