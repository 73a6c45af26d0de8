/*\
Where two texts differ, for people and for the model: a line diff (Myers), each changed block
diffed again word by word, and the changed regions with a few lines of context around each.
The approval card and the turn diff show the regions first and the whole text on request
(ui/change-view.ts); a write the user edited before allowing it tells the model what the user
changed (wiki-write-tools.ts).

The cost stays small on long texts: the common start and end are skipped before diffing, and
a diff that would need more than a bounded number of edits gives up and reports the rest as one
replaced block (a text rewritten from end to end reads that way anyway). Pure: no $tw, no DOM.
\*/

export type PieceKind = 'same' | 'removed' | 'added';

/** A run of text that both sides share, or that only one side has. */
export interface Piece {
  kind: PieceKind;
  text: string;
}

/** One changed place, with its context, as the card shows it. */
export interface Region {
  /** The line (1-based) of the new text where the change starts. */
  line: number;
  /** Context, the change word by word, context; long unchanged runs are cut with "…". */
  pieces: Piece[];
  /** The changed lines, whole: those taken out and those put in. */
  removed: string[];
  added: string[];
  /** The region was longer than the size asked for: the rest is only in the whole text. */
  truncated: boolean;
}

export interface RegionOptions {
  /** Unchanged lines shown before and after each change (default 2). */
  context?: number;
  /** Characters an unchanged run keeps at each end when it is cut (default 120). */
  clip?: number;
  /** Characters a region shows at most (default 1200). */
  maxChars?: number;
}

type Op = { kind: PieceKind; a: number; b: number };

/** Edits a diff may need before it gives up (lines, and words within a changed block). */
const MAX_LINE_EDITS = 1000;
const MAX_WORD_EDITS = 400;
/** A change longer than this (characters, both sides) is shown taken out and put in whole. */
const MAX_WORD_CHARS = 30_000;

/**
 * The shortest edit script from `a` to `b` (Myers' O(ND) algorithm), or null when it needs more
 * than `maxEdits` edits. Each step keeps only the diagonals it reached, so memory is O(D²).
 */
function myers(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  const shared = sharedCount(a, b);
  if (n + m - 2 * shared > maxEdits) return null; // it cannot take fewer edits than that
  if (!shared) return [...a.map((_, i): Op => ({ kind: 'removed', a: i, b: 0 })), ...b.map((_, j): Op => ({ kind: 'added', a: n, b: j }))];
  const limit = Math.min(n + m, maxEdits);
  const trace: Int32Array[] = [];
  let v = new Int32Array(3); // diagonals -1..1 of step 0, offset by 1
  let prevOffset = 1;
  for (let d = 0; d <= limit; d++) {
    const next = new Int32Array(2 * d + 1);
    const at = (k: number) => v[k + prevOffset]!;
    for (let k = -d; k <= d; k += 2) {
      let x = d === 0 ? 0 : k === -d || (k !== d && at(k - 1) < at(k + 1)) ? at(k + 1) : at(k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[k + d] = x;
      if (x >= n && y >= m) {
        trace.push(next);
        return backtrack(trace, n, m);
      }
    }
    trace.push(next);
    v = next;
    prevOffset = d;
  }
  return null;
}

/** How many items the two sequences could have in common at most (as multisets). */
function sharedCount(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const item of a) counts.set(item, (counts.get(item) ?? 0) + 1);
  let shared = 0;
  for (const item of b) {
    const left = counts.get(item);
    if (left) {
      shared++;
      counts.set(item, left - 1);
    }
  }
  return shared;
}

function backtrack(trace: Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const v = trace[d - 1]!;
    const at = (k: number) => v[k + d - 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ kind: 'same', a: --x, b: --y });
    if (x === prevX) ops.push({ kind: 'added', a: x, b: --y });
    else ops.push({ kind: 'removed', a: --x, b: y });
  }
  while (x > 0 && y > 0) ops.push({ kind: 'same', a: --x, b: --y });
  return ops.reverse();
}

/** The edit script of two sequences: their common start and end skipped, the middle diffed (or replaced whole). */
function diffSequences(a: readonly string[], b: readonly string[], maxEdits: number): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = [];
  for (let i = 0; i < start; i++) ops.push({ kind: 'same', a: i, b: i });
  const middle = myers(a.slice(start, endA), b.slice(start, endB), maxEdits);
  if (middle) for (const op of middle) ops.push({ kind: op.kind, a: op.a + start, b: op.b + start });
  else {
    for (let i = start; i < endA; i++) ops.push({ kind: 'removed', a: i, b: start });
    for (let j = start; j < endB; j++) ops.push({ kind: 'added', a: endA, b: j });
  }
  for (let i = 0; i < a.length - endA; i++) ops.push({ kind: 'same', a: endA + i, b: endB + i });
  return ops;
}

/** A text's lines; the empty text has none. */
function lines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/** Words, runs of spaces and single other characters: the units of a word diff. */
function tokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? [];
}

