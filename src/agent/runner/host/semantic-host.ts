/*\
The semantic indexer of this process (runner/host/semantic-indexer.ts), over $tw.wiki: started by
the browser's startup module (a browser-only wiki, IndexedDB) or by the server edition (a
file in agent-state/), fed by TiddlyWiki's change events. `semanticPort` is what the runner
lends wiki-search; until an indexer runs here it answers that there is none.
\*/
import type { SemanticPort } from '../../search/semantic';
import { getSecret, keyHint, processFetch } from '../default-runner';
import { SemanticIndexer, type VectorStore } from './semantic-indexer';
import { createTiddlyWikiPort } from './tiddlywiki-port';

let indexer: SemanticIndexer | undefined;

export const semanticPort: SemanticPort = {
  search: (query, limit, signal, accept) =>
    indexer
      ? indexer.search(query, limit, signal, accept)
      : Promise.resolve({ unavailable: 'Semantic search does not run where this turn runs (in the server edition it runs on the server).' }),
};

export function getSemanticIndexer(): SemanticIndexer | undefined {
  return indexer;
}

/** Start this process's indexer over $tw.wiki (once); it reads its settings and follows every change. */
export function startSemanticIndexer(store: VectorStore, options: { onStatus?(): void } = {}): SemanticIndexer {
  if (indexer) return indexer;
  const started = new SemanticIndexer({
    wiki: createTiddlyWikiPort($tw.wiki),
    fetch: processFetch(),
    getApiKey: getSecret,
    keyHint: keyHint(),
    store,
    onStatus: options.onStatus,
  });
  indexer = started;
  $tw.wiki.addEventListener('change', (changes: Record<string, unknown>) => started.changed(Object.keys(changes)));
  started.configure();
  return started;
}
