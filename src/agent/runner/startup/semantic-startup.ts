/*\
Browser-only wikis: the semantic indexer runs in this page (IndexedDB) once it is switched on
(Settings → TiddlyAgent → Semantic search); until then the library is not loaded for it. A
page served by the server edition leaves it to the server. Of several tabs of the same wiki
only one embeds (a Web Lock per address).
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import { CONFIG, configValue } from '../../store/config';
import { startInOneTab } from './background-start';

export const name = 'tiddlyagent-semantic';
export const platforms = ['browser'];
export const after = ['tiddlyagent-runner'];
export const synchronous = true;

const ENABLED = CONFIG.semanticEnabled;

export function startup(): void {
  const enabled = () => configValue($tw.wiki, ENABLED) === 'yes';
  startInOneTab(
    'tiddlyagent-semantic',
    enabled,
    (changes) => ENABLED in changes && enabled(),
    () => {
      const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
      lib.startSemanticIndexer(lib.createIndexedDbVectorStore());
    },
  );
}