/** Append a piece, joining it to the last one when they are of the same kind. */
function push(pieces: Piece[], kind: PieceKind, text: string): void {
  if (!text) return;
  const last = pieces[pieces.length - 1];
  if (last && last.kind === kind) last.text += text;
  else pieces.push({ kind, text });
}

/** A word diff as it is read: unchanged runs and the changes between them (taken out, put in). */
type Segment = { same: string } | { removed: string; added: string };

/**
 * Two texts word by word: unchanged runs, and each change as what was taken out, then what was
 * put in. An unchanged run between two changes that is no longer than either of them joins
 * them (as diff-match-patch's semantic clean-up does), so a rewritten phrase reads as one change,
 * not as a comb of words that happen to recur ("the", "and", a comma).
 */
export function diffWords(before: string, after: string): Piece[] {
  // The common start and end are found on the characters (back to a word's edge), so a long
  // line with a small change costs only the change.
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  while (start > 0 && /[\p{L}\p{N}_]/u.test(before[start - 1]!) && /[\p{L}\p{N}_]/u.test(before[start] ?? after[start] ?? '')) start--;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  while (end > 0 && /[\p{L}\p{N}_]/u.test(before[before.length - end]!) && /[\p{L}\p{N}_]/u.test(before[before.length - end - 1] ?? '')) end--;
  const middleBefore = before.slice(start, before.length - end);
  const middleAfter = after.slice(start, after.length - end);
  const segments: Segment[] =
    middleBefore.length + middleAfter.length > MAX_WORD_CHARS
      ? [{ removed: middleBefore, added: middleAfter }]
      : joinChanges(wordSegments(tokens(middleBefore), tokens(middleAfter)));
  const pieces: Piece[] = [];
  push(pieces, 'same', before.slice(0, start));
  for (const segment of segments) {
    if ('same' in segment) push(pieces, 'same', segment.same);
    else {
      push(pieces, 'removed', segment.removed);
      push(pieces, 'added', segment.added);
    }
  }
  push(pieces, 'same', before.slice(before.length - end));
  return pieces;
}

function wordSegments(a: readonly string[], b: readonly string[]): Segment[] {
  const segments: Segment[] = [];
  for (const op of diffSequences(a, b, MAX_WORD_EDITS)) {
    const last = segments[segments.length - 1];
    if (op.kind === 'same') {
      if (last && 'same' in last) last.same += a[op.a];
      else segments.push({ same: a[op.a]! });
      continue;
    }
    const change = last && !('same' in last) ? last : { removed: '', added: '' };
    if (change !== last) segments.push(change);
    if (op.kind === 'removed') change.removed += a[op.a];
    else change.added += b[op.b];
  }
  return segments;
}

function joinChanges(segments: Segment[]): Segment[] {
  const size = (s: Segment | undefined) => (s && !('same' in s) ? Math.max(s.removed.length, s.added.length) : -1);
  for (let i = 1; i < segments.length - 1; i++) {
    const same = segments[i]!;
    if (!('same' in same) || same.same.length > size(segments[i - 1]) || same.same.length > size(segments[i + 1])) continue;
    const left = segments[i - 1] as { removed: string; added: string };
    const right = segments[i + 1] as { removed: string; added: string };
    segments.splice(i - 1, 3, { removed: left.removed + same.same + right.removed, added: left.added + same.same + right.added });
    i = Math.max(0, i - 3); // next: the run before the joined change, which it may now swallow
  }
  return segments;
}

/** A changed block of lines: [aFrom, aTo) of the old text became [bFrom, bTo) of the new. */
interface Block {
  aFrom: number;
  aTo: number;
  bFrom: number;
  bTo: number;
}

function blocksOf(a: readonly string[], b: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const op of diffSequences(a, b, MAX_LINE_EDITS)) {
    if (op.kind === 'same') {
      current = undefined;
      continue;
    }
    if (!current) {
      current = { aFrom: op.a, aTo: op.a, bFrom: op.b, bTo: op.b };
      blocks.push(current);
    }
    if (op.kind === 'removed') current.aTo = op.a + 1;
    else current.bTo = op.b + 1;
  }
  return blocks;
}

/** Lines as text: each ends with a line break (the last one too; `withoutLastBreak` takes it off again). */
function joined(list: readonly string[]): string {
  return list.map((line) => `${line}\n`).join('');
}

/**
 * Drop the line break every text was given at its end (see joined): the last character of the
 * new text (its last unchanged or put-in piece) and of the old one (unchanged or taken out).
 * When that is an unchanged piece the other side goes on after, the break moves into the
 * other side's next piece, where it separates its further lines.
 */
