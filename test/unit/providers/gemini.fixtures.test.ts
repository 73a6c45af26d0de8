/*\
Replays every recorded Gemini stream (alt=sse) through the adapter in one piece, one byte per
read and at seeded random offsets, and compares the parts with a golden file that was checked
by hand against the fixture. `UPDATE_GOLDEN=1` rewrites the goldens.
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createGeminiModel } from '../../../src/agent/providers/gemini';
import type { StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, GOLDEN, collect, describeReplays, fakeFetch, fixtureBody, sseResponse, streamOf, summary } from './replay';

const fixtures = fs
  .readdirSync(path.join(FIXTURES, 'gemini'))
  .filter((f) => f.endsWith('.sse'))
  .sort()
  .map((f) => `gemini/${f}`);
function streamChunks(chunks: Uint8Array[]): Promise<StreamPart[]> {
  let n = 0;
  const model = createGeminiModel(
    { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', apiKey: 'k', fetch: fakeFetch(() => sseResponse(streamOf(chunks))) },
    { generateId: () => `gen_${n++}` },
  );
  return collect(model.stream({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
}

const replay = describeReplays({
  fixtures,
  body: fixtureBody,
  streamChunks,
  goldenPath: (fixture) => path.join(GOLDEN, 'gemini', `${path.basename(fixture, '.sse')}.json`),
  lineEndings: ['\n', '\r\n', '\r'],
  twoPieceBelow: 3100,
});

describe('explicit checks per fixture', () => {
  const parts = (name: string) => replay(fixtures.find((f) => f.includes(name))!, 'whole');
  const run = async (name: string) => summary(await parts(name));

  it('ge01: CRLF-framed text in three events, usage from the last event, STOP -> stop', async () => {
    const s = await run('ge01');
    expect(s.text).toBe('The capital of Wyoming is **Cheyenne**.\n');
    expect(s.reasoning).toBe('');
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 7, outputTokens: 10 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop', raw: 'STOP' });
  });

  it('ge03: two thought summaries as reasoning, then a functionCall "now" with args {}; STOP -> tool-calls', async () => {
    const p = await parts('ge03');
    const s = summary(p);
    expect(s.text).toBe('');
    expect(s.reasoning.startsWith("**Calculating the Days**\n\nI've determined the user's request")).toBe(true);
    expect(s.reasoning).toContain('**Determining the Approach**');
    // Reasoning comes before the call is announced.
    const firstStart = p.findIndex((x) => x.type === 'tool-call-start');
    expect(p.slice(0, firstStart).every((x) => x.type === 'reasoning-delta')).toBe(true);
    expect(p[firstStart]).toEqual({ type: 'tool-call-start', index: 0, id: 'gen_0', name: 'now' });
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: 'gen_0', name: 'now', args: {} }]);
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 38, outputTokens: 6 + 168, reasoningTokens: 168 });
    expect(s.last).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'STOP' });
  });

  it('ge04: functionCall get_country with args {}; the empty text part adds nothing; finish tool-calls', async () => {
    const p = await parts('ge04');
    const s = summary(p);
    expect(p.some((x) => x.type === 'text-delta')).toBe(false);
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: 'gen_0', name: 'get_country', args: {} }]);
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 29, outputTokens: 212, reasoningTokens: 202 });
    expect(s.last).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'STOP' });
  });

  it('ge05: the raw JSON error after two STOP events ends the reply as an error, text kept', async () => {
    const p = await parts('ge05');
    const s = summary(p);
    expect(s.text).toBe('First Second ');
    expect(p.some((x) => x.type === 'finish')).toBe(false);
    expect(s.last).toMatchObject({
      type: 'error',
      error: { kind: 'stream', status: 499, code: 'CANCELLED', retryable: false, message: expect.stringContaining('The operation was cancelled.') },
    });
  });

  it('ge06: a blocked prompt (no candidates) is an error naming the block reason', async () => {
    const p = await parts('ge06');
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({
      type: 'error',
      error: { kind: 'stream', code: 'SAFETY', retryable: false, message: expect.stringContaining('block reason SAFETY') },
    });
  });

  it('ge07: the last finishReason wins; an unknown value maps to other with the raw value', async () => {
    const s = await run('ge07');
    expect(s.text.startsWith('**Cats:**\n\n- **Physical Characteristics:**')).toBe(true);
    expect(s.usage).toBeUndefined();
    expect(s.last).toEqual({ type: 'finish', reason: 'other', raw: 'FAKE_ENUM' });
  });

  it('ge08: a content without parts and a final inlineData part are fine', async () => {
    const s = await run('ge08');
    expect(s.text).toBe("Here's a cute cartoon kitten playing with a ball of yarn for you! ");
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 16, outputTokens: 1307 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop', raw: 'STOP' });
  });
});
