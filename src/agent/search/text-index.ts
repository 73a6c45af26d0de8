/*\
The text index: a ranked full-text index of tiddlers' titles, tags and text, on MiniSearch
(BM25+). It is told what to hold (put, remove) and answers queries; what it holds and when is
the keeper's business (search/index-keeper.ts).

How a query matches: it is split into words as the text is (at spaces and punctuation) and
lower-cased; every word must occur in the title, tags or text, as a whole word or, for words of
three characters or more, as the start of a longer one: "garden" finds "gardens" and
"gardening", not "kindergarden". TiddlyWiki's [search[]] finds any substring instead.
How it ranks: BM25+ in each field (so six occurrences weigh more than one, and a short
tiddler's one more than a long one's), a title match three times a text match, a tag twice.
\*/
import MiniSearch from 'minisearch';
import type { RankedHit, RankedSearchOptions } from '../store/wiki-port';

/** What the index holds of a tiddler: binary tiddlers come with an empty text. */
export interface IndexedTiddler {
  title: string;
  tags: string[];
  text: string;
}

const FIELDS = ['title', 'tags', 'text'] as const;
const OPTIONS = {
  idField: 'title',
  fields: [...FIELDS],
  extractField: (doc: IndexedTiddler, field: string) => (field === 'tags' ? doc.tags.join(' ') : (doc[field as keyof IndexedTiddler] as string)),
};
const BOOST = { title: 3, tags: 2, text: 1 };
/** Shorter words match whole only: a prefix of one or two letters would match a good part of the wiki. */
const MIN_PREFIX = 3;

/** A saved index of up to this many words loads in one go (some 100 ms). */
const LOAD_AT_ONCE_TERMS = 50_000;

/** What a saved index holds: MiniSearch's own plain form (JSON as it is). */
export type SavedIndex = ReturnType<MiniSearch['toJSON']>;

export class TextIndex {
  constructor(private readonly mini = new MiniSearch<IndexedTiddler>(OPTIONS)) {}

  /**
   * An index as `save` left it (throws on a form it cannot read): a small one at once, so the
   * first search after a restart is ranked; a big one yielding to the event loop as it loads.
   */
  static async load(saved: SavedIndex): Promise<TextIndex> {
    if (saved.index.length <= LOAD_AT_ONCE_TERMS) return new TextIndex(MiniSearch.loadJS<IndexedTiddler>(saved, OPTIONS));
    return new TextIndex(await MiniSearch.loadJSAsync<IndexedTiddler>(saved, OPTIONS));
  }

  save(): SavedIndex {
    return this.mini.toJSON();
  }

  private last: { key: string; hits: RankedHit[] } | undefined;

  get size(): number {
    return this.mini.documentCount;
  }

  has(title: string): boolean {
    return this.mini.has(title);
  }

  /** Add a tiddler, or replace what the index holds for its title. */
  put(tiddler: IndexedTiddler): void {
    this.last = undefined;
    if (this.mini.has(tiddler.title)) this.mini.replace(tiddler);
    else this.mini.add(tiddler);
  }

  remove(title: string): void {
    this.last = undefined;
    if (this.mini.has(title)) this.mini.discard(title);
  }

  /**
   * Every tiddler the query matches, best first (ties in title order, so results are stable).
   * The last answer without `within` is kept until the index changes: the search results tab
   * asks again at every refresh of the page, the tool again for each page of results.
   */
  search(query: string, options: RankedSearchOptions = {}): RankedHit[] {
    const { within, includeSystem } = options;
    const key = within ? undefined : `${options.titlesOnly ? 't' : '-'}${includeSystem ? 's' : '-'}${query}`;
    if (key !== undefined && this.last?.key === key) return this.last.hits;
    const results = this.mini.search(query, {
      fields: options.titlesOnly ? ['title'] : [...FIELDS],
      boost: BOOST,
      combineWith: 'AND',
      prefix: (term) => term.length >= MIN_PREFIX,
      filter: within || !includeSystem ? (r) => (includeSystem || !(r.id as string).startsWith('$:/')) && (!within || within.has(r.id as string)) : undefined,
    });
    // MiniSearch sorts by score; only runs of equal scores need ordering by title.
    const hits = results.map((r) => ({ title: r.id as string, score: r.score, words: r.terms }));
    for (let i = 0; i < hits.length; ) {
      let j = i + 1;
      while (j < hits.length && hits[j]!.score === hits[i]!.score) j++;
      if (j - i > 1) {
        const run = hits.slice(i, j).sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
        for (let k = 0; k < run.length; k++) hits[i + k] = run[k]!;
      }
      i = j;
    }
    if (key !== undefined) this.last = { key, hits };
    return hits;
  }
}
