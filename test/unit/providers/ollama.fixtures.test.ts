/*\
Replays every recorded Ollama /api/chat NDJSON body through the adapter in one piece, one
byte per read and at seeded random offsets, and compares the parts with a golden file that
was checked by hand against the fixture. `UPDATE_GOLDEN=1` rewrites the goldens.
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createOllamaModel } from '../../../src/agent/providers/ollama';
import type { StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, GOLDEN, collect, fakeFetch, fixtureBody, normalize, split, streamOf, type SplitMode } from './replay';

const fixtures = fs
  .readdirSync(path.join(FIXTURES, 'ollama'))
  .filter((f) => f.endsWith('.ndjson'))
  .sort()
  .map((f) => `ollama/${f}`);
const SEEDS = [1, 7, 42, 1234, 99991];
const MODES: SplitMode[] = ['whole', 'bytes', ...SEEDS.map((seed) => ({ seed }))];

const ndjsonResponse = (chunks: Uint8Array[]) => new Response(streamOf(chunks), { status: 200, headers: { 'content-type': 'application/x-ndjson' } });

async function replayBytes(bytes: Uint8Array, mode: SplitMode): Promise<StreamPart[]> {
  const model = createOllamaModel({ baseUrl: 'http://127.0.0.1:11434', fetch: fakeFetch(() => ndjsonResponse(split(bytes, mode))) });
  return collect(model.stream({ model: 'phi3', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
}
const replay = (fixture: string, mode: SplitMode) => replayBytes(fixtureBody(fixture), mode);

function goldenPath(fixture: string): string {
  return path.join(GOLDEN, 'ollama', `${path.basename(fixture, '.ndjson')}.json`);
}

describe.each(fixtures)('%s', (fixture) => {
  let whole: StreamPart[];
  beforeAll(async () => {
    whole = await replay(fixture, 'whole');
    if (process.env.UPDATE_GOLDEN) fs.writeFileSync(goldenPath(fixture), `${JSON.stringify(normalize(whole), null, 2)}\n`);
  });

  it('matches the golden file', () => {
    const golden: unknown = JSON.parse(fs.readFileSync(goldenPath(fixture), 'utf8'));
    expect(normalize(whole)).toEqual(golden);
  });

  it.each(MODES.slice(1).map((m) => [typeof m === 'string' ? m : `seed ${m.seed}`, m] as const))('gives identical parts when split: %s', async (_, mode) => {
    expect(await replay(fixture, mode)).toEqual(whole);
  });

  it('gives identical parts with CRLF line endings and a trailing newline, byte by byte', async () => {
    const text = new TextDecoder()
      .decode(fixtureBody(fixture))
      .replace(/\r?\n/g, '\r\n')
      .replace(/(\r\n)?$/, '\r\n');
    expect(await replayBytes(new TextEncoder().encode(text), 'bytes')).toEqual(whole);
  });

  it('every two-piece split gives identical parts', async () => {
    const bytes = fixtureBody(fixture);
    for (let cut = 1; cut < bytes.length; cut++) {
      const model = createOllamaModel({
        baseUrl: 'http://127.0.0.1:11434',
        fetch: fakeFetch(() => ndjsonResponse([bytes.subarray(0, cut), bytes.subarray(cut)])),
      });
      expect(await collect(model.stream({ model: 'm', messages: [] }, new AbortController().signal))).toEqual(whole);
    }
  });

  it('ends with exactly one terminal part and at most one usage part', () => {
    const terminal = whole.filter((p) => p.type === 'finish' || p.type === 'error');
    expect(terminal).toHaveLength(1);
    expect(whole[whole.length - 1]).toBe(terminal[0]);
    expect(whole.filter((p) => p.type === 'usage').length).toBeLessThanOrEqual(1);
  });
});

describe('explicit checks per fixture', () => {
  const run = (name: string) => replay(fixtures.find((f) => f.includes(name))!, 'whole');
  const text = (parts: StreamPart[], type: 'text-delta' | 'reasoning-delta') => parts.flatMap((p) => (p.type === type ? [p.text] : [])).join('');

  it('ol01: content deltas, usage from prompt_eval_count/eval_count, done_reason stop; no trailing newline needed', async () => {
    const parts = await run('ol01');
    expect(text(parts, 'text-delta')).toBe(' these times of day.');
    expect(text(parts, 'reasoning-delta')).toBe('');
    expect(parts.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 10, outputTokens: 239 },
      { type: 'finish', reason: 'stop', raw: 'stop' },
    ]);
  });

  it('ol03: thinking -> reasoning, content -> text; done:true without done_reason or metrics -> stop, no usage', async () => {
    const parts = await run('ol03');
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'This is reasoning content' },
      { type: 'text-delta', text: 'Final answer' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('ol04: an {"error":…} line in the 200 stream ends the reply with a stream error', async () => {
    const parts = await run('ol04');
    // The docs example is /api/generate (`response`, not `message`), so there is no chat text.
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({
      type: 'error',
      error: { kind: 'stream', message: expect.stringContaining('an error was encountered while running the model') },
    });
  });
});
