/*\
wiki-list: the titles a filter selects, one page at a time: title, modified and tags only.
\*/
import * as z from 'zod/mini';
import type { WikiPort } from '../store/wiki-port';
import { defineTool } from './tool';
import { filterError, pageLine, resultPage, runAgentFilter, tiddlerRef, UNTRUSTED_NOTE, withheldLine } from './format';

export const DEFAULT_LIST_FILTER = '[!is[system]sort[title]]';

export const wikiListTool = defineTool({
  name: 'wiki-list',
  description:
    'List the tiddlers a TiddlyWiki filter selects (default: all non-system tiddlers by title), one page at a time, with title, modified and tags but no text. Returns the total count and the next offset.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    filter: z.optional(z.string().check(z.describe(`A TiddlyWiki filter, e.g. [tag[Project]!sort[modified]]; default ${DEFAULT_LIST_FILTER}`))),
    offset: z._default(z.number().check(z.int(), z.minimum(0), z.describe('Titles to skip, for the next page')), 0),
    limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(200), z.describe('Titles per page (1–200)')), 50),
  }),
  targets: (args, { wiki }) => listPage(wiki, args).shown,
  execute(args, { wiki }) {
    const { expression, titles, error, shown, withheld } = listPage(wiki, args);
    if (error) return { ok: false, content: `${error}. Check the filter syntax.` };
    const lines = shown.map((title) => tiddlerRef(title, wiki.getFields(title)));
    const head = `Filter ${expression}: ${pageLine(titles.length, args.offset, Math.min(args.limit, Math.max(0, titles.length - args.offset)), 'titles')}`;
    const out = lines.length ? [head, UNTRUSTED_NOTE, ...lines] : [head];
    if (withheld) out.push(withheldLine(withheld));
    return { content: out.join('\n'), titles: shown, found: titles.length };
  },
});

/**
 * What a call selects: every title the filter returns, and those of the requested page the
 * tool shows (the call's approval targets) or withholds (see `showable`).
 */
function listPage(wiki: WikiPort, { filter, offset, limit }: { filter?: string; offset: number; limit: number }) {
  const expression = filter?.trim() || DEFAULT_LIST_FILTER;
  const titles = runAgentFilter(wiki, expression);
  const error = filterError(wiki, titles);
  return { expression, titles, error, ...(error ? { shown: [], withheld: 0 } : resultPage(wiki, titles, offset, limit)) };
}
