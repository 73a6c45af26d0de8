/*\
wiki-toc: the tag tree under a tiddler (the tiddlers tagged with it, those tagged with
them, …) as an indented outline, in TiddlyWiki's tag order. Cycle-safe; each tiddler is
expanded once.
\*/
import * as z from 'zod/mini';
import type { WikiPort } from '../store/wiki-port';
import { defineTool } from './tool';
import { isHiddenFromAgent } from './visibility';
import { oneLine, UNTRUSTED_NOTE } from './format';

export const wikiTocTool = defineTool({
  name: 'wiki-toc',
  description:
    'Show the table of contents under a tiddler: the tiddlers tagged with it, the ones tagged with those, and so on, as an indented outline with each modified value.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    root: z.string().check(z.minLength(1), z.describe('Title of the root tiddler (the tag at the top of the tree)')),
    depth: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(6), z.describe('Levels below the root to show (1–6)')), 3),
  }),
  targets: ({ root, depth }, { wiki }) => outline(wiki, root, depth).titles,
  execute({ root, depth }, { wiki }) {
    const rootFields = wiki.getFields(root);
    if (isHiddenFromAgent(root, rootFields)) return { ok: false, content: `Tiddler "${oneLine(root)}" does not exist and nothing is tagged with it.` };
    const { lines, titles } = outline(wiki, root, depth);
    if (lines.length === 1)
      return { content: `Nothing is tagged with "${oneLine(root)}"${rootFields ? '' : ' (which does not exist)'}.`, titles: [], found: 0 };
    const under = titles.slice(1);
    return {
      content: [`Table of contents under "${oneLine(root)}" (depth ${depth}):`, UNTRUSTED_NOTE, ...lines].join('\n'),
      titles: under,
      found: under.length,
    };
  },
});

export const TOC_MAX_LINES = 300;

/**
 * The outline under `root` as the tool shows it: its lines (with a last one saying where it was
 * cut at TOC_MAX_LINES) and the titles on them (the root first; each title once), which are the
 * call's approval targets. A hidden root has no outline.
 */
function outline(wiki: WikiPort, root: string, depth: number): { lines: string[]; titles: string[] } {
  const titles = new Set<string>([root]);
  if (isHiddenFromAgent(root, wiki.getFields(root))) return { lines: [], titles: [...titles] };
  const lines: string[] = [line(wiki, root, 0)];
  const expanded = new Set<string>([root]);
  let truncated = false;
  const push = (title: string, text: string) => {
    lines.push(text);
    titles.add(title);
  };
  const walk = (parent: string, level: number, ancestors: Set<string>) => {
    for (const child of children(wiki, parent)) {
      if (lines.length >= TOC_MAX_LINES) {
        truncated = true;
        return;
      }
      if (ancestors.has(child)) {
        push(child, `${line(wiki, child, level)} (cycle: it is also an ancestor here)`);
        continue;
      }
      const kids = children(wiki, child);
      if (!kids.length) push(child, line(wiki, child, level));
      else if (expanded.has(child)) push(child, `${line(wiki, child, level)} (its ${kids.length} children are shown above)`);
      else if (level >= depth) push(child, `${line(wiki, child, level)} (${kids.length} more below; raise depth)`);
      else {
        push(child, line(wiki, child, level));
        expanded.add(child);
        walk(child, level + 1, new Set([...ancestors, child]));
      }
    }
  };
  walk(root, 1, new Set([root]));
  if (truncated) lines.push(`[… outline cut at ${TOC_MAX_LINES} lines; use a lower depth or a deeper root]`);
  return { lines, titles: [...titles] };
}

function children(wiki: WikiPort, parent: string): string[] {
  return wiki.filter('[<agent-title>tagging[]!has[draft.of]]', { 'agent-title': parent }).filter((t) => !isHiddenFromAgent(t, wiki.getFields(t)));
}

function line(wiki: WikiPort, title: string, level: number): string {
  const fields = wiki.getFields(title);
  const info = fields ? `modified ${fields.modified ?? '""'}` : 'missing';
  return `${'  '.repeat(level)}${level ? '- ' : ''}${oneLine(title)} (${info})`;
}
