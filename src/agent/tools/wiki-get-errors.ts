/*\
wiki-get-errors: render a tiddler as the story river would and report what went wrong:
TiddlyWiki's error elements (class tc-error, e.g. recursive transclusion), undefined
widgets, filter errors, and transclusions of tiddlers that do not exist.
\*/
import * as z from 'zod/mini';
import type { WikiPort } from '../store/wiki-port';
import { defineTool } from './tool';
import { isHiddenFromAgent } from './visibility';
import { isBinaryType, oneLine, UNTRUSTED_NOTE } from './format';

export const wikiGetErrorsTool = defineTool({
  name: 'wiki-get-errors',
  description:
    'Check a tiddler for wikitext errors: renders it and reports error messages (such as recursive transclusion), undefined widgets, filter errors and transclusions of missing tiddlers. Use it after writing wikitext.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    title: z.string().check(z.minLength(1), z.describe('Exact tiddler title')),
  }),
  targets: ({ title }) => [title],
  execute({ title }, { wiki }) {
    const fields = wiki.getFields(title);
    if (!fields || isHiddenFromAgent(title, fields)) return { ok: false, content: `Tiddler "${oneLine(title)}" does not exist.` };
    const name = `"${oneLine(title)}" (modified ${fields.modified ?? '""'})`;
    if (isBinaryType(fields.type)) return { content: `No errors found in ${name}: it is ${fields.type} content, not wikitext.` };
    let html: string;
    try {
      html = wiki.renderHtml(title);
    } catch (e) {
      return { content: [`Errors in ${name}:`, UNTRUSTED_NOTE, `- Rendering failed: ${e instanceof Error ? e.message : String(e)}`].join('\n') };
    }
    const errors = findErrors(html);
    for (const target of missingTransclusions(wiki, fields.text ?? '')) errors.push(`Transcludes a tiddler that does not exist: "${oneLine(target)}"`);
    if (!errors.length) return { content: `No errors found in ${name}.` };
    const counted = new Map<string, number>();
    for (const e of errors) counted.set(e, (counted.get(e) ?? 0) + 1);
    const lines = [...counted].map(([e, n]) => `- ${e}${n > 1 ? ` (×${n})` : ''}`);
    return { content: [`${counted.size} error(s) in ${name}:`, UNTRUSTED_NOTE, ...lines].join('\n') };
  },
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decode(html: string): string {
  return html.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

function plain(html: string): string {
  return decode(html.replace(/<[^>]*>/g, ''));
}

/** Error messages in rendered HTML. */
export function findErrors(html: string): string[] {
  const errors: string[] = [];
  const tcError = /<(\w+)\b[^>]*\bclass="[^"]*\btc-error\b[^"]*"[^>]*>([\s\S]*?)<\/\1>/g;
  for (const m of html.matchAll(tcError)) errors.push(plain(m[2] ?? '').trim() || 'Error element without a message');
  const nodes = html
    .replace(tcError, '<>')
    .split(/<[^>]*>/)
    .map(decode);
  let recursion = errors.some((e) => /recursive transclusion/i.test(e));
  for (const node of nodes) {
    for (const u of node.matchAll(/Undefined widget '([^']*)'/g))
      errors.push(`Undefined widget '${u[1]}': there is no <$${u[1]}> widget (a typo, or a plugin that is not installed)`);
    const f = /Filter error:.*/i.exec(node);
    if (f) errors.push(f[0].trim());
    if (!recursion && /recursive transclusion/i.test(node)) {
      errors.push('Recursive transclusion');
      recursion = true;
    }
  }
  return errors;
}

/**
 * Targets of `{{title}}`, `{{title!!field}}`, `{{title##index}}`, `{{title||template}}` and
 * literal `<$transclude tiddler="…">` / `$tiddler="…"` that do not exist (or are hidden,
 * which the agent must not be able to tell apart).
 */
export function missingTransclusions(wiki: WikiPort, text: string): string[] {
  const targets = new Set<string>();
  for (const m of text.matchAll(/(?<!\{)\{\{(?!\{)([^{}]*?)\}\}(?!\})/g)) {
    const [ref, template] = (m[1] ?? '').split('||');
    const title = (ref ?? '').replace(/(!!|##).*$/, '').trim();
    if (title) targets.add(title);
    if (template?.trim()) targets.add(template.trim());
  }
  for (const m of text.matchAll(/<\$transclude\b[^>]*?\s\$?tiddler=(?:"([^"]*)"|'([^']*)'|\[\[([^\]]*)\]\])/g)) {
    const title = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (title) targets.add(title);
  }
  return [...targets].filter((t) => {
    const fields = wiki.getFields(t);
    return !fields || isHiddenFromAgent(t, fields);
  });
}
