/*\
One object store of an IndexedDB database, as the host's browser stores use it (the semantic
index's vectors, PDF text): each request opens the database (making the store on first use),
runs in its own transaction and closes the database after it, so no connection is held open
across a page's life.
\*/

export type IndexedDbRun = <T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>) => Promise<T>;

export function indexedDbStore(database: string, store: string): IndexedDbRun {
  const open = (): Promise<IDBDatabase> =>
    new Promise((resolve, reject) => {
      const request = indexedDB.open(database, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(store);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB refused to open'));
    });
  return async (mode, act) => {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const request = act(db.transaction(store, mode).objectStore(store));
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
      });
    } finally {
      db.close();
    }
  };
}
