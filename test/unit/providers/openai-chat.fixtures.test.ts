/*\
Replays every recorded OpenAI-chat and OpenAI-compatible stream through the adapter in one
piece, one byte per read and at seeded random offsets, and compares the parts with a golden
file that was checked by hand against the fixture. `UPDATE_GOLDEN=1` rewrites the goldens.
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createOpenAIChatModel } from '../../../src/agent/providers/openai-chat';
import type { StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, GOLDEN, collect, describeReplays, fakeFetch, fixtureBody, sseResponse, streamOf, summary } from './replay';

const fixtures = ['openai-chat', 'openai-compat'].flatMap((dir) =>
  fs
    .readdirSync(path.join(FIXTURES, dir))
    .sort()
    .map((f) => `${dir}/${f}`),
);
function streamChunks(chunks: Uint8Array[]): Promise<StreamPart[]> {
  const model = createOpenAIChatModel({ baseUrl: 'https://api.example.com/v1', apiKey: 'k', fetch: fakeFetch(() => sseResponse(streamOf(chunks))) });
  return collect(model.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
}

const replay = describeReplays({
  fixtures,
  body: fixtureBody,
  streamChunks,
  goldenPath: (fixture) => path.join(GOLDEN, `${path.basename(fixture).replace(/\.(sse|chunks\.jsonl)$/, '')}.json`),
  lineEndings: ['\r\n', '\r'],
  twoPieceBelow: 2000,
});

describe('explicit checks per fixture', () => {
  const run = async (name: string) => summary(await replay(fixtures.find((f) => f.includes(name))!, 'whole'));

  it('oc01: text with backslashes, usage from the choices:[] chunk, stop', async () => {
    const s = await run('oc01');
    expect(s.text).toBe('The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).');
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 87, outputTokens: 26, reasoningTokens: 0 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop', raw: 'stop' });
  });

  it('oc02: one multiply call assembled from eleven fragments', async () => {
    const parts = await replay(fixtures.find((f) => f.includes('oc02'))!, 'whole');
    const s = summary(parts);
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: 'call_1EYWDzueHEp8OsB8jJSEp7WB', name: 'multiply', args: { a: 1231, b: 2331 } }]);
    expect(parts.filter((p) => p.type === 'tool-call-start')).toHaveLength(1);
    expect(parts.filter((p) => p.type === 'tool-call-delta')).toHaveLength(11);
    expect(s.text).toBe('');
    expect(s.usage).toMatchObject({ inputTokens: 54, outputTokens: 20 });
    expect(s.last).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'tool_calls' });
  });

  it('oc03: two parallel calls in index order', async () => {
    const s = await run('oc03');
    expect(s.calls.map((c) => c.type === 'tool-call' && [c.index, c.name, c.args])).toEqual([
      [0, 'get_weather', { city: 'Mexico City' }],
      [1, 'get_product_name', {}],
    ]);
    expect(s.usage).toMatchObject({ inputTokens: 417, outputTokens: 44 });
  });

  it('oc05: Azure empty-choices filter chunk is ignored; reasoning tokens from usage', async () => {
    const s = await run('oc05');
    expect(s.text).toBe('Capital of Denmark.');
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 15, outputTokens: 78, reasoningTokens: 64 });
    expect(s.last).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('cc01: DeepSeek reasoning_content then content; usage on the finish chunk', async () => {
    const s = await run('cc01');
    expect(s.reasoning).toHaveLength(882);
    expect(s.reasoning.startsWith('Hmm, the user just said "Hello".')).toBe(true);
    expect(s.text).toBe('Hello there! 😊 How can I help you today?');
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 6, outputTokens: 212, reasoningTokens: 198 });
    expect(s.last).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('cc02: reasoning, then a tool call streamed one character at a time', async () => {
    const s = await run('cc02');
    expect(s.reasoning.endsWith('with the location parameter set to "San Francisco".')).toBe(true);
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', args: { location: 'San Francisco' } }]);
    expect(s.last).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('cc03: comments between events do not disturb reasoning or text', async () => {
    const s = await run('cc03');
    expect(s.reasoning).toBe('This is a simple arithmetic question. 2+2 equals 4.');
    expect(s.text).toBe('2 + 2 = 4');
    expect(s.usage).toMatchObject({ inputTokens: 43, outputTokens: 36, reasoningTokens: 13 });
  });

  it('cc04: the error after finish_reason "length" ends the reply as an error', async () => {
    const parts = await replay(fixtures.find((f) => f.includes('cc04'))!, 'whole');
    const s = summary(parts);
    expect(s.reasoning).toBe('We need to respond to a greeting. The user');
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    expect(s.usage).toMatchObject({ inputTokens: 43, outputTokens: 10, reasoningTokens: 11 });
    expect(s.last).toMatchObject({ type: 'error', error: { kind: 'stream', status: 400, message: expect.stringContaining('Token limit reached') } });
  });

  it('cc07: arguments null and never sent -> {}', async () => {
    const s = await run('cc07');
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: '0', name: 'llm_version', args: {} }]);
    expect(s.last).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('cc08: Groq `event: error` mid-stream ends in an error with the provider message, reasoning kept', async () => {
    const s = await run('cc08');
    expect(s.reasoning.startsWith('We need to call the tool')).toBe(true);
    expect(s.last).toMatchObject({
      type: 'error',
      error: { kind: 'stream', code: 'tool_use_failed', status: 400, message: expect.stringContaining('Tool call validation failed') },
    });
  });

  it('cc09: a whole tool call in one chunk; usage from the finish chunk', async () => {
    const s = await run('cc09');
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: 'tk85n1k4m', name: 'weather', args: {} }]);
    expect(s.usage).toMatchObject({ inputTokens: 210, outputTokens: 15 });
  });

  it('cc11: name "" in the continuation does not overwrite the name', async () => {
    const s = await run('cc11');
    expect(s.calls).toEqual([
      { type: 'tool-call', index: 0, id: 'chatcmpl-tool-9f149c74c42f265b', name: 'webSearchTool', args: { query: 'current Berlin weather' } },
    ]);
  });
});
