/*\
What the tools see of semantic search: a port the runner lends a turn (ToolContext.semantic).
It embeds the query with the configured embedding model and scans the vector index; when no
embedding model is set, or the index is still being built or stopped on an error, it says
so instead, and wiki-search answers from the text index with that note.
\*/
import type { VectorHit } from './vector-index';

export type SemanticAnswer = { hits: VectorHit[] } | { unavailable: string };

export interface SemanticPort {
  /** The `limit` tiddlers closest in meaning to `query` (best chunk each), among those `accept` lets through. */
  search(query: string, limit: number, signal: AbortSignal, accept?: (title: string) => boolean): Promise<SemanticAnswer>;
}
