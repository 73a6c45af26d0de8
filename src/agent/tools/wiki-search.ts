/*\
wiki-search: ranked full-text search from the wiki's text index (search/text-index.ts: whole
words or their beginnings, best first) and/or a filter, one page at a time, with a snippet
around the first match (or the full text within a result budget). Hidden tiddlers never
appear, whatever the query or filter: the index never holds them. `mode` semantic or hybrid
ranks by meaning instead (search-by-meaning.ts; hybrid fuses with the text index's ranking),
falling back to text with a note.

A filter with a query: the query is matched and ranked within what the filter selects. Shadow
tiddlers are not indexed; those a filter selects are matched as TiddlyWiki's [search[]] does
and follow the ranked results. While the index's first build runs (a big wiki, the first
search after a load), the query is answered as before the index, by [search[]], unranked, and
the result says so.
\*/
import * as z from 'zod/mini';
import { fingerprint } from '../store/fingerprint';
import type { Reads } from '../store/read-ledger';
import type { RankedHit, TiddlerFields, WikiPort } from '../store/wiki-port';
import { documentReading, hasNoTextLayer, isPdfTiddler, noTextLayerLine, pageWith, pdfChunks } from './documents';
import { defineTool } from './tool';
import { chunkOf, MEANING_POOL, rankByMeaning, SEARCH_MODES } from './search-by-meaning';
import { filterError, isBinaryType, pageLine, removeHidden, resultPage, runAgentFilter, tiddlerBlock, UNTRUSTED_NOTE, withheldLine } from './format';

/** Total characters of tiddler text in one result when fullText is on. */
export const SEARCH_TEXT_BUDGET = 12_000;
export const SNIPPET_LENGTH = 200;

const parameters = z
  .object({
    query: z.optional(
      z
        .string()
        .check(
          z.describe(
            'Words to search for: every word must occur in the title, tags or text (case-insensitive; a word of 3+ letters also matches the start of a longer word, e.g. "garden" finds "gardening"). Best matches first',
          ),
        ),
    ),
    filter: z.optional(
      z
        .string()
        .check(
          z.describe(
            'A TiddlyWiki filter selecting the tiddlers, e.g. [tag[Project]] or [!is[system]days[-7]]; with a query, the query searches and ranks within its results',
          ),
        ),
    ),
    titlesOnly: z.optional(z.boolean().check(z.describe('Search titles only (faster); default false'))),
    includeSystem: z.optional(
      z.boolean().check(z.describe('Also search system tiddlers ($:/…) with the query; default false. A filter returns whatever it selects')),
    ),
    limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(50), z.describe('Results per page (1–50)')), 10),
    offset: z._default(z.number().check(z.int(), z.minimum(0), z.describe('Results to skip, for the next page')), 0),
    mode: z.optional(
      z
        .enum(SEARCH_MODES)
        .check(
          z.describe(
            'text (default): the words must occur. semantic: tiddlers closest in meaning to the query, by embeddings. hybrid: both rankings fused. Without an embedding model the result is a text search and says so',
          ),
        ),
    ),
    fullText: z.optional(
      z
        .boolean()
        .check(
          z.describe(
            `Return each result's full text instead of a ~${SNIPPET_LENGTH}-character snippet around the first match; the whole result stays within ${SEARCH_TEXT_BUDGET} characters`,
          ),
        ),
    ),
  })
  .check(z.refine((a) => !!(a.query?.trim() || a.filter?.trim()), 'Give a query or a filter (or both).'));

