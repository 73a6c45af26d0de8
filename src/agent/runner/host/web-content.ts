/*\
What both web fetchers do with a response once it is read: refuse binary content, decode the
bytes with the declared (or sniffed) character set, and turn HTML into readable Markdown:
Mozilla's Readability picks the main content, turndown converts it; scripts, styles, frames
and forms are gone, links kept (only http, https and mailto targets), images reduced to their
alt text. The document comes from jsdom (Node, scripts off, nothing loaded) or the browser's
DOMParser (an inert document). Readability and turndown are required on first use, so they
cost nothing at start-up.
\*/
import type { WebPage } from '../../tools/web-fetcher';

/** A web-fetch failure whose message is for the model and the user. */
export class WebFetchError extends Error {}

/** A fetch's own abort: the caller's signal (Stop, the tool's time limit) or `timeoutMs`, whichever comes first. */
export function fetchDeadline(
  caller: AbortSignal,
  timeoutMs: number,
): { signal: AbortSignal; abort(): void; timedOut(): boolean; end(): void; failure(e: unknown, url: string): WebFetchError } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  caller.addEventListener('abort', onAbort, { once: true });
  if (caller.aborted) controller.abort();
  return {
    signal: controller.signal,
    abort: () => controller.abort(),
    timedOut: () => timedOut,
    /** What a fetch that threw tells the model: the time limit, Stop, or the error itself. */
    failure(e: unknown, url: string): WebFetchError {
      if (timedOut) return new WebFetchError(`${url} did not finish loading within ${Math.round(timeoutMs / 1000)} s (the time limit).`);
      if (caller.aborted) return new WebFetchError('The fetch was stopped.');
      if (e instanceof WebFetchError) return e;
      return new WebFetchError(`${url} could not be read: ${e instanceof Error ? e.message : String(e)}`);
    },
    end() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}

export interface ParsedContentType {
  mime: string;
  charset?: string;
}

export function parseContentType(header: string | null | undefined): ParsedContentType {
  const [mime = '', ...params] = (header ?? '').split(';');
  const out: ParsedContentType = { mime: mime.trim().toLowerCase() };
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p);
    if (m) out.charset = m[1]!.toLowerCase();
  }
  return out;
}

export type TextKind = 'html' | 'text';

/** How a MIME type is read, or undefined when web-fetch does not read it (binary). */
export function textKind(mime: string): TextKind | undefined {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime.startsWith('text/')) return 'text';
  if (/^application\/([\w.-]+\+)?(json|xml)$/.test(mime) || mime === 'application/javascript' || mime === 'application/x-ndjson') return 'text';
  return undefined;
}

/** A look at the bytes: NUL bytes in the first kilobyte mean binary (images, archives, PDFs). */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 1024);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** The character set: a BOM, then the Content-Type header, then an HTML <meta>, then UTF-8. */
export function pickCharset(bytes: Uint8Array, type: ParsedContentType, kind: TextKind): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (type.charset) return type.charset;
  if (kind === 'html') {
    let head = '';
    for (let i = 0; i < Math.min(bytes.length, 4096); i++) head += String.fromCharCode(bytes[i]!);
    const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
    if (m) return m[1]!.toLowerCase();
  }
  return 'utf-8';
}

/** Decode, or a clear error when the character set is unknown; replaced bytes are noted. */
export function decodeText(bytes: Uint8Array, charset: string, notes: string[]): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    throw new WebFetchError(`The page declares the character set "${charset}", which web-fetch cannot decode.`);
  }
  // Some runtimes (Node before 23) decode windows-1252 as ISO-8859-1: 0x80–0x9F by hand.
  if (decoder.encoding === 'windows-1252') return decodeWindows1252(bytes);
  try {
    return decoder.decode(bytes);
  } catch {
    notes.push(`Some bytes were not valid ${charset} and were replaced with "\uFFFD".`);
    return new TextDecoder(charset).decode(bytes);
  }
}

// 0x80–0x9F in windows-1252 (0 where the byte is undefined there and maps to its C1 control).
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
  0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const codes = Array.from(bytes.subarray(i, i + 8192), (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] || b : b));
    out += String.fromCharCode(...codes);
  }
  return out;
}

interface ReadabilityCtor {
  new (
    doc: Document,
    options?: { serializer?: (el: Node) => unknown; charThreshold?: number },
  ): { parse(): { title?: string | null; content?: unknown } | null };
}
interface TurndownRule {
  filter: string | string[] | ((node: HTMLElement) => boolean);
  replacement(content: string, node: HTMLElement): string;
}
interface TurndownService {
  remove(filter: string[]): unknown;
  addRule(key: string, rule: TurndownRule): unknown;
  turndown(input: Node): string;
}
type TurndownCtor = new (options: Record<string, string>) => TurndownService;

