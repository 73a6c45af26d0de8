/*\
wiki-read: one tiddler with all its fields and its text (optionally also rendered to plain
text). A hidden tiddler is answered exactly like a missing one, with similar titles. An
image tiddler (png, jpeg, gif, webp) comes back as an image the model sees (its title on the
result, see ToolOutput.attachments); one too big or not really an image is a tool error.
A long text comes in parts of READ_TEXT_LIMIT characters from `offset`, with a line saying
what was left out and where to read on. Reading a tiddler makes it the chat's "current tiddler", and the version read is recorded
(store/read-ledger.ts): the write tools write only over the version last read.
\*/
import * as z from 'zod/mini';
import { fingerprint } from '../store/fingerprint';
import type { TiddlerFields, WikiPort } from '../store/wiki-port';
import { documentReading, isPdfTiddler } from './documents';
import { defineTool, type ToolOutput } from './tool';
import { isHiddenFromAgent } from './visibility';
import { isBinaryType, oneLine, tiddlerBlock, UNTRUSTED_NOTE } from './format';
import { imageBytes, isImageTiddler, sizeText, tiddlerImage } from './images';

export const wikiReadTool = defineTool({
  name: 'wiki-read',
  resultRounds: 4,
  description:
    'Read one tiddler: all its fields and its full text (wikitext). With rendered, also its text as TiddlyWiki renders it (transclusions and macros resolved) as plain text. Note its `modified` value: wiki-update, wiki-edit, wiki-rename and wiki-delete require you to send back the modified you read. A text longer than 40,000 characters comes in parts: read the next part with offset. An image tiddler (png, jpeg, gif, webp) comes with the image itself, for you to look at. A PDF comes as its text, each page after a [page N] line: cite a PDF by its title and page.',
  access: 'read',
  defaultMode: 'auto',
  parameters: z.object({
    title: z.string().check(z.minLength(1), z.describe('Exact tiddler title')),
    rendered: z.optional(z.boolean().check(z.describe('Also return the rendered plain text; default false'))),
    offset: z.optional(
      z
        .number()
        .check(
          z.int(),
          z.minimum(0),
          z.describe(`Character position in the text to start from, for a text longer than one read (40,000 characters); default 0`),
        ),
    ),
  }),
  targets: ({ title }) => [title],
  execute({ title, rendered, offset = 0 }, { wiki }) {
    const fields = wiki.getFields(title);
    if (!fields || isHiddenFromAgent(title, fields)) {
      const similar = similarTitles(wiki, title);
      return {
        ok: false,
        content: `Tiddler "${oneLine(title)}" does not exist.${similar.length ? ` Similar titles: ${similar.map((t) => JSON.stringify(t)).join(', ')}.` : ' No similar titles found; try wiki-search.'}`,
      };
    }
    const text = fields.text ?? '';
    const parts: string[] = [UNTRUSTED_NOTE];
    if (isImageTiddler(fields) && !fields._canonical_uri) {
      // The image itself goes to the model as an image part (engine/images.ts), never as base64 text.
      const checked = tiddlerImage(title, fields);
      if ('problem' in checked) return { ok: false, content: checked.problem };
      parts.push(
        tiddlerBlock(fields, {
          full: true,
          text: `(${checked.image.mediaType} image, ${sizeText(imageBytes(checked.image.data))}: attached to this result as an image)`,
        }),
      );
      return { content: parts.join('\n'), currentTiddler: title, attachments: [title], read: { [title]: fingerprint(fields) } };
    }
    if (isPdfTiddler(fields) && wiki.documentText) return readDocument(wiki, fields, offset);
    if (isImageTiddler(fields)) {
      parts.push(
        tiddlerBlock(fields, {
          full: true,
          text: `(${fields.type} image stored outside the wiki at its _canonical_uri; it is not fetched, so it is not shown)`,
        }),
      );
    } else if (isBinaryType(fields.type)) {
      parts.push(tiddlerBlock(fields, { full: true, text: `(${fields.type} content, ${text.length} characters, not shown)` }));
    } else if (text.length > READ_TEXT_LIMIT || offset > 0) {
      parts.push(tiddlerBlock(fields, { full: true, text: part(text, offset) }));
    } else {
      parts.push(tiddlerBlock(fields, { full: true }));
    }
    if (rendered && !isBinaryType(fields.type)) {
      // Rendered through the agent's view: a transclusion cannot pull in a hidden tiddler.
      let plain: string;
      try {
        plain = wiki.renderPlainText(title).trim();
      } catch (e) {
        plain = `(rendering failed: ${e instanceof Error ? e.message : String(e)})`;
      }
      parts.push(tiddlerBlock(fields, { text: capped(plain), attributes: { view: 'rendered' } }));
    }
    return { content: parts.join('\n'), currentTiddler: title, read: { [title]: fingerprint(fields) } };
  },
});

