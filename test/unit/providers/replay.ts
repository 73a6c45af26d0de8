/*\
Test helpers for provider adapters: load recorded fixtures, replay them through a real
Response built on a ReadableStream (whole, byte by byte, or at seeded random offsets), and
normalize the resulting StreamParts for golden comparison.
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FetchFn, StreamPart } from '../../../src/agent/providers/types';

export const FIXTURES = path.join(__dirname, '../../fixtures/llm');
export const GOLDEN = path.join(__dirname, 'golden');

/** The HTTP body of a fixture; `.chunks.jsonl` becomes `data: <line>\n\n` per line plus `[DONE]`. */
export function fixtureBody(rel: string): Uint8Array {
  const raw = fs.readFileSync(path.join(FIXTURES, rel));
  if (!rel.endsWith('.chunks.jsonl')) return new Uint8Array(raw);
  const lines = raw
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return new TextEncoder().encode(`${lines.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n`);
}

/** Small deterministic PRNG (mulberry32) so random splits are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type SplitMode = 'whole' | 'bytes' | { seed: number };

export function split(bytes: Uint8Array, mode: SplitMode): Uint8Array[] {
  if (mode === 'whole') return [bytes];
  if (mode === 'bytes') return Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  const rnd = prng(mode.seed);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    // Mostly small pieces (cut inside lines, CRLFs and UTF-8 sequences), sometimes large ones.
    const n = rnd() < 0.8 ? 1 + Math.floor(rnd() * 16) : 1 + Math.floor(rnd() * 600);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** A body that hands out one chunk per pull, like a network stream. */
export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

/** Enqueues `chunks`, then never sends another byte nor closes; records cancellation. */
export function stallingStream(chunks: Uint8Array[] = []): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

export function sseResponse(body: ReadableStream<Uint8Array> | Uint8Array | string, init: ResponseInit = {}): Response {
  const stream = typeof body === 'string' ? streamOf([new TextEncoder().encode(body)]) : body instanceof Uint8Array ? streamOf([body]) : body;
  return new Response(stream, {
    status: 200,
    ...init,
    headers: { 'content-type': 'text/event-stream', ...(init.headers as Record<string, string> | undefined) },
  });
}

export interface FakeFetch extends FetchFn {
  calls: { url: string; init: RequestInit }[];
}

/** An injected fetch answering every call with `respond()`; keeps the requests for assertions. */
export function fakeFetch(respond: (url: string, init: RequestInit) => Response | Promise<Response>): FakeFetch {
  const calls: FakeFetch['calls'] = [];
  const fn = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return respond(url, init);
  }) as FakeFetch;
  fn.calls = calls;
  return fn;
}

export async function collect(iterable: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const p of iterable) parts.push(p);
  return parts;
}

/** Merges consecutive text / reasoning / same-call argument deltas and flattens errors to plain data. */
export function normalize(parts: StreamPart[]): unknown[] {
  const out: Record<string, unknown>[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if ((p.type === 'text-delta' || p.type === 'reasoning-delta') && last?.type === p.type) {
      last.text = `${last.text as string}${p.text}`;
    } else if (p.type === 'tool-call-delta' && last?.type === p.type && last.index === p.index) {
      last.argsText = `${last.argsText as string}${p.argsText}`;
    } else if (p.type === 'error') {
      const e = p.error;
      out.push(
        JSON.parse(JSON.stringify({ type: 'error', kind: e.kind, message: e.message, status: e.status, code: e.code, retryable: e.retryable, quota: e.quota })),
      );
    } else {
      out.push({ ...p });
    }
  }
  return out;
}

