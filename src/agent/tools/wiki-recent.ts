/*\
wiki-recent: the most recently modified non-system tiddlers (drafts left out), newest first.
\*/
import * as z from 'zod/mini';
import { defineTool } from './tool';
import { runAgentFilter, tiddlerRef, UNTRUSTED_NOTE, visibilityChecker } from './format';

export const wikiRecentTool = defineTool({
  name: 'wiki-recent',
  description: 'List the most recently modified tiddlers (non-system, no drafts), newest first, with modified and tags.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(200), z.describe('Most titles to return (1–200)')), 20),
    days: z.optional(z.number().check(z.int(), z.minimum(1), z.describe('Only tiddlers modified within this many days'))),
  }),
  execute({ limit, days }, { wiki }) {
    const vis = visibilityChecker(wiki);
    const window = days ? `days:modified[-${days}]` : '';
    const titles = runAgentFilter(wiki, `[!is[system]!has[draft.of]${window}!sort[modified]]`).filter((t) => !vis.hidden(t));
    const lines: string[] = [];
    for (const title of titles) {
      if (lines.length >= limit) break;
      const fields = wiki.getFields(title);
      if (!fields || !vis.confirm(title, fields)) continue;
      lines.push(tiddlerRef(title, fields));
    }
    const scope = days ? ` in the last ${days} day(s)` : '';
    if (!lines.length) return { content: `No tiddlers modified${scope}.` };
    const head = `${titles.length} tiddler(s) modified${scope}; the ${lines.length} most recent, newest first:`;
    return { content: [head, UNTRUSTED_NOTE, ...lines].join('\n') };
  },
});
