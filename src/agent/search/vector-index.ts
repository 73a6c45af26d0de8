/*\
The vector index: every chunk's embedding in one flat Float32Array (rows of `dims` numbers,
normalized, so cosine similarity is a dot product), a scan for the top k, and per tiddler
its rows and the fingerprint of what was embedded. A flat scan is enough at this size: 10,000
tiddlers of 384 dimensions are 15 MB and a query is a few milliseconds; no library needed.

Serialized as one binary blob: "TAVI", a JSON header (format version, model, dimensions, row
count, the tiddlers), then the rows. `VectorIndex.load` checks all of it and answers why a
blob is refused (corrupt, another format, another model or size), so the caller rebuilds
instead of trusting it.
\*/

/** Bump when the layout or the chunking changes: older files are rebuilt. */
export const INDEX_FORMAT = 1;
const MAGIC = 0x49564154; // "TAVI" little-endian

interface Entry {
  fingerprint: string;
  rows: number[];
}

export interface VectorHit {
  title: string;
  /** Cosine similarity of the tiddler's best chunk. */
  score: number;
  /** That chunk's number (search/chunks.ts). */
  chunk: number;
}

export class VectorIndex {
  private data: Float32Array;
  /** Per row: the owner's slot in `owners`, or -1 for a free row. */
  private rowOwner: Int32Array;
  private free: number[] = [];
  private rowsUsed = 0;
  private entries = new Map<string, Entry>();
  /** Slot -> title, for the scan (a number per row is cheaper than a string). */
  private owners: (string | undefined)[] = [];
  private slots = new Map<string, number>();