const DROP = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'svg',
  'canvas',
  'form',
  'button',
  'select',
  'input',
  'textarea',
  'link',
  'meta',
  'base',
];

let turndown: TurndownService | undefined;

function converter(): TurndownService {
  if (turndown) return turndown;
  const Turndown = require('turndown') as TurndownCtor;
  const service = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  service.remove(DROP);
  service.addRule('safe-links', {
    filter: (node) => node.nodeName === 'A',
    replacement(content, node) {
      const href = node.getAttribute('href') ?? '';
      const text = content.trim();
      if (!/^(https?:|mailto:)/i.test(href)) return text;
      return text ? `[${text}](${href.replace(/[()\s]/g, encodeURIComponent)})` : '';
    },
  });
  service.addRule('image-alt', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node.getAttribute('alt') ?? '').trim();
      return alt ? `[image: ${alt}]` : '';
    },
  });
  turndown = service;
  return service;
}

/**
 * Readable Markdown of an HTML document: `doc` is inert (jsdom without scripts, or DOMParser);
 * it is changed. Relative links become absolute against `url`.
 */
export function documentToMarkdown(doc: Document, url: string): { title: string; text: string } {
  for (const el of Array.from(doc.querySelectorAll(DROP.join(',')))) el.remove();
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    try {
      a.setAttribute('href', new URL(a.getAttribute('href')!, url).href);
    } catch {
      a.removeAttribute('href');
    }
  }
  const fallbackTitle = (doc.title ?? '').trim();
  const { Readability } = require('@mozilla/readability') as { Readability: ReadabilityCtor };
  let article: { title?: string | null; content?: unknown } | null = null;
  try {
    article = new Readability(doc.cloneNode(true) as Document, { serializer: (el) => el, charThreshold: 100 }).parse();
  } catch {
    article = null;
  }
  const root = (article?.content as Node | undefined) ?? doc.body ?? doc.documentElement;
  const text = root
    ? converter()
        .turndown(root)
        .replace(/\n{3,}/g, '\n\n')
        .trim()
    : '';
  return { title: (article?.title ?? '').trim() || fallbackTitle, text };
}

/** The page from its decoded text: HTML through `parseHtml` and documentToMarkdown, other text as it is. */
export function toPage(url: string, body: string, kind: TextKind, notes: string[], parseHtml: (html: string, url: string) => Document): WebPage {
  if (kind !== 'html') return { url, title: '', text: body, notes };
  const { title, text } = documentToMarkdown(parseHtml(body, url), url);
  return { url, title, text, notes };
}

/** The body of a response (any web ReadableStream or Node stream of bytes), at most `maxBytes`. */
export async function readCapped(chunks: AsyncIterable<Uint8Array>, maxBytes: number, stop: () => void): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const parts: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of chunks) {
    if (size + chunk.length > maxBytes) {
      parts.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      stop();
      break;
    }
    parts.push(chunk);
    size += chunk.length;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    bytes.set(p, offset);
    offset += p.length;
  }
  return { bytes, truncated };
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB` : `${Math.round(n / 1024)} KB`;
}

/** From bytes to a page: binary and unknown charsets refused, a cut body noted. */
export function bytesToPage(
  url: string,
  bytes: Uint8Array,
  contentType: string | null,
  truncated: boolean,
  maxBytes: number,
  parseHtml: (html: string, url: string) => Document,
): WebPage {
  const type = parseContentType(contentType);
  const kind = type.mime ? textKind(type.mime) : looksBinary(bytes) ? undefined : 'text';
  if (!kind)
    throw new WebFetchError(`${url} is ${type.mime || 'binary content'}, not a text page: web-fetch reads HTML, plain text, Markdown, JSON and XML only.`);
  if (looksBinary(bytes) && !/^utf-16/.test(pickCharset(bytes, type, kind)))
    throw new WebFetchError(`${url} says it is ${type.mime} but holds binary data: web-fetch reads text pages only.`);
  const notes: string[] = [];
  if (truncated) notes.push(`The page is larger than ${formatBytes(maxBytes)}; only its first ${formatBytes(maxBytes)} were read.`);
  const text = decodeText(bytes, pickCharset(bytes, type, kind), notes);
  return toPage(url, text, kind, notes, parseHtml);
}
