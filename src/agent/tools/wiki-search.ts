/*\
wiki-search: full-text search with TiddlyWiki's own [search[]] semantics and/or a filter,
one page at a time, with a snippet around the first match (or the full text within a
result budget). Hidden tiddlers never appear, whatever the query or filter. `mode` semantic
or hybrid ranks by meaning instead (search-by-meaning.ts), falling back to text with a note.
\*/
import * as z from 'zod/mini';
import type { WikiPort } from '../store/wiki-port';
import { defineTool } from './tool';
import { chunkOf, MEANING_POOL, rankByMeaning, SEARCH_MODES } from './search-by-meaning';
import { filterError, isBinaryType, pageLine, removeHidden, resultPage, runAgentFilter, tiddlerBlock, UNTRUSTED_NOTE, withheldLine } from './format';

/** Total characters of tiddler text in one result when fullText is on. */
export const SEARCH_TEXT_BUDGET = 12_000;
export const SNIPPET_LENGTH = 200;

const parameters = z
  .object({
    query: z.optional(
      z.string().check(z.describe('Words to search for, as TiddlyWiki\'s search: every word must occur (case-insensitive, also inside longer words) in the title, tags or text')),
    ),
    filter: z.optional(
      z.string().check(z.describe('A TiddlyWiki filter selecting the tiddlers, e.g. [tag[Project]] or [!is[system]days[-7]]; with a query, the query searches within its results')),
    ),
    titlesOnly: z.optional(z.boolean().check(z.describe('Search titles only (faster); default false'))),
    includeSystem: z.optional(z.boolean().check(z.describe('Also search system tiddlers ($:/…) with the query; default false. A filter returns whatever it selects'))),
    limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(50), z.describe('Results per page (1–50)')), 10),
    offset: z._default(z.number().check(z.int(), z.minimum(0), z.describe('Results to skip, for the next page')), 0),
    mode: z.optional(
      z.enum(SEARCH_MODES).check(z.describe('text (default): the words must occur. semantic: tiddlers closest in meaning to the query, by embeddings. hybrid: both rankings fused. Without an embedding model the result is a text search and says so')),
    ),
    fullText: z.optional(
      z.boolean().check(z.describe(`Return each result's full text instead of a ~${SNIPPET_LENGTH}-character snippet around the first match; the whole result stays within ${SEARCH_TEXT_BUDGET} characters`)),
    ),
  })
  .check(z.refine((a) => !!(a.query?.trim() || a.filter?.trim()), 'Give a query or a filter (or both).'));

export const wikiSearchTool = defineTool({
  name: 'wiki-search',
  description:
    'Find tiddlers by words (query) and/or a TiddlyWiki filter. Returns the number found and one page of results, each with its title, modified, tags and a snippet around the match (or the full text with fullText). Use wiki-read for a whole tiddler.',
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
    const { titles, error, shown, withheld } = ranked ? { titles: ranked.titles, ...resultPage(wiki, ranked.titles, args.offset, args.limit) } : searchPage(wiki, args);
    if (error) return { ok: false, content: `${error}. Check the filter syntax.` };
    const total = titles.length;
    const blocks: string[] = [];
    let budget = SEARCH_TEXT_BUDGET;
    let cut = false;
    const terms = args.titlesOnly ? [] : searchTerms(query);
    for (const title of shown) {
      const fields = wiki.getFields(title);
      if (!fields) {
        blocks.push(tiddlerBlock({ title }, { text: '', attributes: { missing: 'yes' } }));
        continue;
      }
      const text = fields.text ?? '';
      if (isBinaryType(fields.type)) {
        blocks.push(tiddlerBlock(fields, { text: `(${fields.type} content, not shown)` }));
      } else if (args.fullText) {
        if (budget <= 0) {
          blocks.push(tiddlerBlock(fields, { text: '(text not shown: result budget reached; use wiki-read)' }));
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
        blocks.push(tiddlerBlock(fields, { text: chunk !== undefined ? snippet(chunkOf(text, chunk), terms) : snippet(text, terms) }));
      }
    }
    const what = [query && `query "${query}"${ranked ? ` by ${args.mode === 'hybrid' ? 'words and meaning' : 'meaning'}` : args.titlesOnly ? ' (titles only)' : ''}`, filter && `filter ${filter}`].filter(Boolean).join(' and ');
    const found = pageLine(total, args.offset, Math.min(args.limit, Math.max(0, total - args.offset)));
    const head = `Search for ${what}: ${ranked ? found.replace(/^(\d+) tiddlers found/, `the ${total} closest tiddlers`) : found}`;
    const lines = note ? [note, head] : [head];
    if (blocks.length) {
      lines.push(args.fullText ? (cut ? `Texts were cut at ${SEARCH_TEXT_BUDGET} characters in total; use wiki-read for the rest.` : 'Full texts.') : 'Snippets around the first match; use wiki-read for the full text.');
      lines.push(UNTRUSTED_NOTE, ...blocks);
    }
    if (withheld) lines.push(withheldLine(withheld));
    return { content: lines.join('\n') };
  },
});

/**
 * What a call selects: every title in order (or a filter error, as TiddlyWiki reports it), and
 * those of the requested page the tool shows (the call's approval targets) or withholds.
 */
function searchPage(wiki: WikiPort, args: z.output<typeof parameters>): { titles: string[]; error?: string; shown: string[]; withheld: number } {
  const titles = select(wiki, args);
  const error = args.filter?.trim() ? filterError(wiki, titles) : undefined;
  return { titles, error, ...(error ? { shown: [], withheld: 0 } : resultPage(wiki, titles, args.offset, args.limit)) };
}

/** The titles a search selects, in order (or a filter error, as TiddlyWiki reports it). */
function select(wiki: WikiPort, args: z.output<typeof parameters>): string[] {
  const query = args.query?.trim() ?? '';
  const filter = args.filter?.trim() ?? '';
  if (filter) {
    const extra = query ? `+[search${args.titlesOnly ? ':title' : ''}<agent-query>]` : '';
    return runAgentFilter(wiki, filter, extra, { 'agent-query': query });
  }
  const system = !!args.includeSystem;
  return removeHidden(wiki.search(query, { titlesOnly: !!args.titlesOnly, exclude: system ? undefined : (t) => t.startsWith('$:/') }));
}

/**
 * The text ranking hybrid search fuses with the vector ranking: for now TiddlyWiki's search
 * (every word must occur; not ranked). The ranked text index plugs in here.
 */
function textRanking(wiki: WikiPort, query: string, limit: number): string[] {
  return removeHidden(wiki.search(query, { limit, exclude: (t) => t.startsWith('$:/') }));
}

/** The words of a query as TiddlyWiki splits them (whitespace except no-break space), lower-cased. */
export function searchTerms(query: string): string[] {
  return query
    .split(/[^\S\xA0]+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
}

/** About SNIPPET_LENGTH characters around the first occurrence of any term, whitespace collapsed. */
export function snippet(text: string, terms: string[], length = SNIPPET_LENGTH): string {
  if (!text) return '';
  const lower = text.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const i = lower.indexOf(term);
    if (i >= 0 && (at < 0 || i < at)) at = i;
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
