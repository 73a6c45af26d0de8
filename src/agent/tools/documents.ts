/*\
Documents the agent reads as text: a PDF tiddler (type application/pdf, its text base64, as
TiddlyWiki stores a dropped or imported PDF). Its pages' text is extracted once by the host
(runner/host/pdf-text.ts, WikiPort.documentText) and shown page by page, each page after a
`[page N]` line, so the agent (and a citation) can name the page. A PDF with pages but no text
on any is a scan without a text layer, and is said to be so; a PDF that cannot be read gives
its reason. Nothing here touches $tw or the DOM.
\*/
import { chunkText } from '../search/chunks';
import type { DocumentText, TiddlerFields } from '../store/wiki-port';

export type { DocumentText };

export const PDF_TYPE = 'application/pdf';

/** A PDF tiddler whose bytes are in the wiki (base64 text), so it can be read. */
export function isPdfTiddler(fields: TiddlerFields | undefined): boolean {
  return !!fields && fields.type === PDF_TYPE;
}

/** True when no page of it has any text: a scan, or images only. */
export function hasNoTextLayer(pages: string[]): boolean {
  return pages.every((page) => !page.trim());
}

/** What a PDF with no text layer says instead of its text. */
export function noTextLayerLine(pages: number): string {
  return `(this PDF has no text layer (scanned?): ${pages} page${pages === 1 ? '' : 's'}, no text to read)`;
}

/** The pages' text, each page after a `[page N]` line, pages separated by a blank line. */
export function pagedText(pages: string[]): string {
  return pages.map((text, i) => `[page ${i + 1}]\n${text}`).join('\n\n');
}

/** The text of a document as the agent reads it: its pages with markers, or a line saying why there is none. */
export function documentReading(pdf: DocumentText): { text: string; problem?: string } {
  if ('problem' in pdf) return { text: '', problem: `This PDF cannot be read: ${pdf.problem}.` };
  if (hasNoTextLayer(pdf.pages)) return { text: noTextLayerLine(pdf.pages.length) };
  return { text: pagedText(pdf.pages) };
}

/** The first page (1-based) whose text holds one of `words` as a word or a word's start, or undefined. */
export function pageWith(pages: string[], words: string[]): number | undefined {
  const escaped = words.filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!escaped.length) return undefined;
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})`, 'iu');
  const at = pages.findIndex((page) => re.test(page));
  return at < 0 ? undefined : at + 1;
}

/** Base64 (a PDF tiddler's text) to bytes; throws on text that is not base64. */
export function base64Bytes(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new Error('its text is not base64');
  const binary = atob(clean);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The pieces of a PDF that are embedded for search by meaning: each page cut as a tiddler's
 * text is (search/chunks.ts), each piece starting `[page N]`, at most MAX_PDF_CHUNKS (a long
 * PDF is embedded by its first pages).
 */
export function pdfChunks(pages: string[]): { page: number; text: string }[] {
  const out: { page: number; text: string }[] = [];
  pages.forEach((page, i) => {
    for (const chunk of chunkText(page)) if (out.length < MAX_PDF_CHUNKS) out.push({ page: i + 1, text: `[page ${i + 1}] ${chunk}` });
  });
  return out;
}

/** About 150 pages of a text PDF. */
export const MAX_PDF_CHUNKS = 200;

/** An attached PDF in the prompt: where its text is (read when needed, not put in every prompt). */
export const PDF_ATTACHED = '(a PDF: read its text with wiki-read, each page after a [page N] line; cite it by title and page)';
