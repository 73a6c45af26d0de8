/*\
Browser-only wikis: the semantic indexer runs in this page (IndexedDB) once it is switched on
(Settings → TiddlyAgent → Semantic search); until then the library is not loaded for it. A
page served by the server edition leaves it to the server. Of several tabs of the same wiki
only one embeds (a Web Lock per address).
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import { CONFIG, configValue } from '../store/config';
import { servedByServerEdition } from './server-edition';

export const name = 'tiddlyagent-semantic';
export const platforms = ['browser'];
export const after = ['tiddlyagent-runner'];
export const synchronous = true;

const ENABLED = CONFIG.semanticEnabled;

interface LockManager {
  request(name: string, callback: () => Promise<void>): Promise<void>;
}

export function startup(): void {
  if (servedByServerEdition()) return;
  const start = () => {
    $tw.wiki.removeEventListener('change', onChange);
    const run = () => {
      const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
      lib.startSemanticIndexer(lib.createIndexedDbVectorStore());
    };
    const locks = (navigator as { locks?: LockManager }).locks;
    if (!locks) return run();
    void locks.request(`tiddlyagent-semantic ${location.origin}${location.pathname}`, () => new Promise<void>(() => run()));
  };
  const onChange = (changes: unknown) => {
    if (ENABLED in (changes as Record<string, unknown>) && configValue($tw.wiki, ENABLED) === 'yes') start();
  };
  if (configValue($tw.wiki, ENABLED) === 'yes') start();
  else $tw.wiki.addEventListener('change', onChange);
}