/** The body of a fixture whose `.chunks.jsonl` lines become typed SSE events (Anthropic, Responses: no [DONE]). */
export function typedEventsBody(rel: string): Uint8Array {
  const raw = fs.readFileSync(path.join(FIXTURES, rel));
  if (!rel.endsWith('.chunks.jsonl')) return new Uint8Array(raw);
  const lines = raw
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return new TextEncoder().encode(lines.map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`).join(''));
}

const SEEDS = [1, 7, 42, 1234, 99991];
const SPLITS: SplitMode[] = ['bytes', ...SEEDS.map((seed) => ({ seed }))];

export interface ReplaySuite {
  fixtures: string[];
  body(fixture: string): Uint8Array;
  /** Stream these byte chunks through the adapter and collect the parts. */
  streamChunks(chunks: Uint8Array[]): Promise<StreamPart[]>;
  goldenPath(fixture: string): string;
  /** Line endings to re-frame each fixture with (framing only: payloads hold no raw CR/LF). */
  lineEndings: string[];
  /** Fixtures smaller than this are also cut at every byte into two pieces. */
  twoPieceBelow: number;
}

/**
 * The replay checks every adapter gets: the whole stream matches its golden file (checked by
 * hand; `UPDATE_GOLDEN=1` rewrites it), and one byte per read, seeded random splits, other
 * line endings and every two-piece cut of small fixtures give identical parts; a stream ends
 * with exactly one terminal part and at most one usage part.
 */
export function describeReplays(suite: ReplaySuite): (fixture: string, mode: SplitMode) => Promise<StreamPart[]> {
  const replay = (fixture: string, mode: SplitMode) => suite.streamChunks(split(suite.body(fixture), mode));
  describe.each(suite.fixtures)('%s', (fixture) => {
    let whole: StreamPart[];
    beforeAll(async () => {
      whole = await replay(fixture, 'whole');
      if (process.env.UPDATE_GOLDEN) fs.writeFileSync(suite.goldenPath(fixture), `${JSON.stringify(normalize(whole), null, 2)}\n`);
    });

    it('matches the golden file', () => {
      const golden: unknown = JSON.parse(fs.readFileSync(suite.goldenPath(fixture), 'utf8'));
      expect(normalize(whole)).toEqual(golden);
    });

    it.each(SPLITS.map((m) => [typeof m === 'string' ? m : `seed ${m.seed}`, m] as const))('gives identical parts when split: %s', async (_, mode) => {
      expect(await replay(fixture, mode)).toEqual(whole);
    });

    it.each(suite.lineEndings)('gives identical parts with %j line endings, byte by byte', async (eol) => {
      const text = new TextDecoder().decode(suite.body(fixture)).replace(/\r\n|\r|\n/g, eol);
      expect(await suite.streamChunks(split(new TextEncoder().encode(text), 'bytes'))).toEqual(whole);
    });

    it('ends with exactly one terminal part and at most one usage part', () => {
      const terminal = whole.filter((p) => p.type === 'finish' || p.type === 'error');
      expect(terminal).toHaveLength(1);
      expect(whole[whole.length - 1]).toBe(terminal[0]);
      expect(whole.filter((p) => p.type === 'usage').length).toBeLessThanOrEqual(1);
    });
  });

  describe('every two-piece split of the small fixtures', () => {
    const small = suite.fixtures.filter((f) => suite.body(f).length < suite.twoPieceBelow);
    it.each(small)('%s', async (fixture) => {
      const bytes = suite.body(fixture);
      const whole = await replay(fixture, 'whole');
      for (let cut = 1; cut < bytes.length; cut++) {
        expect(await suite.streamChunks([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(whole);
      }
    });
  });
  return replay;
}

/** Plain reading of parts, for the explicit per-fixture checks. */
export function summary(parts: StreamPart[]) {
  const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');
  const reasoning = parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.text] : [])).join('');
  const calls = parts.filter((p) => p.type === 'tool-call');
  const invalid = parts.filter((p) => p.type === 'tool-call-invalid');
  const usage = parts.find((p) => p.type === 'usage');
  const last = parts[parts.length - 1];
  return { text, reasoning, calls, invalid, usage, last };
}
