/*\
WikiPort: the narrow view of a wiki that the store and the tools work on. The runner
implements it over a real TiddlyWiki ($tw.wiki); nothing below the runner sees $tw.
\*/

/** Tiddler fields as TiddlyWiki stores them in files: every value a string. */
export type TiddlerFields = Record<string, string>;

export interface WikiPort {
  /** All fields of a tiddler (shadow tiddlers included) as strings, or undefined. */
  getFields(title: string): TiddlerFields | undefined;
  /**
   * The fields of a shadow tiddler as its plugin ships it, whether or not a real tiddler
   * overrides it; undefined when the title is no shadow.
   */
  shadowFields(title: string): TiddlerFields | undefined;
  /** Create or replace a tiddler with exactly these fields. */
  putTiddler(fields: TiddlerFields): void;
  deleteTiddler(title: string): void;
  /** Run a TiddlyWiki filter expression; `variables` are visible to it as <name>. */
  filter(expression: string, variables?: Record<string, string>): string[];
  /** Render a tiddler's wikitext to plain text (transclusions, procedures, globals work). */
  renderPlainText(title: string, variables?: Record<string, string>): string;
  /**
   * Run action wikitext (global procedures visible). `variables` reach the actions as data:
   * `<<name>>` shows a value as text, it is never parsed as wikitext. The actions run under
   * a parent widget that refuses every message (tm-http-request, tm-navigate, …); the types
   * of the refused messages are returned.
   */
  runActions(actions: string, variables?: Record<string, string>): { refusedMessages: string[] };
  /** Render a tiddler to HTML, as it would show in the story river. */
  renderHtml(title: string): string;
  /** Rename a tiddler; with `relink`, tags and lists pointing to it follow (TiddlyWiki's relinkers). */
  renameTiddler(from: string, to: string, relink: boolean): void;
  /** Full-text search as TiddlyWiki's own [search[]] does; `titlesOnly` searches titles only. */
  search(query: string, options: { titlesOnly?: boolean; limit?: number; exclude?: (title: string) => boolean }): string[];
  /**
   * Ranked full-text search from the wiki's text index (search/text-index.ts says how words
   * match and rank). The index holds only what the agent may see, so no hidden tiddler is ever
   * a hit, whichever port asks. The first call starts building it: until it is complete (at
   * once on a small wiki) the answer is `ready: false` with the progress. A sandbox answers
   * from the index of the wiki under it, without the tiddlers it deleted.
   */
  rankedSearch(query: string, options?: RankedSearchOptions): RankedSearch;
  /**
   * The text of a document tiddler (a PDF: tools/documents.ts) by page, extracted once and
   * kept (runner/host/pdf-text.ts), or why it cannot be read. Undefined for a tiddler that is
   * no document or that this port cannot see. Absent where documents cannot be read.
   */
  documentText?(title: string): Promise<DocumentText | undefined>;
  /** The current time, in TiddlyWiki's date field format (YYYYMMDDHHMMSSmmm, UTC). */
  now(): string;
  /**
   * The same wiki as the agent sees it: tiddlers hidden from the agent (tools/visibility.ts)
   * do not exist for any lookup, iteration, index, cache, filter, search or render. Read-only.
   */
  agentView(): WikiPort;
  /**
   * A scratch layer over this port: reads see this port plus the layer, writes land in the
   * layer only. `changes()` lists what the layer changed (fields, or null for a deletion).
   */
  sandbox(): SandboxPort;
}

/** A document's text by page, or why there is none. */
export type DocumentText = { pages: string[] } | { problem: string };

export interface RankedSearchOptions {
  /** Match titles only. */
  titlesOnly?: boolean;
  /** Also system tiddlers (`$:/…`); default: not. */
  includeSystem?: boolean;
  /** Only these titles (a filter's results): the query is ranked within them. */
  within?: ReadonlySet<string>;
}

export interface RankedHit {
  title: string;
  score: number;
  /** The indexed words that matched (lower-cased), for snippets. */
  words: string[];
}

/** Every hit best first, or how far the index's first build is. */
export type RankedSearch = { ready: true; hits: RankedHit[] } | { ready: false; indexed: number; total: number };

export interface SandboxPort extends WikiPort {
  changes(): Record<string, TiddlerFields | null>;
}

/** TiddlyWiki's string-list format: `a [[b c]] d`. */
export function parseTitleList(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  const re = /(?:^|\s)(?:\[\[(.*?)\]\]|(\S+))(?=\s|$)/g;
  for (const m of value.matchAll(re)) out.push((m[1] ?? m[2]) as string);
  return out;
}

export function stringifyTitleList(titles: string[]): string {
  return titles.map((t) => (/\s|^$/.test(t) ? `[[${t}]]` : t)).join(' ');
}
