/*\
The text index: a ranked full-text index of tiddlers' titles, tags and text (an inverted index
scored with BM25+). It is told what to hold (put, remove) and answers queries; what it holds and
when is the keeper's business (search/index-keeper.ts), how it is kept on disk is
search/saved-text-index.ts's.

How a query matches: it is split into words as the text is (at line ends, spaces and
punctuation) and lower-cased; every word must occur in the title, tags or text, as a whole word
or, for words of three characters or more, as the start of a longer one: "garden" finds
"gardens" and "gardening", not "kindergarden". TiddlyWiki's [search[]] finds any substring.
How it ranks: BM25+ in each field (so six occurrences weigh more than one, and a short
tiddler's one more than a long one's), a title match three times a text match, a tag twice; a
longer word a query word starts weighs less than the word itself.

Why not a library: MiniSearch's radix tree took 47 s and 1 GB for 100,000 tiddlers and its
saved form 40 s to load. Here a word is a number, a posting one small integer (document and
count packed), and the saved form is typed arrays read as they lie.
\*/
import type { RankedHit, RankedSearchOptions } from '../store/wiki-port';
import { eachWord, WordTable } from './words';

/** What the index holds of a tiddler: binary tiddlers come with an empty text. */
export interface IndexedTiddler {
  title: string;
  tags: string[];
  text: string;
}

/** Title, tags, text: the fields a posting list is kept for, in this order. */
export const FIELDS = 3;
const TITLE = 0;
const BOOST = [3, 2, 1];
/** Shorter words match whole only: a prefix of one or two letters would match a good part of the wiki. */
const MIN_PREFIX = 3;
/** MiniSearch's weights, which ranked well here: a word the query word only starts. */
const PREFIX_WEIGHT = 0.375;
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
/** A posting is document × TF_SCALE + count (counts above TF_MAX are TF_MAX): one small integer. */
export const TF_SCALE = 512;
const TF_MAX = TF_SCALE - 1;
// Under Node, TiddlyWiki runs a module in a vm context where every global lookup (Math too) is
// slow: once per character of 100 MB, it cost more than the indexing itself.
const { floor, imul, log, max, min } = Math;
/** Removed documents are dropped from the posting lists once they are this share of the live ones. */
const COMPACT_SHARE = 0.2;
const COMPACT_MIN = 1000;

/** Posting lists as typed arrays: per field, `data[offsets[w]..offsets[w+1])` is word w's list. */
export interface PackedPostings {
  offsets: Uint32Array[];
  data: Uint32Array[];
}

/** Everything the index holds, with documents numbered densely and no removed ones (what is saved). */
export interface TextIndexSnapshot {
  titles: string[];
  prints: string[];
  words: string[];
  /** Per field, each document's number of words. */
  lengths: Uint32Array[];
  postings: PackedPostings;
}

/** FNV-1a of what the index holds of a tiddler, with its length: equal when the title, tags and text are. */
export function fingerprint(entry: IndexedTiddler): string {
  let hash = 0x811c9dc5;
  const mix = (s: string) => {
    for (let i = 0; i < s.length; i++) hash = imul(hash ^ s.charCodeAt(i), 16777619);
    hash = imul(hash ^ 0xffff, 16777619);
  };
  mix(entry.title);
  for (const tag of entry.tags) mix(tag);
  mix(entry.text);
  return `${(hash >>> 0).toString(36)}.${(entry.title.length + entry.text.length).toString(36)}`;
}

export class TextIndex {
  /** Document number → title; undefined once removed. */
  private titles: (string | undefined)[] = [];
  /** Document number → the fingerprint of what it holds. */
  private prints: string[] = [];
  private readonly docs = new Map<string, number>();
  /** Per field, document number → its number of words; and the sum over live documents. */
  private lengths: number[][] = [[], [], []];
  private readonly totals = [0, 0, 0];
  private removed = 0;
  private table = new WordTable();
  /** Posting lists loaded or compacted (typed), then those added since (per field, per word). */
  private packed: PackedPostings | undefined;
  private added: (number[] | undefined)[][] = [[], [], []];
  /** All words sorted (for prefixes), but for those numbered from `sortedUpTo` on, added since. */
  private sorted: string[] = [];
  private sortedUpTo = 0;
  private last: { key: string; hits: RankedHit[] } | undefined;
  /** Scratch space for one document's word counts. */
  private counts = new Int32Array(1024);

  static fromSnapshot(s: TextIndexSnapshot): TextIndex {
    const index = new TextIndex();
    index.titles = s.titles;
    index.prints = s.prints;
    s.titles.forEach((title, doc) => {
      index.docs.set(title, doc);
    });
    index.lengths = s.lengths.map((l) => Array.from(l));
    for (let f = 0; f < FIELDS; f++) index.totals[f] = index.lengths[f]!.reduce((a, b) => a + b, 0);
    index.table = new WordTable(s.words);
    // Saved words are sorted (compact).
    index.sorted = s.words.slice();
    index.sortedUpTo = s.words.length;
    index.packed = s.postings;
    return index;
  }