/** A PDF: its pages' text with `[page N]` markers (in parts, as a long text), or why it cannot be read. */
async function readDocument(wiki: WikiPort, fields: TiddlerFields, offset: number): Promise<ToolOutput> {
  const title = fields.title as string;
  const pdf = await wiki.documentText?.(title);
  if (!pdf) return { ok: false, content: `Tiddler "${oneLine(title)}" does not exist.` };
  const { text, problem } = documentReading(pdf);
  if (problem) return { ok: false, content: `${problem} (tiddler "${oneLine(title)}")` };
  const shown = text.length > READ_TEXT_LIMIT || offset > 0 ? part(text, offset) : text;
  const block = tiddlerBlock(fields, { full: true, text: shown, attributes: { view: 'pdf-text' } });
  return { content: `${UNTRUSTED_NOTE}\n${block}`, currentTiddler: title, read: { [title]: fingerprint(fields) } };
}

/** Longest text returned in one read. */
export const READ_TEXT_LIMIT = 40_000;

/**
 * The part of a long text one read returns, from `offset`, with a line before it saying how
 * much came before and a line after it saying how much more there is and where to read on
 * (text the write gate refuses to see written back: product-markers.ts).
 */
function part(text: string, offset: number): string {
  const start = Math.min(offset, text.length);
  const end = Math.min(text.length, start + READ_TEXT_LIMIT);
  const before = start > 0 ? `[… ${start} earlier characters not shown; read them with offset ${Math.max(0, start - READ_TEXT_LIMIT)}]\n` : '';
  const after = end < text.length ? `\n[… ${text.length - end} more characters not shown; read them with offset ${end}]` : '';
  return `${before}${text.slice(start, end)}${after}`;
}

/** The text, or as much of it as one read returns and a line saying how much more there is. */
function capped(text: string): string {
  return text.length > READ_TEXT_LIMIT ? `${text.slice(0, READ_TEXT_LIMIT)}\n[… ${text.length - READ_TEXT_LIMIT} more characters not shown]` : text;
}

/** Up to `max` visible titles sharing the most words with `title` (one title-only search). */
export function similarTitles(wiki: WikiPort, title: string, max = 5): string[] {
  const words = [
    ...new Set(
      title
        .toLowerCase()
        .split(/[^\S\xA0]+/)
        .filter((w) => w.length >= 2),
    ),
  ];
  if (!words.length) return [];
  const system = title.startsWith('$:/') ? '' : '!is[system]';
  const found = wiki.filter(`[all[tiddlers+shadows]${system}search:title:some<agent-words>]`, { 'agent-words': words.join(' ') });
  const scored = found
    .filter((t) => t !== title)
    .map((t) => {
      const lower = t.toLowerCase();
      return { t, score: words.filter((w) => lower.includes(w)).length, len: Math.abs(t.length - title.length) };
    });
  scored.sort((a, b) => b.score - a.score || a.len - b.len || (a.t < b.t ? -1 : 1));
  const out: string[] = [];
  for (const { t } of scored) {
    if (out.length >= max) break;
    if (!isHiddenFromAgent(t, wiki.getFields(t))) out.push(t);
  }
  return out;
}