function withoutLastBreak(pieces: Piece[]): Piece[] {
  const lastOf = (other: PieceKind) => pieces.map((p) => p.kind !== other).lastIndexOf(true);
  const ends = new Set([lastOf('removed'), lastOf('added')]);
  for (const i of ends) {
    const piece = pieces[i];
    if (!piece?.text.endsWith('\n')) continue;
    piece.text = piece.text.slice(0, -1);
    const next = pieces[i + 1];
    if (piece.kind === 'same' && next) next.text = `\n${next.text}`;
  }
  const out: Piece[] = [];
  for (const piece of pieces) push(out, piece.kind, piece.text);
  return out;
}

/** The pieces of a changed block: whole lines taken out or put in, or its lines word by word. */
function blockPieces(a: readonly string[], b: readonly string[], block: Block, pieces: Piece[]): void {
  const before = joined(a.slice(block.aFrom, block.aTo));
  const after = joined(b.slice(block.bFrom, block.bTo));
  if (!before || !after) push(pieces, before ? 'removed' : 'added', before || after);
  else for (const piece of diffWords(before, after)) push(pieces, piece.kind, piece.text);
}

/** The whole new text with every change marked (the card's "Full text"). */
export function diffText(before: string, after: string): Piece[] {
  const a = lines(before);
  const b = lines(after);
  const pieces: Piece[] = [];
  let ai = 0;
  for (const block of blocksOf(a, b)) {
    push(pieces, 'same', joined(a.slice(ai, block.aFrom)));
    blockPieces(a, b, block, pieces);
    ai = block.aTo;
  }
  push(pieces, 'same', joined(a.slice(ai)));
  return withoutLastBreak(pieces);
}

/** Cut an unchanged run that is long: its end only at a region's start, its start only at the end, both ends in between. */
function clipped(text: string, where: 'start' | 'middle' | 'end', clip: number): string {
  if (where === 'start') return text.length > clip ? `…${text.slice(-clip)}` : text;
  if (where === 'end') return text.length > clip ? `${text.slice(0, clip)}…` : text;
  return text.length > 2 * clip + 3 ? `${text.slice(0, clip)} … ${text.slice(-clip)}` : text;
}

/**
 * The changed places of a text, in order, each with `context` unchanged lines around it;
 * changes closer than twice that share a region. A region shows at most `maxChars`
 * characters: unchanged runs are cut at their far ends, and a change longer than that is cut
 * (`truncated`).
 */
export function changeRegions(before: string, after: string, options: RegionOptions = {}): Region[] {
  const context = options.context ?? 2;
  const clip = options.clip ?? 120;
  const maxChars = options.maxChars ?? 1200;
  const a = lines(before);
  const b = lines(after);
  const blocks = blocksOf(a, b);
  const groups: Block[][] = [];
  for (const block of blocks) {
    const last = groups[groups.length - 1];
    if (last && block.aFrom - last[last.length - 1]!.aTo <= 2 * context) last.push(block);
    else groups.push([block]);
  }
  return groups.map((group) => {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    let raw: Piece[] = [];
    push(raw, 'same', joined(a.slice(Math.max(0, first.aFrom - context), first.aFrom)));
    let ai = first.aFrom;
    for (const block of group) {
      push(raw, 'same', joined(a.slice(ai, block.aFrom)));
      blockPieces(a, b, block, raw);
      ai = block.aTo;
    }
    push(raw, 'same', joined(a.slice(last.aTo, last.aTo + context)));
    raw = withoutLastBreak(raw);
    // Unchanged runs cut line by line, so the lines next to a change stay whole where they are short.
    const pieces: Piece[] = [];
    raw.forEach((piece, i) => {
      if (piece.kind !== 'same') {
        push(pieces, piece.kind, piece.text);
        return;
      }
      const where = i === 0 ? 'start' : i === raw.length - 1 ? 'end' : 'middle';
      const parts = piece.text.split('\n');
      push(
        pieces,
        'same',
        parts.map((line, j) => clipped(line, where === 'middle' ? (j === 0 ? 'end' : j === parts.length - 1 ? 'start' : 'middle') : where, clip)).join('\n'),
      );
    });
    const { pieces: shown, truncated } = limit(pieces, maxChars);
    return {
      line: first.bFrom + 1,
      pieces: shown,
      removed: group.flatMap((g) => a.slice(g.aFrom, g.aTo)),
      added: group.flatMap((g) => b.slice(g.bFrom, g.bTo)),
      truncated,
    };
  });
}

/** At most `maxChars` characters of pieces; a cut piece ends with "…". */
function limit(pieces: Piece[], maxChars: number): { pieces: Piece[]; truncated: boolean } {
  const out: Piece[] = [];
  let left = maxChars;
  for (const piece of pieces) {
    if (piece.text.length <= left) {
      out.push(piece);
      left -= piece.text.length;
      continue;
    }
    if (left > 0) out.push({ kind: piece.kind, text: `${piece.text.slice(0, left)}…` });
    return { pieces: out, truncated: true };
  }
  return { pieces: out, truncated: false };
}