  get size(): number {
    return this.docs.size;
  }

  has(title: string): boolean {
    return this.docs.has(title);
  }

  titleList(): string[] {
    return [...this.docs.keys()];
  }

  /** The fingerprint of what the index holds of a title (undefined when it holds nothing). */
  fingerprintOf(title: string): string | undefined {
    const doc = this.docs.get(title);
    return doc === undefined ? undefined : this.prints[doc];
  }

  /** Add a tiddler, or replace what the index holds for its title. */
  put(tiddler: IndexedTiddler, print = fingerprint(tiddler)): void {
    this.remove(tiddler.title);
    const doc = this.titles.length;
    this.titles.push(tiddler.title);
    this.prints.push(print);
    this.docs.set(tiddler.title, doc);
    this.addField(TITLE, doc, tiddler.title);
    this.addField(1, doc, tiddler.tags.join(' '));
    this.addField(2, doc, tiddler.text);
  }

  remove(title: string): void {
    const doc = this.docs.get(title);
    if (doc === undefined) return;
    this.last = undefined;
    this.docs.delete(title);
    this.titles[doc] = undefined;
    for (let f = 0; f < FIELDS; f++) this.totals[f]! -= this.lengths[f]![doc]!;
    if (++this.removed > max(COMPACT_MIN, this.docs.size * COMPACT_SHARE)) this.compact();
  }

  private addField(field: number, doc: number, text: string): void {
    this.last = undefined;
    const seen: number[] = [];
    const length = this.table.eachWordId(text, (id) => {
      if (id >= this.counts.length) {
        const grown = new Int32Array(max(this.counts.length * 2, id + 1));
        grown.set(this.counts);
        this.counts = grown;
      }
      const counts = this.counts;
      if (counts[id]!++ === 0) seen.push(id);
    });
    const lists = this.added[field]!;
    for (const id of seen) {
      const posting = doc * TF_SCALE + min(TF_MAX, this.counts[id]!);
      const list = lists[id];
      if (list) list.push(posting);
      else lists[id] = [posting];
      this.counts[id] = 0;
    }
    this.lengths[field]![doc] = length;
    this.totals[field]! += length;
  }

  /** Calls `each` for every posting of a word in a field, removed documents included. */
  private postings(field: number, word: number, each: (posting: number) => void): void {
    if (this.packed && word < this.packed.offsets[field]!.length - 1) {
      const list = this.packed.data[field]!;
      const end = this.packed.offsets[field]![word + 1]!;
      for (let i = this.packed.offsets[field]![word]!; i < end; i++) each(list[i]!);
    }
    for (const posting of this.added[field]![word] ?? []) each(posting);
  }

  /** How many postings a field holds, removed documents included. */
  private postingCount(field: number): number {
    let count = this.packed?.data[field]?.length ?? 0;
    for (const list of this.added[field]!) count += list?.length ?? 0;
    return count;
  }

  /** Every word the index holds, sorted: words added since the last look are put in place. */
  private sortedWords(): string[] {
    const words = this.table.words;
    const added = words.length - this.sortedUpTo;
    if (added > 1000 || added * 8 > this.sorted.length) this.sorted = words.slice().sort();
    else for (let id = this.sortedUpTo; id < words.length; id++) this.sorted.splice(lowerBound(this.sorted, words[id]!), 0, words[id]!);
    this.sortedUpTo = words.length;
    return this.sorted;
  }

  /** The words a query word matches, with their weights: itself, and (3+ letters) longer ones it starts. */
  private matches(query: string): [number, number][] {
    const found: [number, number][] = [];
    const exact = this.table.idOf(query);
    if (exact !== undefined) found.push([exact, 1]);
    if (query.length < MIN_PREFIX) return found;
    const sorted = this.sortedWords();
    for (let i = lowerBound(sorted, query); i < sorted.length && sorted[i]!.startsWith(query); i++) {
      const word = sorted[i]!;
      if (word.length === query.length) continue;
      found.push([this.table.idOf(word)!, (PREFIX_WEIGHT * query.length) / (query.length + 0.3 * (word.length - query.length))]);
    }
    return found;
  }

