/*\
wiki-backlinks: the tiddlers that link to a title.
\*/
import * as z from 'zod/mini';
import type { WikiPort } from '../store/wiki-port';
import { defineTool } from './tool';
import { isHiddenFromAgent } from './visibility';
import { oneLine, removeHidden, tiddlerRef, UNTRUSTED_NOTE } from './format';

export const wikiBacklinksTool = defineTool({
  name: 'wiki-backlinks',
  description: 'List the tiddlers that link to a tiddler (by [[link]] or <$link>), with their modified and tags.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    title: z.string().check(z.minLength(1), z.describe('Exact title of the tiddler that is linked to (it need not exist)')),
    limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(200), z.describe('Most titles to return (1–200)')), 20),
  }),
  targets: ({ title, limit }, { wiki }) => [title, ...listed(wiki, backlinks(wiki, title), limit)],
  execute({ title, limit }, { wiki }) {
    const target = wiki.getFields(title);
    const exists = !!target && !isHiddenFromAgent(title, target);
    const titles = backlinks(wiki, title);
    const shown = listed(wiki, titles, limit);
    const lines = shown.map((t) => tiddlerRef(t, wiki.getFields(t)));
    const name = `"${oneLine(title)}"${exists ? '' : ' (which does not exist)'}`;
    if (!titles.length) return { content: `No tiddlers link to ${name}.`, titles: [], found: 0 };
    const more = titles.length > limit ? ` Showing the first ${limit}; raise limit for more.` : '';
    return { content: [`${titles.length} tiddler(s) link to ${name}.${more}`, UNTRUSTED_NOTE, ...lines].join('\n'), titles: shown, found: titles.length };
  },
});

function backlinks(wiki: WikiPort, title: string): string[] {
  return removeHidden(wiki.filter('[<agent-title>backlinks[]sort[title]]', { 'agent-title': title }));
}

/** The linking tiddlers the tool lists (the call's approval targets, with the title). */
function listed(wiki: WikiPort, titles: string[], limit: number): string[] {
  return titles.slice(0, limit).filter((t) => {
    const fields = wiki.getFields(t);
    return !!fields && !isHiddenFromAgent(t, fields);
  });
}
