/*\
Cuts a tiddler into the pieces that are embedded: paragraphs merged up to about
CHUNK_CHARS characters (a few hundred tokens), an over-long paragraph cut at a sentence or a
word, each piece with the title in front so a chunk alone still says what it is about. The
same text always gives the same chunks, so a search hit's chunk number finds its snippet
again without storing the text. A fingerprint of title and text says when to embed again.
\*/

/** About 300 tokens of English. */
export const CHUNK_CHARS = 1200;
/** A huge tiddler is embedded by its beginning only: memory stays bounded per tiddler. */
export const MAX_CHUNKS = 24;

/** The pieces of `text` (without the title), in order; at least one for a non-empty tiddler. */
export function chunkText(text: string, size = CHUNK_CHARS): string[] {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const chunks: string[] = [];
  let current = '';
  for (const paragraph of paragraphs.flatMap((p) => cutLong(p, size))) {
    if (current && current.length + 1 + paragraph.length > size) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${paragraph}` : paragraph;
    if (chunks.length >= MAX_CHUNKS) break;
  }
  if (current && chunks.length < MAX_CHUNKS) chunks.push(current);
  return chunks;
}

/** What is embedded for each chunk: the title, a blank line, the chunk. A tiddler with no text is its title. */
export function chunkTiddler(title: string, text: string): string[] {
  const chunks = chunkText(text);
  return chunks.length ? chunks.map((c) => `${title}\n\n${c}`) : [title];
}

/** A paragraph longer than `size`, cut at the last sentence end (else space) before each limit. */
function cutLong(paragraph: string, size: number): string[] {
  const parts: string[] = [];
  let rest = paragraph;
  while (rest.length > size) {
    const head = rest.slice(0, size);
    const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
    const space = head.lastIndexOf(' ');
    const at = sentence > size / 2 ? sentence + 1 : space > size / 2 ? space : size;
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

/** A 53-bit hash (two FNV-1a passes) of title and text, as a short string: equal means "embedded already". */
export function fingerprint(title: string, text: string): string {
  const s = `${title}\u0000${text}`;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return `${(a >>> 0).toString(36)}.${((b >>> 0) & 0x1fffff).toString(36)}`;
}
