/*\
The Current tiddler section of a tiddler too large for the prompt (seed 002): instead of the
whole text, which would fail the turn ("the prompt does not fit"), a bounded part of it. The
section then holds, within `maxTokens`: a note saying that only a part is shown and how to
read the rest (wiki-read with `offset`), the tiddler's fields with its outline (its headings,
each with the offset where it starts), and the region around where the model works: the
snippet of its latest wiki-edit of the tiddler, else the offset of its latest wiki-read, else
the start. The note is one the write gate refuses to see written back (tools/product-markers.ts).
Pure functions: no TiddlyWiki globals, DOM or Node APIs.
\*/
import type { Message } from '../store/schemas';
import { tiddlerBlock, UNTRUSTED_NOTE } from '../tools/format';
import { estimateTokens } from './context';

/** Share of the section's room the outline may take at most. */
const OUTLINE_SHARE = 0.25;
/** Share of the section's room the other fields (a long list, tags or data field) may take at most. */
const FIELDS_SHARE = 0.25;
/** How far a region's ends move to start and end on whole lines. */
const LINE_SNAP = 300;

/** The position in `text` the model works at: its latest edit or read of `title` in the chat, else 0. */
export function currentFocus(history: readonly Message[], title: string, text: string): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== 'tool' || !m['tool-args']) continue;
    let args: { title?: unknown; offset?: unknown; edits?: { find?: unknown; replace?: unknown }[] };
    try {
      args = JSON.parse(m['tool-args']);
    } catch {
      continue;
    }
    if (args?.title !== title) continue;
    if (m['tool-name'] === 'wiki-read') return typeof args.offset === 'number' ? Math.min(Math.max(0, args.offset), text.length) : 0;
    if (m['tool-name'] === 'wiki-edit' && Array.isArray(args.edits)) {
      for (const edit of args.edits) {
        for (const snippet of [edit?.find, edit?.replace]) {
          const at = typeof snippet === 'string' && snippet ? text.indexOf(snippet) : -1;
          if (at >= 0) return at;
        }
      }
    }
  }
  return 0;
}

/** The headings of a wikitext or Markdown text, each with the offset where its line starts. */
export function outline(text: string, type: string | undefined): { at: number; line: string }[] {
  const heading = type === 'text/x-markdown' || type === 'text/markdown' ? /^#{1,6}\s+\S/ : /^!{1,6}\s*\S/;
  const out: { at: number; line: string }[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    if (heading.test(line)) out.push({ at, line: line.trim().slice(0, 200) });
    at += line.length + 1;
  }
  return out;
}

/** The region of `text` around `focus` that `tokens` tokens hold, on whole lines where they are near. */
function region(text: string, focus: number, tokens: number): { start: number; end: number } {
  if (tokens <= 0) return { start: focus, end: focus };
  let length = Math.min(text.length, tokens * 4);
  const span = (): { start: number; end: number } => {
    let start = Math.max(0, Math.min(focus - Math.floor(length / 3), text.length - length));
    let end = Math.min(text.length, start + length);
    const lineStart = start > 0 ? text.indexOf('\n', start) : -1;
    if (lineStart >= 0 && lineStart - start < LINE_SNAP && lineStart < focus) start = lineStart + 1;
    const lineEnd = end < text.length ? text.lastIndexOf('\n', end) : -1;
    if (lineEnd > start && end - lineEnd < LINE_SNAP && lineEnd > focus) end = lineEnd;
    return { start, end };
  };
  let found = span();
  while (length > 0 && estimateTokens(text.slice(found.start, found.end)) > tokens) {
    length = Math.floor(length * 0.8);
    found = span();
  }
  return found;
}

/**
 * The fields with every value but the text cut to its share of the fields' room (one token
 * holds at least one character), with a note saying how much was left out.
 */
function shownFields(fields: Record<string, string>, maxTokens: number): Record<string, string> {
  const names = Object.keys(fields).filter((k) => k !== 'title' && k !== 'modified' && k !== 'text');
  const chars = Math.max(40, Math.floor((maxTokens * FIELDS_SHARE) / Math.max(1, names.length)));
  const out = { ...fields };
  for (const k of names) {
    const value = out[k] ?? '';
    if (value.length > chars) out[k] = `${value.slice(0, chars)}[… ${value.length - chars} more characters not shown]`;
  }
  return out;
}

/** The bounded section: heading, note, fields with the outline, and the region (see the header). */
export function partialCurrentTiddler(all: Record<string, string>, heading: string, focus: number, maxTokens: number): string {
  const fields = shownFields(all, maxTokens);
  const title = fields.title ?? '';
  const text = fields.text ?? '';
  const headings = outline(text, fields.type);
  const lines: string[] = [];
  let left = Math.floor(maxTokens * OUTLINE_SHARE);
  for (const h of headings) {
    const line = `@${h.at} ${h.line}`;
    left -= estimateTokens(line) + 1;
    if (left < 0) break;
    lines.push(line);
  }
  const outlineNote =
    lines.length < headings.length ? ` (${headings.length - lines.length} more headings not listed)` : headings.length ? '' : ' (it has no headings)';
  const fieldsBlock = tiddlerBlock(fields, { full: true, text: lines.join('\n'), attributes: { part: 'outline' } });
  const note = (start: number, end: number) =>
    `[Only part of "${title}" is shown here: its text has ${text.length} characters, more than the prompt has room for. ` +
    `Shown: its fields, its outline (each heading with @ the offset where it starts)${outlineNote}, and its text from offset ${start} to ${end}. ` +
    'To see another part, call wiki-read with that offset. Copy find snippets only from a part you were shown, and change the text with wiki-edit: ' +
    'wiki-update would replace all of it.]';
  const fixed = [heading, UNTRUSTED_NOTE, note(text.length, text.length), fieldsBlock, tiddlerBlock(fields, { text: '', attributes: { part: '0-0' } })];
  const room = maxTokens - estimateTokens(fixed.join('\n')) - 8;
  const { start, end } = region(text, Math.min(focus, text.length), room);
  return [
    `${heading} ${UNTRUSTED_NOTE}`,
    note(start, end),
    fieldsBlock,
    tiddlerBlock(fields, { text: text.slice(start, end), attributes: { part: `${start}-${end}` } }),
  ].join('\n');
}
