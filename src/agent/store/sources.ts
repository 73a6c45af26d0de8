/*\
A reply's sources (issue 27, DESIGN 4 "Reply sources"): the tiddlers its turn's tools read
and those the reply cites by title, each with the `modified` and the fingerprint
(fingerprint.ts) of the version the agent saw. A reply carries them in `agent-sources`, JSON
`[{"title", "modified", "fingerprint", "cited"}]`. A cited title the turn never read has no
fingerprint: the chat shows it as unverified. A cited PDF also records the pages the reply
names at its link (`[[Report.pdf]] (page 7)`, `, p. 7`, `pp. 7-8`, `[page 7]`, `page 7 of [[Report.pdf]]`): `pages`,
and `unverifiedPages` for those the PDF does not have (or that could not be checked). Pure code: the engine records sources, the
chat shows them and tells when they changed, the export lists them.
\*/

/** Message field: the reply's sources, JSON (see the header). */
export const SOURCES_FIELD = 'agent-sources';

/** At most this many sources are recorded on one reply (a search can show hundreds of tiddlers). */
export const MAX_SOURCES = 60;

export interface Source {
  title: string;
  /** The `modified` of the version read ('' when unknown or never read). */
  modified: string;
  /** The fingerprint of the version read; '' for a cited title the turn never read (unverified). */
  fingerprint: string;
  cited: boolean;
  /** A cited PDF: the pages the reply names that the PDF has. */
  pages?: number[];
  /** A cited PDF: pages the reply names that the PDF does not have (shown as unverified). */
  unverifiedPages?: number[];
}

/** The sources a field records; a field that does not parse records none. */
export function parseSources(value: unknown): Source[] {
  if (typeof value !== 'string' || !value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null && typeof (s as { title?: unknown }).title === 'string')
      .map((s) => ({
        title: String(s.title),
        modified: typeof s.modified === 'string' ? s.modified : '',
        fingerprint: typeof s.fingerprint === 'string' ? s.fingerprint : '',
        cited: s.cited === true,
        ...pageLists(s),
      }));
  } catch {
    return [];
  }
}

/** The field's value, or undefined when there is nothing to record. */
export function stringifySources(sources: readonly Source[] | undefined): string | undefined {
  return sources?.length ? JSON.stringify(sources.slice(0, MAX_SOURCES)) : undefined;
}

/** The titles a reply cites: its `[[Title]]` and `[[label|Title]]` links, in order, each once. */
export function citedTitles(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/\[\[([^\]\n]+?)\]\]/g)) {
    const title = linkTarget(match[1]!);
    if (title) out.add(title);
  }
  return [...out];
}

/** The tiddler a `[[…]]` link goes to: as TiddlyWiki reads it, everything after the first `|`. */
function linkTarget(inner: string): string {
  const bar = inner.indexOf('|');
  return (bar >= 0 ? inner.slice(bar + 1) : inner).trim();
}

/** At most this many pages are recorded for one source (a range counts each page). */
export const MAX_CITED_PAGES = 20;

/**
 * A page phrase: `page 7`, `p. 7`, `pp. 7-8`, `pages 7 to 9` (groups 1 and 2; a word of its own,
 * so "Step 3" or "top 10" is none), or `第 7 页` (group 3). A number is taken whole or not at all.
 */
const PAGE = String.raw`(?:(?<![\p{L}\p{N}])(?:pages?|pp?\.?)\s{0,3}(\d{1,5})(?!\d)(?:\s{0,3}(?:-|–|—|to)\s{0,3}(\d{1,5})(?!\d))?|第\s{0,3}(\d{1,5})\s{0,3}页)`;
/** Right after a link: `(page 7)`, `, p. 7`, `pp. 7-8`, `[page 7]`, `page 7 to 9`, `第 7 页`. */
const PAGE_AFTER_LINK = new RegExp(String.raw`^\s{0,3}[,([，（【]?\s{0,3}${PAGE}`, 'iu');
/** After a page phrase: it leads into the next link (`page 7 of [[…]]`), so it is that link's. */
const LEADS_ON = /^\s{0,3}(?:of|in|from)\s{0,3}\[\[/iu;
/** Right before a link: `page 7 of [[…]]`, `on pp. 7-8 in [[…]]`. */
const PAGE_BEFORE_LINK = new RegExp(String.raw`${PAGE}\s{0,3}(?:of|in|from)\s{0,3}$`, 'iu');

/**
 * The pages a reply names at each `[[Title]]` link (right after it, or as `page 7 of [[Title]]`
 * right before it), by title (merged over its links, in ascending order, at most
 * MAX_CITED_PAGES a title). A title cited without a page has none.
 */
export function citedPages(text: string): Map<string, number[]> {
  const out = new Map<string, Set<number>>();
  for (const match of text.matchAll(/\[\[([^\]\n]+?)\]\]/g)) {
    const title = linkTarget(match[1]!);
    const end = match.index! + match[0].length;
    const page = pageAfter(text.slice(end, end + 60)) ?? PAGE_BEFORE_LINK.exec(text.slice(Math.max(0, match.index! - 40), match.index!));
    if (!title || !page) continue;
    const first = Number(page[1] ?? page[3]);
    const last = Math.max(first, Number(page[2] ?? first));
    const pages = out.get(title) ?? new Set<number>();
    for (let p = first; p <= last && pages.size < MAX_CITED_PAGES; p++) if (p > 0) pages.add(p);
    out.set(title, pages);
  }
  return new Map([...out].filter(([, pages]) => pages.size).map(([title, pages]) => [title, [...pages].sort((a, b) => a - b)]));
}

/** The page phrase right after a link, unless it leads into the next link. */
function pageAfter(after: string): RegExpExecArray | null {
  const page = PAGE_AFTER_LINK.exec(after);
  return page && !LEADS_ON.test(after.slice(page[0].length)) ? page : null;
}

/** Pages as a reader writes them: `7`, `7–9`, `3, 7–8`. */
export function pagesLabel(pages: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    runs.push(j > i ? `${pages[i]}–${pages[j]}` : String(pages[i]));
    i = j + 1;
  }
  return runs.join(', ');
}

/** A record's page lists, when it has valid ones (older records have none). */
function pageLists(s: Record<string, unknown>): Pick<Source, 'pages' | 'unverifiedPages'> {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((p): p is number => Number.isInteger(p) && (p as number) > 0).slice(0, MAX_CITED_PAGES) : []);
  const pages = list(s.pages);
  const unverifiedPages = list(s.unverifiedPages);
  return { ...(pages.length ? { pages } : {}), ...(unverifiedPages.length ? { unverifiedPages } : {}) };
}

/**
 * The sources whose change marks the reply: the cited ones it read; when it cites none of
 * what it read, everything it read.
 */
export function watchedSources(sources: readonly Source[]): Source[] {
  const verified = sources.filter((s) => s.fingerprint);
  const cited = verified.filter((s) => s.cited);
  return cited.length ? cited : verified;
}
