/*\
A text index as bytes, to keep between runs (the server edition keeps it beside the wiki).
Its posting lists are typed arrays, written as they lie in memory and read back as views of the
bytes, so loading the index of 100,000 tiddlers costs a JSON parse of its titles and words, not
a rebuild.

Layout: "TXI" and a format byte; a uint32 byte order mark; the uint32 length of a UTF-8 JSON
head (titles, fingerprints, words, list sizes); padding to 4 bytes; then uint32 arrays: per
field the word counts of every document, per field the list offsets (words + 1) and the lists.
\*/
import { FIELDS, TextIndex, type TextIndexSnapshot } from './text-index';

/** Bumped whenever the layout or what it holds changes: an index of another format is rebuilt. */
export const SAVED_INDEX_FORMAT = 2;
const MAGIC = [0x54, 0x58, 0x49, SAVED_INDEX_FORMAT];
const BYTE_ORDER = 0x01020304;

interface Head {
  titles: string[];
  prints: string[];
  words: string[];
  sizes: number[];
}

export function encodeTextIndex(index: TextIndex): Uint8Array {
  const s = index.snapshot();
  const head = new TextEncoder().encode(
    JSON.stringify({ titles: s.titles, prints: s.prints, words: s.words, sizes: s.postings.data.map((d) => d.length) } satisfies Head),
  );
  const headEnd = align(12 + head.length);
  const arrays = [...s.lengths, ...s.postings.offsets.flatMap((offsets, f) => [offsets, s.postings.data[f]!])];
  const bytes = new Uint8Array(headEnd + arrays.reduce((sum, a) => sum + a.byteLength, 0));
  bytes.set(MAGIC, 0);
  const view = new DataView(bytes.buffer);
  new Uint32Array(bytes.buffer, 4, 1)[0] = BYTE_ORDER;
  view.setUint32(8, head.length, true);
  bytes.set(head, 12);
  let at = headEnd;
  for (const array of arrays) {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  return bytes;
}

/** The index `encodeTextIndex` wrote; throws with a plain reason on anything else. */
export function decodeTextIndex(input: Uint8Array): TextIndex {
  if (input.length < 12 || MAGIC.some((b, i) => input[i] !== b)) throw new Error('it is not a saved search index of this version');
  // Typed views need 4-byte alignment (a Node Buffer may start anywhere in its pool).
  const bytes = input.byteOffset % 4 ? input.slice() : input;
  if (new Uint32Array(bytes.buffer, bytes.byteOffset + 4, 1)[0] !== BYTE_ORDER) throw new Error('it was saved on a machine of another byte order');
  const headLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  if (12 + headLength > bytes.length) throw new Error('it is cut short');
  const head = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headLength))) as Head;
  const docs = head.titles.length;
  let at = align(12 + headLength);
  const take = (count: number) => {
    if (at + count * 4 > bytes.length) throw new Error('it is cut short');
    const array = new Uint32Array(bytes.buffer, bytes.byteOffset + at, count);
    at += count * 4;
    return array;
  };
  const lengths = Array.from({ length: FIELDS }, () => take(docs));
  const offsets: Uint32Array[] = [];
  const data: Uint32Array[] = [];
  for (let f = 0; f < FIELDS; f++) {
    offsets.push(take(head.words.length + 1));
    data.push(take(head.sizes[f]!));
    if (offsets[f]![head.words.length] !== head.sizes[f]) throw new Error('its word lists do not add up');
  }
  if (head.prints.length !== docs) throw new Error('its fingerprints do not match its titles');
  const snapshot: TextIndexSnapshot = { titles: head.titles, prints: head.prints, words: head.words, lengths, postings: { offsets, data } };
  return TextIndex.fromSnapshot(snapshot);
}

function align(n: number): number {
  return (n + 3) & ~3;
}
