/*\
Safe rendering of model output as wikitext. Only formatting rules are enabled: no HTML or
widgets (so no action widgets or buttons), no transclusion, macros or procedures, no images
(no external loads), no styles. Links to tiddlers work; external links must be http(s) or
mailto. Research: chat-agent-ux-and-safety.md, practice 8.
\*/
import type { IParseTreeNode } from 'tiddlywiki';

export const SAFE_RULES = [
  // block
  'codeblock', 'commentblock', 'heading', 'horizrule', 'list', 'quoteblock', 'table',
  // inline
  'codeinline', 'commentinline', 'dash', 'entity', 'extlink', 'prettyextlink', 'prettylink', 'syslink',
  'bold', 'italic', 'strikethrough', 'subscript', 'superscript', 'underscore', 'hardlinebreaks',
];

const PRAGMA = `\\rules only ${SAFE_RULES.join(' ')}\n`;
const SAFE_HREF = /^(https?:|mailto:)/i;

/** Parse text as wikitext under the safe rule set and return the sanitized parse tree. */
export function parseSafeWikitext(wiki: { parseText(type: string, text: string, options?: object): { tree: IParseTreeNode[] } | null }, text: string) {
  const parser = wiki.parseText('text/vnd.tiddlywiki', PRAGMA + text, { parseAsInline: false });
  const tree = parser ? parser.tree : [];
  sanitize(tree);
  return { tree };
}

/** Defence in depth: whatever the rules let through, no element may carry a script URL. */
function sanitize(nodes: IParseTreeNode[]): void {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as IParseTreeNode & { tag?: string; attributes?: Record<string, { value?: unknown }>; children?: IParseTreeNode[] };
    if (node.type === 'element' && node.attributes) {
      const href = node.attributes.href?.value;
      if (href !== undefined && !(typeof href === 'string' && SAFE_HREF.test(href.trim()))) {
        nodes[i] = { type: 'text', text: String(href) } as IParseTreeNode;
        continue;
      }
      if (node.tag && !/^(a|p|div|span|strong|em|strike|sub|sup|u|code|pre|h[1-6]|hr|ul|ol|li|dl|dt|dd|blockquote|cite|table|caption|thead|tbody|tfoot|tr|th|td|br)$/i.test(node.tag)) {
        nodes[i] = { type: 'text', text: '' } as IParseTreeNode;
        continue;
      }
    }
    if (node.children) sanitize(node.children);
  }
}

/**
 * How much of a streaming reply is settled: everything up to its last blank line outside a
 * code block. The settled part renders once; only the rest re-renders as text arrives, so
 * an update costs the same early and late in a long reply.
 */
export function settledLength(text: string): number {
  let settled = 0;
  let inFence = false;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const end = text.indexOf('\n', lineStart);
    if (end < 0) break;
    const line = text.slice(lineStart, end);
    if (/^\s*```/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === '' && lineStart > 0) settled = end + 1;
    lineStart = end + 1;
  }
  return settled;
}
