/*\
wiki-list: the titles a filter selects, one page at a time: title, modified and tags only.
\*/
import * as z from 'zod/mini';
import { defineTool } from './tool';
import { filterError, pageLine, runAgentFilter, showable, tiddlerRef, UNTRUSTED_NOTE, withheldLine } from './format';

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
  targets: ({ filter, offset, limit }, { wiki }) => runAgentFilter(wiki, filter?.trim() || DEFAULT_LIST_FILTER).slice(offset, offset + limit),
  execute({ filter, offset, limit }, { wiki }) {
    const expression = filter?.trim() || DEFAULT_LIST_FILTER;
    const titles = runAgentFilter(wiki, expression);
    const error = filterError(wiki, titles);
    if (error) return { ok: false, content: `${error}. Check the filter syntax.` };
    const lines: string[] = [];
    let withheld = 0;
    for (const title of titles.slice(offset, offset + limit)) {
      const fields = wiki.getFields(title);
      if (showable(wiki, title, fields)) lines.push(tiddlerRef(title, fields));
      else withheld++;
    }
    const head = `Filter ${expression}: ${pageLine(titles.length, offset, Math.min(limit, Math.max(0, titles.length - offset)), 'titles')}`;
    const out = lines.length ? [head, UNTRUSTED_NOTE, ...lines] : [head];
    if (withheld) out.push(withheldLine(withheld));
    return { content: out.join('\n') };
  },
});