  /**
   * Every tiddler the query matches, best first (ties in title order, so results are stable).
   * The last answer without `within` is kept until the index changes: the search results tab
   * asks again at every refresh of the page, the tool again for each page of results.
   */
  search(query: string, options: RankedSearchOptions = {}): RankedHit[] {
    const { within, includeSystem, titlesOnly } = options;
    const key = within ? undefined : `${titlesOnly ? 't' : '-'}${includeSystem ? 's' : '-'}${query}`;
    if (key !== undefined && this.last?.key === key) return this.last.hits;
    const queryWords = new Set<string>();
    eachWord(query, (word) => queryWords.add(word));
    let found: Map<number, { score: number; words: Set<string> }> | undefined;
    for (const queryWord of queryWords) {
      const hits = this.scoreWord(queryWord, titlesOnly ? 1 : FIELDS);
      if (found)
        for (const [doc, hit] of found) {
          const more = hits.get(doc);
          if (!more) found.delete(doc);
          else {
            hit.score += more.score;
            for (const word of more.words) hit.words.add(word);
          }
        }
      else found = hits;
      if (found.size === 0) break;
    }
    const result: RankedHit[] = [];
    for (const [doc, hit] of found ?? []) {
      const title = this.titles[doc]!;
      if ((!includeSystem && title.startsWith('$:/')) || (within && !within.has(title))) continue;
      result.push({ title, score: hit.score, words: [...hit.words] });
    }
    result.sort((a, b) => b.score - a.score || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
    if (key !== undefined) this.last = { key, hits: result };
    return result;
  }

  /** BM25+ of one query word (and the words it starts) in the first `fields` fields, per document. */
  private scoreWord(queryWord: string, fields: number): Map<number, { score: number; words: Set<string> }> {
    const hits = new Map<number, { score: number; words: Set<string> }>();
    const total = this.docs.size;
    const { k, b, d } = BM25;
    for (const [word, weight] of this.matches(queryWord)) {
      for (let f = 0; f < fields; f++) {
        const lengths = this.lengths[f]!;
        const average = this.totals[f]! / max(1, total) || 1;
        // The live postings: how many there are is the word's document frequency.
        const live: number[] = [];
        this.postings(f, word, (posting) => {
          if (this.titles[floor(posting / TF_SCALE)] !== undefined) live.push(posting);
        });
        if (live.length === 0) continue;
        const idf = log(1 + (total - live.length + 0.5) / (live.length + 0.5));
        const factor = weight * BOOST[f]! * idf;
        for (const posting of live) {
          const doc = floor(posting / TF_SCALE);
          const tf = posting % TF_SCALE;
          const score = factor * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * lengths[doc]!) / average)));
          const hit = hits.get(doc);
          if (hit) {
            hit.score += score;
            hit.words.add(this.table.words[word]!);
          } else hits.set(doc, { score, words: new Set([this.table.words[word]!]) });
        }
      }
    }
    return hits;
  }

  /** Everything held, removed documents dropped and the rest numbered densely (for saving). */
  snapshot(): TextIndexSnapshot {
    this.compact();
    return {
      titles: this.titles as string[],
      prints: this.prints,
      words: this.table.words,
      lengths: this.lengths.map((l) => Uint32Array.from(l)),
      postings: this.packed!,
    };
  }

  /**
   * Drop removed documents and unused words, number documents densely and words in sorted
   * order (so a loaded index needs no sort), and pack the posting lists.
   */
  private compact(): void {
    const renumber = new Int32Array(this.titles.length).fill(-1);
    const titles: string[] = [];
    const prints: string[] = [];
    this.titles.forEach((title, doc) => {
      if (title === undefined) return;
      renumber[doc] = titles.length;
      titles.push(title);
      prints.push(this.prints[doc]!);
    });
    const all = this.table.words;
    const order = [...all.keys()].sort((a, b) => (all[a]! < all[b]! ? -1 : 1));
    const words: string[] = [];
    // Written straight into typed arrays of the most they can hold (a JS array per list cost seconds at 100,000 tiddlers).
    const kept = Array.from({ length: FIELDS }, (_, f) => new Uint32Array(this.postingCount(f)));
    const ends = [0, 0, 0];
    const starts: number[][] = [[], [], []];
    for (const w of order) {
      const before = ends.slice();
      for (let f = 0; f < FIELDS; f++) {
        const out = kept[f]!;
        let end = ends[f]!;
        this.postings(f, w, (posting) => {
          const doc = renumber[floor(posting / TF_SCALE)]!;
          if (doc >= 0) out[end++] = doc * TF_SCALE + (posting % TF_SCALE);
        });
        ends[f] = end;
      }
      if (ends.every((end, f) => end === before[f])) continue;
      words.push(all[w]!);
      for (let f = 0; f < FIELDS; f++) starts[f]!.push(before[f]!);
    }
    for (let f = 0; f < FIELDS; f++) {
      starts[f]!.push(ends[f]!);
      this.lengths[f] = titles.map((title) => this.lengths[f]![this.docs.get(title)!]!);
    }
    this.titles = titles;
    this.prints = prints;
    titles.forEach((title, doc) => {
      this.docs.set(title, doc);
    });
    this.table = new WordTable(words);
    this.sorted = words.slice();
    this.sortedUpTo = words.length;
    this.packed = { offsets: starts.map((list) => Uint32Array.from(list)), data: kept.map((list, f) => list.slice(0, ends[f])) };
    this.added = [[], [], []];
    this.removed = 0;
    this.last = undefined;
  }
}

/** The first position in sorted `list` whose item is not below `item`. */
function lowerBound(list: string[], item: string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! < item) low = mid + 1;
    else high = mid;
  }
  return low;
}
