/*\
Images for the model: which tiddlers are images a model can look at (png, jpeg, gif, webp;
TiddlyWiki keeps their bytes in `text` as base64), and the check every image passes before it
goes into a request, wherever it comes from (an attachment, wiki-read, an MCP server): real
base64, at most MAX_IMAGE_BYTES once decoded, and bytes that begin like one of the four
formats. The media type sent is the one the bytes show, so a JPEG saved as image/png is sent
as what it is (providers refuse a type that does not match the data).
SVG is text (wikitext-like XML), never an image part.
\*/
import type { TiddlerFields } from '../store/wiki-port';

export interface ImageData {
  mediaType: string;
  /** base64, without a `data:` prefix */
  data: string;
}

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * The largest image sent, decoded: 5 MB is Anthropic's per-image limit, the smallest of the
 * providers (OpenAI takes 20 MB, Gemini 20 MB per request), so an image that passes here is
 * not refused by any of them for its size.
 */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** A tiddler whose type is one of the four image types a model can be shown. */
export function isImageTiddler(fields: TiddlerFields | undefined): boolean {
  return !!fields && (IMAGE_TYPES as readonly string[]).includes((fields.type ?? '').trim().toLowerCase());
}

/** The image of an image tiddler, or why it cannot be sent (stored outside the wiki, too big, not an image). */
export function tiddlerImage(title: string, fields: TiddlerFields): { image: ImageData } | { problem: string } {
  const uri = fields._canonical_uri;
  if (uri && !(fields.text ?? '').trim())
    return { problem: `The image "${title}" is stored outside the wiki (_canonical_uri ${uri}); it is not fetched, so it is not shown.` };
  const checked = checkImage(fields.text ?? '');
  return 'problem' in checked ? { problem: `The image "${title}" cannot be sent: ${checked.problem}` } : checked;
}

/** Check base64 image data; the image with the media type its bytes show, or the problem. */
export function checkImage(base64: string): { image: ImageData } | { problem: string } {
  const data = base64.replace(/\s+/g, '');
  if (!data) return { problem: 'it is empty.' };
  // A search for one bad character, not a match of the whole string: V8's backtracking runs out
  // of stack on a `^[…]+$` over megabytes.
  const body = data.replace(/={1,2}$/, '');
  if (data.length % 4 !== 0 || /[^A-Za-z0-9+/]/.test(body)) return { problem: 'its content is not valid base64, so it is not an image.' };
  const bytes = imageBytes(data);
  if (bytes > MAX_IMAGE_BYTES) return { problem: `it is ${sizeText(bytes)}, more than the ${sizeText(MAX_IMAGE_BYTES)} an image may have.` };
  const mediaType = sniff(decodeHead(data));
  if (!mediaType) return { problem: 'its bytes are not a PNG, JPEG, GIF or WebP image.' };
  return { image: { mediaType, data } };
}

/** The decoded size of valid base64 data. */
export function imageBytes(data: string): number {
  return (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

/** e.g. "740 KB", "5.2 MB"; rounded up, so a size over a limit never reads as the limit. */
export function sizeText(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.ceil(bytes / 1024))} KB`;
  return `${String(Math.ceil((bytes / (1024 * 1024)) * 10) / 10)} MB`;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first 12 bytes of valid base64 (no atob: it is not in every sandbox the engine runs in). */
function decodeHead(data: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 4 <= Math.min(data.length, 16); i += 4) {
    const n = [0, 1, 2, 3].map((k) => Math.max(0, ALPHABET.indexOf(data[i + k]!)));
    out.push((n[0]! << 2) | (n[1]! >> 4), ((n[1]! & 15) << 4) | (n[2]! >> 2), ((n[2]! & 3) << 6) | n[3]!);
  }
  return out;
}

function sniff(b: number[]): string | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.slice(from, to));
  if (b[0] === 0x89 && ascii(1, 8) === 'PNG\r\n\x1a\n') return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
