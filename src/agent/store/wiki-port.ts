/*\
WikiPort: the narrow view of a wiki that the store and the tools work on. The runner
implements it over a real TiddlyWiki ($tw.wiki); nothing below the runner sees $tw.
\*/

/** Tiddler fields as TiddlyWiki stores them in files: every value a string. */
export type TiddlerFields = Record<string, string>;

export interface WikiPort {
  /** All fields of a tiddler (shadow tiddlers included) as strings, or undefined. */
  getFields(title: string): TiddlerFields | undefined;
  /** Create or replace a tiddler with exactly these fields. */
  putTiddler(fields: TiddlerFields): void;
  deleteTiddler(title: string): void;
  /** Run a TiddlyWiki filter expression; `variables` are visible to it as <name>. */
  filter(expression: string, variables?: Record<string, string>): string[];
  /** Render a tiddler's wikitext to plain text (transclusions, procedures, globals work). */
  renderPlainText(title: string, variables?: Record<string, string>): string;
  /**
   * Run action wikitext (global procedures visible), `variables` set as variables. Returns
   * every tiddler the actions wrote or deleted, with its fields before the first change
   * (null: it did not exist), so the caller can check, journal or undo the writes.
   */
  runActions(actions: string, variables?: Record<string, string>): Record<string, TiddlerFields | null>;
  /** Render a tiddler to HTML, as it would show in the story river. */
  renderHtml(title: string): string;
  /** Rename a tiddler; with `relink`, links and tags pointing to it follow where TiddlyWiki can. */
  renameTiddler(from: string, to: string, relink: boolean): void;
  /** Full-text search as TiddlyWiki's own [search[]] does; `titlesOnly` searches titles only. */
  search(query: string, options: { titlesOnly?: boolean; limit?: number; exclude?: (title: string) => boolean }): string[];
  /** The current time, in TiddlyWiki's date field format (YYYYMMDDHHMMSSmmm, UTC). */
  now(): string;
}

/** TiddlyWiki's string-list format: `a [[b c]] d`. */
export function parseTitleList(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  const re = /(?:^|\s)(?:\[\[(.*?)\]\]|(\S+))(?=\s|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(value))) out.push((m[1] ?? m[2]) as string);
  return out;
}

export function stringifyTitleList(titles: string[]): string {
  return titles.map((t) => (/\s|^$/.test(t) ? `[[${t}]]` : t)).join(' ');
}
