/*\
Starts the server edition when this process starts serving the wiki (--listen), and only
then: a build, a render or the headless --agent-send command loads this plugin but serves
nothing, runs no recovery and writes no state.
\*/
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const name = 'tiddlyagent-server';
export const platforms = ['node'];
export const after = ['startup'];
// The listen command runs in the 'commands' start-up step: the hook must be there before it.
export const before = ['commands'];
export const synchronous = true;

export function startup(): void {
  $tw.hooks.addHook('th-server-command-post-start', (...args: unknown[]) => {
    const [server, nodeServer] = args as [{ get(name: string): string | undefined }, { on(event: string, fn: () => void): void }];
    const lib = require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server;
    const edition = lib.startServerEdition(server);
    nodeServer.on('close', () => edition.stop());
    return server;
  });
}
