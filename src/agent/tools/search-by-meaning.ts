/*\
wiki-search's semantic and hybrid modes. Semantic: the tiddlers closest in meaning to the
query (the runner's vector index, search/semantic.ts), each with its best chunk as the
snippet. Hybrid: the text ranking and the vector ranking fused by reciprocal rank
(search/rank-fusion.ts). Without an embedding model, or while the index is not ready, the
answer is a note and wiki-search answers from the text search instead. Results pass the
agent's view like every other read: a tiddler that is hidden (or gone) since it was embedded
is left out.
\*/
import { chunkText } from '../search/chunks';
import { fuseRankings } from '../search/rank-fusion';
import type { ToolContext } from './tool';

export type SearchMode = 'text' | 'semantic' | 'hybrid';
export const SEARCH_MODES = ['text', 'semantic', 'hybrid'] as const;

/** Titles ranked by the text search, best first (wiki-search passes its own; the ranked index plugs in here). */
export type TextRanking = (query: string, limit: number) => string[];

export interface MeaningRanking {
  /** Best first, at most `pool`. */
  titles: string[];
  /** The best chunk of each title found by the vector index (its snippet). */
  chunks: Map<string, number>;
}

/** At most this many results are ranked by meaning (offset + limit). */
export const MEANING_POOL = 100;

export async function rankByMeaning(
  mode: 'semantic' | 'hybrid',
  query: string,
  pool: number,
  context: Pick<ToolContext, 'wiki' | 'semantic' | 'signal'>,
  rankText: TextRanking,
  within?: ReadonlySet<string>,
): Promise<MeaningRanking | { note: string }> {
  const { wiki, semantic } = context;
  if (!query) return { note: `The ${mode} mode needs a query; this is a text search.` };
  if (!semantic)
    return { note: `No embedding model is set, so there is no ${mode} search; these are text search results. (Settings → TiddlyAgent → Semantic search.)` };
  const visible = (title: string) => (!within || within.has(title)) && wiki.getFields(title) !== undefined;
  const answer = await semantic.search(query, pool, context.signal, visible);
  if ('unavailable' in answer) return { note: `${answer.unavailable} These are text search results instead of ${mode} ones.` };
  const chunks = new Map(answer.hits.map((h) => [h.title, h.chunk]));
  const byMeaning = answer.hits.map((h) => h.title);
  if (mode === 'semantic') return { titles: byMeaning, chunks };
  const byText = rankText(query, pool).filter(visible);
  return { titles: fuseRankings([byText, byMeaning]).slice(0, pool), chunks };
}

/** The text of chunk `n` of a tiddler's text (search/chunks.ts), or the text when it has no such chunk. */
export function chunkOf(text: string, n: number | undefined): string {
  return (n !== undefined ? chunkText(text)[n] : undefined) ?? text;
}
