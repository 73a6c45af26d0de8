/*\
A reply's wikitext as Markdown, for the Markdown export: the forms a reply uses (bold, italic,
headings, lists, links, code) become their Markdown forms, so the file reads right in any
Markdown viewer; code (fenced or inline) is kept exactly; anything else stays as written.
\*/

/** Markdown for the common wikitext of a reply (see the header). */
export function wikitextToMarkdown(text: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^(`{3,})/.exec(line)?.[1];
    if (fence) {
      out.push(line);
      if (marker && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(line);
      continue;
    }
    out.push(convertLine(line));
  }
  return out.join('\n');
}

function convertLine(line: string): string {
  const heading = /^(!{1,6})\s*(.*)$/.exec(line);
  if (heading) return `${'#'.repeat(heading[1]!.length)} ${inline(heading[2]!)}`;
  // Lists: `*` bullets and `#` numbers, nested by repetition (`**`, `#*`).
  const list = /^([*#]+)\s+(.*)$/.exec(line);
  if (list) {
    const marks = list[1]!;
    const indent = '  '.repeat(marks.length - 1);
    return `${indent}${marks.endsWith('#') ? '1.' : '-'} ${inline(list[2]!)}`;
  }
  return inline(line);
}

/** Inline forms outside `code` spans. */
function inline(line: string): string {
  return line
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2
        ? part
        : part
            .replace(/\[\[([^|\]]+)\|([^\]]+)\]\]/g, (_m, label: string, target: string) =>
              /^[a-z][a-z0-9+.-]*:/i.test(target) ? `[${label}](${target})` : label,
            )
            .replace(/\[\[([^\]]+)\]\]/g, '$1')
            .replace(/''(.+?)''/g, '**$1**')
            // Not the `//` of a URL (after a colon).
            .replace(/(?<!:)\/\/(.+?)(?<!:)\/\//g, '*$1*'),
    )
    .join('');
}
