/*\
Plain text from a rendered widget tree in TiddlyWiki's fake DOM, the way a reader would see
it: block elements on their own lines, list items as "* ", whitespace collapsed except in
<pre>. Used for system prompts and attachments, which are written in wikitext.
\*/

interface FakeNode {
  tag?: string;
  textContent?: string;
  children?: FakeNode[];
  isRaw?: boolean;
}

/** Elements that start and end a line: sections and blocks, then headings, lists and tables. */
const BLOCK = new Set([
  ...'address article aside blockquote details div fieldset figcaption figure footer form header hr nav p section summary'.split(' '),
  ...'h1 h2 h3 h4 h5 h6 dl dt dd ol ul li table tr'.split(' '),
]);

export function plainTextOf(root: FakeNode): string {
  let out = '';
  /** End the current line, leaving at least `lines` line breaks (2 = a blank line). */
  const breakLines = (lines: number) => {
    out = out.replace(/[ \t]+$/, '');
    if (!out) return;
    const have = /\n*$/.exec(out)![0].length;
    if (have < lines) out += '\n'.repeat(lines - have);
  };
  const walk = (node: FakeNode) => {
    if (node.tag === undefined) {
      const text = (node.textContent ?? '').replace(/\s+/g, ' ');
      out += /\n$/.test(out) || !out ? text.replace(/^ /, '') : text;
      return;
    }
    if (node.isRaw) return;
    if (node.tag === 'br') return breakLines(1);
    if (node.tag === 'pre') {
      breakLines(2);
      out += node.textContent ?? '';
      return breakLines(2);
    }
    const block = BLOCK.has(node.tag);
    const paragraphLike = block && node.tag !== 'li' && node.tag !== 'tr' && node.tag !== 'dt' && node.tag !== 'dd';
    if (block) breakLines(paragraphLike ? 2 : 1);
    if (node.tag === 'li') out += '* ';
    if (node.tag === 'td' || node.tag === 'th') out += ' | ';
    for (const child of node.children ?? []) walk(child);
    if (block) breakLines(paragraphLike ? 2 : 1);
  };
  walk(root);
  return out.trim();
}
