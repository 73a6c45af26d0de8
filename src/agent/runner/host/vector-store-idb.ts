/*\
The browser's VectorStore: the semantic index as one blob in IndexedDB (database
"tiddlyagent-vectors", keyed by the wiki's address), outside the tiddler store, so it is
never in the saved HTML. A browser without IndexedDB (or a private window that refuses it)
keeps the index in memory for the page's life.
\*/
import type { VectorStore } from './semantic-indexer';
import { indexedDbStore } from './indexed-db';

const DB = 'tiddlyagent-vectors';
const STORE = 'indexes';

export function createIndexedDbVectorStore(key = `${location.origin}${location.pathname}`): VectorStore {
  let memory: Uint8Array | undefined;
  const run = indexedDbStore(DB, STORE);
  const available = typeof indexedDB !== 'undefined';
  return {
    where: available ? 'IndexedDB in this browser' : 'memory (this browser has no IndexedDB)',
    async load() {
      if (!available) return memory;
      const value = await run<unknown>('readonly', (s) => s.get(key));
      return value instanceof ArrayBuffer ? new Uint8Array(value) : value instanceof Uint8Array ? value : undefined;
    },
    async save(blob) {
      if (!available) memory = new Uint8Array(blob);
      else await run('readwrite', (s) => s.put(blob, key));
    },
  };
}
