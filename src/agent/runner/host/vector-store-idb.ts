/*\
The browser's VectorStore: the semantic index as one blob in IndexedDB (database
"tiddlyagent-vectors", keyed by the wiki's address), outside the tiddler store, so it is
never in the saved HTML. A browser without IndexedDB (or a private window that refuses it)
keeps the index in memory for the page's life.
\*/
import type { VectorStore } from './semantic-indexer';

const DB = 'tiddlyagent-vectors';
const STORE = 'indexes';

export function createIndexedDbVectorStore(key = `${location.origin}${location.pathname}`): VectorStore {
  let memory: Uint8Array | undefined;
  const open = (): Promise<IDBDatabase> =>
    new Promise((resolve, reject) => {
      const request = indexedDB.open(DB, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB refused to open'));
    });
  const run = async <T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const db = await open();
    try {
      return await new Promise<T>((resolve, reject) => {
        const request = act(db.transaction(STORE, mode).objectStore(STORE));
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
      });
    } finally {
      db.close();
    }
  };
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
