/*\
Whether the server edition serves this page: the server plugin marks every page it serves
(push-channel.ts reads the mark). Such a page runs no turn, schedule or indexer of its own:
the server does, and the page's runner is a RemoteRunner. The one place that asks.
\*/
import type * as PushChannel from './startup/push-channel';

export function servedByServerEdition(): boolean {
  return (
    typeof document !== 'undefined' && !!(require('$:/plugins/tiddlyagent/agent/runner/startup/push-channel.js') as typeof PushChannel).serverEditionMark()
  );
}
