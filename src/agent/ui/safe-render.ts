/*\
Safe rendering of model output as wikitext. Only formatting rules are enabled: no HTML or
widgets (so no action widgets or buttons), no transclusion, macros or procedures, no images
(no external loads), no styles. Links to tiddlers work; external links must be http(s) or
mailto. Research: chat-agent-ux-and-safety.md, practice 8.
\*/
import type { IParseTreeNode } from 'tiddlywiki';

// Where a streaming reply can be cut into blocks that will not change; the library exports it from here.
export { settledLength } from './settled';

export const SAFE_RULES = [
  // block
  'codeblock',
  'commentblock',
  'heading',
  'horizrule',
  'list',
  'quoteblock',
  'table',
  // inline
  'codeinline',
  'commentinline',
  'dash',
  'entity',
  'extlink',
  'prettyextlink',
  'prettylink',
  'syslink',
  'bold',
  'italic',
  'strikethrough',
  'subscript',
  'superscript',
  'underscore',
  'hardlinebreaks',
];

const PRAGMA = `\\rules only ${SAFE_RULES.join(' ')}\n`;
const SAFE_HREF = /^(https?:|mailto:)/i;

type SafeWiki = { parseText(type: string, text: string, options?: object): { tree: IParseTreeNode[]; usingRuleMap?: Record<string, unknown> } | null };

/**
 * Parse text as wikitext under the safe rule set and return the sanitized parse tree.
 * `parseAsInline` is for inline transclusion of a reply (`text {{reply}} text`).
 */
export function parseSafeWikitext(wiki: SafeWiki, text: string, options: { parseAsInline?: boolean } = {}) {
  const parser = wiki.parseText('text/vnd.tiddlywiki', PRAGMA + text, { parseAsInline: !!options.parseAsInline });
  // The user can switch off the `\rules` pragma (Control Panel > Advanced > Parsing); then
  // every rule would apply. Fail closed: show the text as text.
  const used = parser?.usingRuleMap ? Object.keys(parser.usingRuleMap) : [];
  if (!parser || used.some((rule) => rule !== 'rules' && !SAFE_RULES.includes(rule))) {
    const plain = { type: 'text', text } as IParseTreeNode;
    return { tree: options.parseAsInline ? [plain] : [{ type: 'element', tag: 'p', children: [plain] } as IParseTreeNode] };
  }
  const tree = parser.tree;
  sanitize(tree);
  return { tree };
}

/** Elements the safe rules produce, with the attributes each may keep. */
const ELEMENT_ATTRIBUTES: Record<string, string[]> = {
  a: ['href', 'target', 'rel', 'class'],
  td: ['colspan', 'rowspan', 'align', 'valign'],
  th: ['colspan', 'rowspan', 'align', 'valign'],
  tr: ['class'],
  blockquote: ['class'],
};
for (const tag of [
  'p',
  'div',
  'span',
  'strong',
  'em',
  's',
  'strike',
  'sub',
  'sup',
  'u',
  'code',
  'pre',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'cite',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'br',
]) {
  ELEMENT_ATTRIBUTES[tag] ??= [];
}
/** The only classes a reply's elements keep: those TiddlyWiki's own rules add, never one the reply names. */
const RULE_CLASSES = new Set(['tc-tiddlylink-external', 'tc-quote', 'evenRow', 'oddRow']);
/** Widgets the safe rules produce, with the attributes each may keep. */
const WIDGET_ATTRIBUTES: Record<string, string[]> = { link: ['to'], codeblock: ['code', 'language'] };
const PLAIN_NODES = new Set(['text', 'entity', 'void']);

/**
 * Defence in depth: whatever the rules let through, no element may carry a script URL, and
 * no element or widget keeps an attribute it does not need. Classes and styles a reply
 * names (`!.tc-ai-card`, `*.cls`, `<<<.cls`, `|cls|k`) are dropped, so a reply cannot
 * borrow the product's own classes to fake a card or a button.
 */
function sanitize(nodes: IParseTreeNode[]): void {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as IParseTreeNode & { tag?: string; attributes?: Record<string, { type?: string; value?: unknown }>; children?: IParseTreeNode[] };
    if (node.type === 'element') {
      const allowed = ELEMENT_ATTRIBUTES[(node.tag ?? '').toLowerCase()];
      if (!allowed) {
        nodes[i] = { type: 'text', text: '' } as IParseTreeNode;
        continue;
      }
      keepAttributes(node, allowed);
      const href = node.attributes?.href?.value;
      if (href !== undefined && !(typeof href === 'string' && SAFE_HREF.test(href.trim()))) {
        nodes[i] = { type: 'text', text: String(href) } as IParseTreeNode;
        continue;
      }
      const classes = node.attributes?.class;
      if (classes) {
        const kept = String(classes.value)
          .split(/\s+/)
          .filter((c) => RULE_CLASSES.has(c));
        if (kept.length) classes.value = kept.join(' ');
        else
          keepAttributes(
            node,
            allowed.filter((name) => name !== 'class'),
          );
      }
    } else if (WIDGET_ATTRIBUTES[node.type]) {
      keepAttributes(node, WIDGET_ATTRIBUTES[node.type]!);
    } else if (!PLAIN_NODES.has(node.type)) {
      nodes[i] = { type: 'text', text: '' } as IParseTreeNode;
      continue;
    }
    if (node.children) sanitize(node.children);
  }
}

/** Keep only the allowed attributes, and only literal ones (no `{{…}}`, `<<…>>` or filter values). */
function keepAttributes(node: { attributes?: Record<string, { type?: string }>; orderedAttributes?: unknown[] }, allowed: string[]): void {
  if (!node.attributes) return;
  for (const [name, attribute] of Object.entries(node.attributes)) if (!allowed.includes(name) || attribute?.type !== 'string') delete node.attributes[name];
  // Widgets read orderedAttributes when present; keep it in step (same names, same objects).
  if (Array.isArray(node.orderedAttributes)) {
    const attributes = node.attributes;
    node.orderedAttributes = node.orderedAttributes.map((a) => attributes[(a as { name: string }).name]).filter((a) => a !== undefined);
  }
}