  constructor(
    readonly model: string,
    readonly dims: number,
    capacity = 256,
  ) {
    if (!(dims > 0) || !Number.isInteger(dims)) throw new Error(`A vector index needs a whole number of dimensions, not ${dims}.`);
    this.data = new Float32Array(capacity * dims);
    this.rowOwner = new Int32Array(capacity).fill(-1);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes of vector storage held (the arena, used or not). */
  get bytes(): number {
    return this.data.byteLength + this.rowOwner.byteLength;
  }

  fingerprintOf(title: string): string | undefined {
    return this.entries.get(title)?.fingerprint;
  }

  titles(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Replace a tiddler's vectors (one per chunk, in chunk order). Sizes are checked by the caller. */
  set(title: string, fingerprint: string, vectors: Float32Array[]): void {
    this.delete(title);
    let slot = this.slots.get(title);
    if (slot === undefined) {
      slot = this.owners.length;
      this.owners.push(title);
      this.slots.set(title, slot);
    }
    const rows = vectors.map((v) => {
      if (v.length !== this.dims) throw new Error(`A vector of ${v.length} dimensions does not fit an index of ${this.dims}.`);
      const row = this.allocate();
      this.rowOwner[row] = slot;
      const norm = length(v) || 1;
      const base = row * this.dims;
      for (let i = 0; i < this.dims; i++) this.data[base + i] = v[i]! / norm;
      return row;
    });
    this.entries.set(title, { fingerprint, rows });
  }

  delete(title: string): boolean {
    const entry = this.entries.get(title);
    if (!entry) return false;
    for (const row of entry.rows) {
      this.rowOwner[row] = -1;
      this.free.push(row);
    }
    this.entries.delete(title);
    return true;
  }

  /** The k tiddlers whose best chunk is closest to `query`, best first; `accept` filters titles. */
  search(query: Float32Array, k: number, accept: (title: string) => boolean = () => true): VectorHit[] {
    if (query.length !== this.dims) throw new Error(`The query vector has ${query.length} dimensions, the index ${this.dims}.`);
    const norm = length(query) || 1;
    const q = query.map((x) => x / norm);
    const best = new Float32Array(this.owners.length).fill(-Infinity);
    const bestRow = new Int32Array(this.owners.length);
    const dims = this.dims;
    const data = this.data;
    for (let row = 0; row < this.rowsUsed; row++) {
      const owner = this.rowOwner[row]!;
      if (owner < 0) continue;
      let dot = 0;
      const base = row * dims;
      for (let i = 0; i < dims; i++) dot += data[base + i]! * q[i]!;
      if (dot > best[owner]!) {
        best[owner] = dot;
        bestRow[owner] = row;
      }
    }
    const order: number[] = [];
    for (let slot = 0; slot < best.length; slot++) if (best[slot] !== -Infinity) order.push(slot);
    order.sort((a, b) => best[b]! - best[a]!);
    // `accept` runs best first and only until k are found: it may cost a lookup per title.
    const hits: VectorHit[] = [];
    for (const slot of order) {
      if (hits.length >= k) break;
      const title = this.owners[slot]!;
      if (accept(title)) hits.push({ title, score: best[slot]!, chunk: this.entries.get(title)!.rows.indexOf(bestRow[slot]!) });
    }
    return hits;
  }

  /** The whole index as one blob (rows compacted, tiddlers in insertion order). */
  serialize(): ArrayBuffer {
    const tiddlers: [string, string, number][] = [];
    let count = 0;
    for (const [title, entry] of this.entries) {
      tiddlers.push([title, entry.fingerprint, entry.rows.length]);
      count += entry.rows.length;
    }
    const header = new TextEncoder().encode(JSON.stringify({ format: INDEX_FORMAT, model: this.model, dims: this.dims, count, tiddlers }));
    const headerEnd = align4(8 + header.byteLength);
    const buffer = new ArrayBuffer(headerEnd + count * this.dims * 4);
    const view = new DataView(buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, header.byteLength, true);
    new Uint8Array(buffer, 8, header.byteLength).set(header);
    const out = new Float32Array(buffer, headerEnd);
    let at = 0;
    for (const entry of this.entries.values()) {
      for (const row of entry.rows) {
        out.set(this.data.subarray(row * this.dims, (row + 1) * this.dims), at);
        at += this.dims;
      }
    }
    return buffer;
  }

  /**
   * The index in `blob` if it is whole and was made by this format for `model`; otherwise why
   * not. `dims`, when known, must match too (a model whose vectors changed size).
   */
  static load(blob: ArrayBuffer | Uint8Array, model: string, dims?: number): { index: VectorIndex } | { problem: string } {
    // Not `instanceof`: under Node the plugin's realm (a vm context) has its own Uint8Array.
    const bytes = ArrayBuffer.isView(blob) ? new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength) : new Uint8Array(blob);
    // The rows are read as a Float32Array: copy to an aligned buffer first.
    const buffer = bytes.byteOffset % 4 === 0 ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) : bytes.slice().buffer;
    if (buffer.byteLength < 8) return { problem: 'the file is too short to be an index' };
    const view = new DataView(buffer);
    if (view.getUint32(0, true) !== MAGIC) return { problem: 'the file is not a TiddlyAgent vector index' };
    const headerLength = view.getUint32(4, true);
    if (8 + headerLength > buffer.byteLength) return { problem: 'the file is cut short' };
    let header: { format?: unknown; model?: unknown; dims?: unknown; count?: unknown; tiddlers?: unknown };
    try {
      header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(buffer, 8, headerLength)));
    } catch {
      return { problem: 'its header is damaged' };
    }
    if (header.format !== INDEX_FORMAT) return { problem: `it was made by another version (format ${String(header.format)}, this one reads ${INDEX_FORMAT})` };
    if (header.model !== model) return { problem: `it holds vectors of the model "${String(header.model)}", not "${model}"` };
    const d = header.dims;
    const count = header.count;
    if (typeof d !== 'number' || !Number.isInteger(d) || d <= 0 || typeof count !== 'number' || !Number.isInteger(count) || count < 0)
      return { problem: 'its header is damaged' };
    if (dims !== undefined && d !== dims) return { problem: `its vectors have ${d} dimensions, the model now gives ${dims}` };
    const tiddlers = header.tiddlers;
    if (!Array.isArray(tiddlers) || !tiddlers.every(isEntry) || tiddlers.reduce((n, t) => n + t[2], 0) !== count) return { problem: 'its header is damaged' };
    const headerEnd = align4(8 + headerLength);
    if (buffer.byteLength !== headerEnd + count * d * 4) return { problem: 'its size does not match its header (cut short or damaged)' };
    const rows = new Float32Array(buffer, headerEnd);
    for (let i = 0; i < rows.length; i++) if (!Number.isFinite(rows[i]!)) return { problem: 'it holds numbers that are not finite (damaged)' };
    const index = new VectorIndex(model, d, Math.max(count, 1));
    let at = 0;
    for (const [title, fp, n] of tiddlers) {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < n; i++, at += d) vectors.push(rows.subarray(at, at + d));
      index.set(title, fp, vectors);
    }
    return { index };
  }

  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if (this.rowsUsed === this.rowOwner.length) {
      const capacity = this.rowOwner.length * 2;
      const data = new Float32Array(capacity * this.dims);
      data.set(this.data);
      this.data = data;
      const owner = new Int32Array(capacity).fill(-1);
      owner.set(this.rowOwner);
      this.rowOwner = owner;
    }
    return this.rowsUsed++;
  }
}

function isEntry(t: unknown): t is [string, string, number] {
  return (
    Array.isArray(t) &&
    t.length === 3 &&
    typeof t[0] === 'string' &&
    typeof t[1] === 'string' &&
    typeof t[2] === 'number' &&
    Number.isInteger(t[2]) &&
    t[2] >= 0
  );
}

function length(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return Math.sqrt(sum);
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
