/*\
Words, for the text index: how a text splits into words (at line ends, Unicode spaces and
punctuation, lower-cased), and the table that numbers the words the index has met.

Indexing 100 MB means some 15 million words. Making a string of each to look it up in a Map
was most of a build; the table instead hashes a word while the text is scanned and compares it
in place, so a word it knows costs no string.
\*/

// Under Node, TiddlyWiki runs a module in a vm context where every global lookup is slow.
const { imul } = Math;
const HASH_START = 0x811c9dc5 | 0;
const HASH_PRIME = 16777619;

let separatorTable: Uint8Array | undefined;

/** 1 for each UTF-16 code unit that separates words. */
function separators(): Uint8Array {
  if (!separatorTable) {
    separatorTable = new Uint8Array(0x10000);
    const separator = /[\n\r\p{Z}\p{P}]/u;
    for (let c = 0; c < 0x10000; c++) if (separator.test(String.fromCharCode(c))) separatorTable[c] = 1;
  }
  return separatorTable;
}

/** Calls `each` with every word of `text`, lower-cased. */
export function eachWord(text: string, each: (word: string) => void): void {
  const table = separators();
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    if (i === lower.length || table[lower.charCodeAt(i)]) {
      if (start >= 0) each(lower.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
}

function hashOf(word: string): number {
  let hash = HASH_START;
  for (let i = 0; i < word.length; i++) hash = imul(hash ^ word.charCodeAt(i), HASH_PRIME);
  return hash;
}

/** The words met so far, numbered in the order met. */
export class WordTable {
  readonly words: string[] = [];
  private hashes = new Int32Array(1024);
  /** Open addressing: a word's number + 1 at its hash's slot or after; 0 is empty. */
  private slots = new Int32Array(4096);

  constructor(words: readonly string[] = []) {
    for (const word of words) this.add(word, hashOf(word));
  }

  get size(): number {
    return this.words.length;
  }

  idOf(word: string): number | undefined {
    const id = this.find(word, 0, word.length, hashOf(word));
    return id < 0 ? undefined : id;
  }

  /**
   * Calls `each` with the number of every word of `text` (words new to the table are added),
   * and returns how many words it holds.
   */
  eachWordId(text: string, each: (id: number) => void): number {
    const table = separators();
    const lower = text.toLowerCase();
    const end = lower.length;
    let start = -1;
    let hash = HASH_START;
    let count = 0;
    for (let i = 0; i <= end; i++) {
      const c = i === end ? 32 : lower.charCodeAt(i);
      if (table[c]) {
        if (start >= 0) {
          let id = this.find(lower, start, i, hash);
          if (id < 0) id = this.add(lower.slice(start, i), hash);
          each(id);
          count++;
        }
        start = -1;
      } else {
        if (start < 0) {
          start = i;
          hash = HASH_START;
        }
        hash = imul(hash ^ c, HASH_PRIME);
      }
    }
    return count;
  }

  /** The number of the word `text[start..end)`, or -1. */
  private find(text: string, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === 0) return -1;
      const id = held - 1;
      if (this.hashes[id] !== hash) continue;
      const word = this.words[id]!;
      if (word.length !== length) continue;
      let i = 0;
      while (i < length && word.charCodeAt(i) === text.charCodeAt(start + i)) i++;
      if (i === length) return id;
    }
  }

  private add(word: string, hash: number): number {
    const id = this.words.length;
    this.words.push(word);
    if (id >= this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[id] = hash;
    // At most half full, so a probe ends soon.
    if (this.words.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(id);
    return id;
  }

  private rehash(capacity: number): void {
    this.slots = new Int32Array(capacity);
    for (let id = 0; id < this.words.length; id++) this.place(id);
  }

  private place(id: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[id]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id + 1;
  }
}
