/*\
wiki-recent: the most recently modified non-system tiddlers (drafts left out), newest first.
\*/
import * as z from 'zod/mini';
import type { WikiPort } from '../store/wiki-port';
import { defineTool } from './tool';
import { isHiddenFromAgent } from './visibility';
import { tiddlerRef, UNTRUSTED_NOTE } from './format';

export const wikiRecentTool = defineTool({
  name: 'wiki-recent',
  description: 'List the most recently modified tiddlers (non-system, no drafts), newest first, with modified and tags.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(200), z.describe('Most titles to return (1–200)')), 20),
    days: z.optional(z.number().check(z.int(), z.minimum(1), z.describe('Only tiddlers modified within this many days'))),
  }),
  targets: ({ limit, days }, { wiki }) =>
    recent(wiki, days)
      .slice(0, limit)
      .map((r) => r.title),
  execute({ limit, days }, { wiki }) {
    const rows = recent(wiki, days);
    const scope = days ? ` in the last ${days} day(s)` : '';
    if (!rows.length) return { content: `No tiddlers modified${scope}.`, titles: [], found: 0 };
    const top = rows.slice(0, limit);
    const head = `${rows.length} tiddler(s) modified${scope}; the ${top.length} most recent, newest first:`;
    return {
      content: [head, UNTRUSTED_NOTE, ...top.map((r) => tiddlerRef(r.title, wiki.getFields(r.title)))].join('\n'),
      titles: top.map((r) => r.title),
      found: rows.length,
    };
  },
});

/** Non-system tiddlers (no drafts), newest first. */
function recent(wiki: WikiPort, days: number | undefined): { modified: string; title: string }[] {
  // Sorted here rather than with !sort[modified]: TiddlyWiki's sort looks up both tiddlers
  // on every comparison (2.2 s for 100,000 tiddlers); reading each `modified` once and
  // comparing the strings (YYYYMMDDHHMMSSmmm) is about three times faster, and the field
  // read doubles as the visibility check.
  const window = days ? `days:modified[-${days}]` : '';
  const rows: { modified: string; title: string }[] = [];
  for (const title of wiki.filter(`[!is[system]!has[draft.of]${window}]`)) {
    if (isHiddenFromAgent(title, undefined)) continue;
    const fields = wiki.getFields(title);
    if (!fields || isHiddenFromAgent(title, fields)) continue;
    rows.push({ modified: fields.modified ?? '', title });
  }
  rows.sort((a, b) => (a.modified < b.modified ? 1 : a.modified > b.modified ? -1 : 0));
  return rows;
}