export const wikiSearchTool = defineTool({
  name: 'wiki-search',
  resultRounds: 3,
  description:
    'Find tiddlers by words (query, ranked: best matches first) and/or a TiddlyWiki filter. Returns the number found and one page of results, each with its title, modified, tags and a snippet around the match (or the full text with fullText). Use wiki-read for a whole tiddler.',
  access: 'read',
  defaultMode: 'auto',
  parameters,
  targets: (args, { wiki }) => {
    // What a search by meaning returns is known only after the query is embedded: the
    // approval patterns then test the arguments (evaluateApproval's `null`).
    if (args.mode && args.mode !== 'text') throw new Error('results not known before the call');
    return searchPage(wiki, args).shown;
  },
  async execute(args, context) {
    const { wiki } = context;
    const query = args.query?.trim() ?? '';
    const filter = args.filter?.trim() ?? '';
    let note: string | undefined;
    let ranked: { titles: string[]; chunks: Map<string, number> } | undefined;
    if (args.mode && args.mode !== 'text') {
      const within = filter ? runAgentFilter(wiki, filter) : undefined;
      if (within && filterError(wiki, within)) return { ok: false, content: `${filterError(wiki, within)}. Check the filter syntax.` };
      const pool = Math.min(MEANING_POOL, args.offset + args.limit);
      const answer = await rankByMeaning(args.mode, query, pool, context, (q, n) => textRanking(wiki, q, n), within && new Set(within));
      if ('note' in answer) note = answer.note;
      else ranked = answer;
    }
    const page: Selection & { shown: string[]; withheld: number } = ranked
      ? { titles: ranked.titles, words: new Map(), ...resultPage(wiki, ranked.titles, args.offset, args.limit) }
      : searchPage(wiki, args);
    const { titles, error, shown, withheld, words } = page;
    note ??= page.note;
    if (error) return { ok: false, content: `${error}. Check the filter syntax.` };
    const total = titles.length;
    const blocks: string[] = [];
    let budget = SEARCH_TEXT_BUDGET;
    let cut = false;
    const terms = args.titlesOnly ? [] : searchTerms(query);
    // Each tiddler shown, with its modified, is a version the agent has read (store/read-ledger.ts).
    const read: Reads = {};
    for (const title of shown) {
      const fields = wiki.getFields(title);
      if (!fields) {
        blocks.push(tiddlerBlock({ title }, { text: '', attributes: { missing: 'yes' } }));
        continue;
      }
      read[title] = fingerprint(fields);
      const text = fields.text ?? '';
      if (isPdfTiddler(fields)) blocks.push(await pdfBlock(wiki, fields, words.get(title), terms, ranked?.chunks.get(title)));
      else if (isBinaryType(fields.type)) {
        blocks.push(tiddlerBlock(fields, { text: `(${fields.type} content, not shown)` }));
      } else if (args.fullText) {
        if (budget <= 0) {
          blocks.push(tiddlerBlock(fields, { text: '(text not shown: result budget reached; use wiki-read)' }));
          delete read[title]; // not shown, so not read (no write lands on it, no citation of it is verified)
          cut = true;
        } else if (text.length > budget) {
          blocks.push(tiddlerBlock(fields, { text: `${text.slice(0, budget)}\n[… ${text.length - budget} more characters; use wiki-read]` }));
          budget = 0;
          cut = true;
        } else {
          blocks.push(tiddlerBlock(fields));
          budget -= text.length;
        }
      } else {
        const chunk = ranked?.chunks.get(title);
        const part = chunk !== undefined ? chunkOf(text, chunk) : text;
        const matched = words.get(title);
        blocks.push(tiddlerBlock(fields, { text: matched ? snippet(part, matched, { wholeWords: true }) : snippet(part, terms) }));
      }
    }
    const what = [
      query && `query "${query}"${ranked ? ` by ${args.mode === 'hybrid' ? 'words and meaning' : 'meaning'}` : args.titlesOnly ? ' (titles only)' : ''}`,
      filter && `filter ${filter}`,
    ]
      .filter(Boolean)
      .join(' and ');
    const found = pageLine(total, args.offset, Math.min(args.limit, Math.max(0, total - args.offset)));
    const head = `Search for ${what}: ${ranked ? found.replace(/^(\d+) tiddlers found/, `the ${total} closest tiddlers`) : found}`;
    const lines = note ? [note, head] : [head];
    if (blocks.length) {
      lines.push(
        args.fullText
          ? cut
            ? `Texts were cut at ${SEARCH_TEXT_BUDGET} characters in total; use wiki-read for the rest.`
            : 'Full texts.'
          : 'Snippets around the first match; use wiki-read for the full text.',
      );
      lines.push(UNTRUSTED_NOTE, ...blocks);
    }
    if (withheld) lines.push(withheldLine(withheld));
    return { content: lines.join('\n'), read, titles: shown, found: total };
  },
});

/** A PDF hit: a snippet around the first match (or its chunk's page, by meaning), after the page's `[page N]`. */
async function pdfBlock(wiki: WikiPort, fields: TiddlerFields, matched: string[] | undefined, terms: string[], chunk: number | undefined): Promise<string> {
  const pdf = await wiki.documentText?.(fields.title as string);
  if (!pdf) return tiddlerBlock(fields, { text: `(${fields.type} content, not shown)` });
  const { problem } = documentReading(pdf);
  if (problem) return tiddlerBlock(fields, { text: problem });
  const pages = (pdf as { pages: string[] }).pages;
  if (hasNoTextLayer(pages)) return tiddlerBlock(fields, { text: noTextLayerLine(pages.length) });
  const words = matched ?? terms;
  const page = (chunk !== undefined ? pdfChunks(pages)[chunk]?.page : undefined) ?? pageWith(pages, words) ?? 1;
  return tiddlerBlock(fields, { text: `[page ${page}] ${snippet(pages[page - 1] ?? '', words, { wholeWords: !!matched })}` });
}

interface Selection {
  /** Every title, best first (or in the filter's order). */
  titles: string[];
  error?: string;
  /** The indexed words each ranked hit matched, for its snippet. */
  words: Map<string, string[]>;
  /** Said in the result: how the titles were found, when not from the index. */
  note?: string;
}

/**
 * What a call selects (or a filter error, as TiddlyWiki reports it), and those of the
 * requested page the tool shows (the call's approval targets) or withholds.
 */
