/*\
Replays every recorded OpenAI Responses stream through the adapter in one piece, one byte per
read, at seeded random offsets and with CRLF / CR line endings, and compares the parts with a
golden file checked by hand against the fixture. `UPDATE_GOLDEN=1` rewrites the goldens.
`.chunks.jsonl` fixtures become `event: <type>\ndata: <line>\n\n` per line (no [DONE]: real
Responses streams have none).
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createOpenAIResponsesModel } from '../../../src/agent/providers/openai-responses';
import type { StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, GOLDEN, collect, describeReplays, fakeFetch, sseResponse, streamOf, summary, typedEventsBody } from './replay';

const DIR = 'openai-responses';
const fixtures = fs
  .readdirSync(path.join(FIXTURES, DIR))
  .filter((f) => /\.(sse|chunks\.jsonl)$/.test(f))
  .sort();
const responsesBody = (file: string) => typedEventsBody(`${DIR}/${file}`);

function streamChunks(chunks: Uint8Array[]): Promise<StreamPart[]> {
  const model = createOpenAIResponsesModel({ baseUrl: 'https://api.example.com/v1', apiKey: 'k', fetch: fakeFetch(() => sseResponse(streamOf(chunks))) });
  return collect(model.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
}

it('finds the three Responses fixtures', () => {
  expect(fixtures.map((f) => f.slice(0, 4))).toEqual(['or01', 'or03', 'or04']);
});

const replay = describeReplays({
  fixtures,
  body: responsesBody,
  streamChunks,
  goldenPath: (file) => path.join(GOLDEN, DIR, `${file.replace(/\.(sse|chunks\.jsonl)$/, '')}.json`),
  lineEndings: ['\r\n', '\r'],
  twoPieceBelow: 6000,
});

describe.each(fixtures)('%s', (file) => {
  it('is reported as truncated when the terminal event is cut off', async () => {
    const text = new TextDecoder().decode(responsesBody(file));
    const lastEvent = text.lastIndexOf('event: ');
    const parts = await streamChunks([new TextEncoder().encode(text.slice(0, lastEvent))]);
    const last = parts[parts.length - 1];
    if (file.startsWith('or04')) {
      // The error event comes before response.failed; it alone ends the reply.
      expect(last).toMatchObject({ type: 'error', error: { kind: 'stream', quota: true } });
    } else {
      expect(last).toMatchObject({ type: 'error', error: { kind: 'truncated' } });
      expect(parts.some((p) => p.type === 'finish' || p.type === 'usage')).toBe(false);
    }
  });
});

describe('explicit checks per fixture', () => {
  const parts = (name: string) => replay(fixtures.find((f) => f.startsWith(name))!, 'whole');

  it('or01: text deltas; usage from response.completed; finish stop', async () => {
    const p = await parts('or01');
    const s = summary(p);
    expect(s.text).toBe('The capital of France is Paris.');
    expect(s.reasoning).toBe('');
    expect(p.filter((x) => x.type === 'text-delta').map((x) => x.type === 'text-delta' && x.text)).toEqual([
      'The',
      ' capital',
      ' of',
      ' France',
      ' is',
      ' Paris',
      '.',
    ]);
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 278, outputTokens: 9, reasoningTokens: 0 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop' });
    expect(p.map((x) => x.type).slice(-2)).toEqual(['usage', 'finish']);
  });

  it('or03 (194 KB): four reasoning summary parts, all before the text; non-ASCII intact', async () => {
    const p = await parts('or03');
    const s = summary(p);
    const firstText = p.findIndex((x) => x.type === 'text-delta');
    const lastReasoning = p.map((x) => x.type).lastIndexOf('reasoning-delta');
    expect(lastReasoning).toBeLessThan(firstText);
    expect(p.filter((x) => x.type === 'reasoning-delta')).toHaveLength(383);
    expect(p.filter((x) => x.type === 'text-delta')).toHaveLength(271);
    // Each summary part opens with a bold title; parts are separated by a blank line.
    expect(s.reasoning.startsWith('**Providing street crossing instructions**\n\nThe user is asking how to cross the street')).toBe(true);
    expect(s.reasoning).toContain('\n\n**Explaining street crossing safety**\n\n');
    expect(s.reasoning).toContain('\n\n**Sharing street crossing safety tips**\n\n');
    expect(s.reasoning).toContain('\n\n**Providing safe crossing advice**\n\n');
    expect(s.reasoning.endsWith('It will be clear and easy to understand!')).toBe(true);
    expect(s.text.startsWith("I'm not a road safety professional, but here are some generally accepted guidelines")).toBe(true);
    expect(s.text).toContain('prepare to stop—don’t assume vehicles will see you.');
    expect(s.text).toContain('Wait for the “walk” signal');
    expect(s.text.endsWith('so it’s a good idea to familiarize yourself with the rules specific to your area. Stay safe!')).toBe(true);
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 13, outputTokens: 1680, reasoningTokens: 1408 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('or03: the text equals the final message in response.completed, and each summary part its .done text', async () => {
    const body = new TextDecoder().decode(responsesBody(fixtures.find((f) => f.startsWith('or03'))!));
    const datas = body
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    const done = datas.filter((d) => d.type === 'response.reasoning_summary_text.done').map((d) => d.text as string);
    expect(done).toHaveLength(4);
    const textDone = datas.find((d) => d.type === 'response.output_text.done')!.text as string;
    const s = summary(await parts('or03'));
    expect(s.reasoning).toBe(done.join('\n\n'));
    expect(s.text).toBe(textDone);
  });

  it('or04: the nested error event ends the reply as a quota error; nothing else is emitted', async () => {
    const p = await parts('or04');
    expect(p).toHaveLength(1);
    const s = summary(p);
    expect(s.last).toMatchObject({
      type: 'error',
      error: {
        kind: 'stream',
        code: 'insufficient_quota',
        quota: true,
        retryable: false,
        message: expect.stringContaining('You exceeded your current quota, please check your plan and billing details.'),
      },
    });
  });
});