function searchPage(wiki: WikiPort, args: z.output<typeof parameters>): Selection & { shown: string[]; withheld: number } {
  const selection = select(wiki, args);
  return { ...selection, ...(selection.error ? { shown: [], withheld: 0 } : resultPage(wiki, selection.titles, args.offset, args.limit)) };
}

function select(wiki: WikiPort, args: z.output<typeof parameters>): Selection {
  const query = args.query?.trim() ?? '';
  const filter = args.filter?.trim() ?? '';
  const titlesOnly = !!args.titlesOnly;
  const words = new Map<string, string[]>();
  const selected = filter ? runAgentFilter(wiki, filter) : undefined;
  const error = selected && filterError(wiki, selected);
  if (error) return { titles: [], error, words };
  if (!query) return { titles: selected!, words };
  const ranked = wiki.rankedSearch(query, { titlesOnly, includeSystem: !!(filter || args.includeSystem), within: selected && new Set(selected) });
  if (!ranked.ready) {
    const note = `The search index is still being built (${ranked.indexed} of ${ranked.total} tiddlers): these results are TiddlyWiki's [search[]] (substrings, unranked).`;
    return { titles: scan(wiki, args), words, note };
  }
  const titles = hitTitles(ranked.hits, words);
  // Shadow tiddlers are not indexed: those the filter selects are matched by [search[]].
  if (filter)
    titles.push(...runAgentFilter(wiki, filter, `+[is[shadow]!is[tiddler]search${titlesOnly ? ':title' : ''}<agent-query>]`, { 'agent-query': query }));
  return { titles, words };
}

function hitTitles(hits: RankedHit[], words: Map<string, string[]>): string[] {
  return hits.map((hit) => {
    words.set(hit.title, hit.words);
    return hit.title;
  });
}

/** The search without the index: TiddlyWiki's [search[]] (all words as substrings), in title order. */
function scan(wiki: WikiPort, args: z.output<typeof parameters>): string[] {
  const query = args.query?.trim() ?? '';
  const filter = args.filter?.trim() ?? '';
  if (filter) return runAgentFilter(wiki, filter, `+[search${args.titlesOnly ? ':title' : ''}<agent-query>]`, { 'agent-query': query });
  const system = !!args.includeSystem;
  return removeHidden(wiki.search(query, { titlesOnly: !!args.titlesOnly, exclude: system ? undefined : (t) => t.startsWith('$:/') }));
}

/**
 * The text index's titles and scores for a query, best first, for rank fusion with other
 * rankings (semantic search); undefined while the index's first build runs. Hidden tiddlers
 * never appear; system tiddlers only with includeSystem.
 */
export function rankText(
  wiki: WikiPort,
  query: string,
  options: { limit?: number; includeSystem?: boolean } = {},
): { title: string; score: number }[] | undefined {
  const ranked = wiki.rankedSearch(query, { includeSystem: options.includeSystem });
  if (!ranked.ready) return undefined;
  return ranked.hits.slice(0, options.limit ?? ranked.hits.length).map(({ title, score }) => ({ title, score }));
}

/** The text ranking hybrid search fuses with the vector ranking: the text index's, or [search[]]'s while it is built. */
function textRanking(wiki: WikiPort, query: string, limit: number): string[] {
  return rankText(wiki, query, { limit })?.map((hit) => hit.title) ?? removeHidden(wiki.search(query, { limit, exclude: (t) => t.startsWith('$:/') }));
}

/** The words of a query as TiddlyWiki splits them (whitespace except no-break space), lower-cased. */
export function searchTerms(query: string): string[] {
  return query
    .split(/[^\S\xA0]+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
}

/**
 * About SNIPPET_LENGTH characters around the first occurrence of any term, whitespace collapsed.
 * With `wholeWords` (the index's matched words) only an occurrence that starts a word counts.
 */
export function snippet(text: string, terms: string[], options: { length?: number; wholeWords?: boolean } = {}): string {
  const length = options.length ?? SNIPPET_LENGTH;
  if (!text) return '';
  let at = -1;
  if (options.wholeWords) {
    const escaped = terms.filter(Boolean).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    if (escaped.length) at = text.search(new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})`, 'iu'));
  } else {
    const lower = text.toLowerCase();
    for (const term of terms) {
      const i = lower.indexOf(term);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
  }
  if (at < 0) at = 0;
  let start = Math.max(0, at - Math.floor(length / 3));
  let end = Math.min(text.length, start + length);
  start = Math.max(0, end - length);
  // Widen to word boundaries so words are not cut in half.
  if (start > 0) {
    const space = text.lastIndexOf(' ', start);
    if (space >= 0 && start - space < 20) start = space + 1;
  }
  if (end < text.length) {
    const space = text.indexOf(' ', end);
    if (space >= 0 && space - end < 20) end = space;
  }
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}
