/*\
A malformed frame inside a stream (issue 23): each adapter, given a recorded stream in which
one frame's JSON is cut short (what a proxy that drops or splices bytes leaves), ends the reply
right there with an error of kind `damaged`: every part before the frame as the intact stream
gave it, no finish and no completed tool call after it. Tried at every frame of each
recording (40 of a long one), whole and one byte per read. Not damage: text that is no JSON at all (a gateway's
keep-alive), and a body that ends inside its last frame (truncated, as before).
\*/
import { createAnthropicModel } from '../../../src/agent/providers/anthropic';
import { createGeminiModel } from '../../../src/agent/providers/gemini';
import { createOllamaModel } from '../../../src/agent/providers/ollama';
import { createOpenAIChatModel } from '../../../src/agent/providers/openai-chat';
import { createOpenAIResponsesModel } from '../../../src/agent/providers/openai-responses';
import type { LanguageModel, ProviderSettings, StreamPart } from '../../../src/agent/providers/types';
import { collect, fakeFetch, fixtureBody, split, sseResponse, streamOf, typedEventsBody, type SplitMode } from './replay';

interface Api {
  name: string;
  fixtures: string[];
  body(fixture: string): Uint8Array;
  model(settings: ProviderSettings): LanguageModel;
  /** How frames are framed: SSE `data:` lines, or one JSON value per line. */
  framing: 'sse' | 'ndjson';
}

const APIS: Api[] = [
  {
    name: 'openai-chat',
    fixtures: [
      'openai-chat/oc01-text-usage.sse',
      'openai-chat/oc02-tool-call-fragmented-args-usage.sse',
      'openai-compat/cc01-deepseek-reasoning-content-usage-in-final.sse',
    ],
    body: fixtureBody,
    model: createOpenAIChatModel,
    framing: 'sse',
  },
  {
    name: 'openai-responses',
    fixtures: ['openai-responses/or01-text.sse', 'openai-responses/or03-reasoning-summary-then-text.sse'],
    body: typedEventsBody,
    model: createOpenAIResponsesModel,
    framing: 'sse',
  },
  {
    name: 'anthropic',
    fixtures: ['anthropic/an01-text-ping.chunks.jsonl', 'anthropic/an02-text-then-tool-use.sse'],
    body: typedEventsBody,
    model: createAnthropicModel,
    framing: 'sse',
  },
  {
    name: 'gemini',
    fixtures: ['gemini/ge01-text-crlf.sse', 'gemini/ge03-thinking-function-call-thought-signature.sse'],
    body: fixtureBody,
    model: (s) => createGeminiModel(s, { generateId: () => 'gen' }),
    framing: 'sse',
  },
  {
    name: 'ollama',
    fixtures: ['ollama/ol01-chat-text-final-metrics.ndjson', 'ollama/ol03-chat-thinking-synthetic.ndjson'],
    body: fixtureBody,
    model: createOllamaModel,
    framing: 'ndjson',
  },
];

const encode = (text: string) => new TextEncoder().encode(text);

function run(api: Api, bytes: Uint8Array, mode: SplitMode = 'whole'): Promise<StreamPart[]> {
  const chunks = split(bytes, mode);
  const type = api.framing === 'sse' ? 'text/event-stream' : 'application/x-ndjson';
  const model = api.model({
    baseUrl: 'https://api.example.com/v1',
    apiKey: 'k',
    fetch: fakeFetch(() => (api.framing === 'sse' ? sseResponse(streamOf(chunks)) : new Response(streamOf(chunks), { headers: { 'content-type': type } }))),
  });
  return collect(model.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
}

/** Each frame's JSON in the body: where it starts, where it ends, and where its event starts. */
function frames(api: Api, text: string): { start: number; end: number; event: number }[] {
  const pattern = api.framing === 'sse' ? /^data: ?(\{.*)$/gm : /^(\{.*)$/gm;
  return [...text.matchAll(pattern)].map((m) => {
    const start = m.index + m[0].length - m[1]!.length;
    // An SSE event may open with its `event:` line; the prefix before the frame drops it too.
    const lines = text.slice(0, m.index).match(/(?:^|\n)event:[^\n]*\r?\n$/);
    return { start, end: start + m[1]!.length, event: lines ? m.index - lines[0].replace(/^\n/, '').length : m.index };
  });
}

const CONTENT = new Set<StreamPart['type']>(['text-delta', 'reasoning-delta', 'tool-call-start', 'tool-call-delta']);
const content = (parts: StreamPart[]) => parts.filter((p) => CONTENT.has(p.type));

describe.each(APIS)('$name', (api) => {
  describe.each(api.fixtures)('%s', (fixture) => {
    const text = new TextDecoder().decode(api.body(fixture));
    // The last ndjson line has no stream after it: cut, it is a truncated body (tested below).
    const all = frames(api, text);
    const cuttable = api.framing === 'ndjson' ? all.slice(0, -1) : all;
    // Every frame of a short recording; of a long one, 40 spread over it.
    const tried = cuttable.filter((_, i) => i % Math.ceil(cuttable.length / 40) === 0);

    it('a frame cut short ends the reply there as damaged: the parts before it kept, nothing complete after it', async () => {
      expect(tried.length).toBeGreaterThan(0);
      for (const [i, frame] of tried.entries()) {
        const json = text.slice(frame.start, frame.end);
        const damaged = await run(api, encode(text.slice(0, frame.start) + json.slice(0, Math.floor(json.length / 2)) + text.slice(frame.end)));
        const before = await run(api, encode(text.slice(0, frame.event)));
        const last = damaged.at(-1);
        expect([i, last?.type === 'error' && last.error.kind, last?.type === 'error' && last.error.retryable]).toEqual([i, 'damaged', true]);
        expect([i, content(damaged)]).toEqual([i, content(before)]);
        expect(damaged.filter((p) => p.type === 'finish' || p.type === 'tool-call' || p.type === 'error')).toEqual([last]);
        expect(last?.type === 'error' && last.error.message).toMatch(
          /could not be read: a piece of the stream is not valid JSON .* The words it carried are missing/,
        );
      }
    });

    it('the same, one byte per read', async () => {
      const frame = cuttable[Math.floor(cuttable.length / 2)]!;
      const json = text.slice(frame.start, frame.end);
      const bytes = encode(text.slice(0, frame.start) + json.slice(0, 10) + text.slice(frame.end));
      expect(await run(api, bytes, 'bytes')).toEqual(await run(api, bytes));
    });
  });
});

describe('not damage', () => {
  const chat = APIS[0]!;
  const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
  const delta = (content: string, finish: string | null = null) => sse({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

  it('text that is no JSON at all (a gateway re-wrapping a keep-alive) is skipped', async () => {
    const parts = await run(chat, encode(`${delta('Hello')}data: : OPENROUTER PROCESSING\n\n${delta(' world', 'stop')}data: [DONE]\n\n`));
    expect(
      content(parts)
        .map((p) => p.type === 'text-delta' && p.text)
        .join(''),
    ).toBe('Hello world');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('two frames run together without the blank line between them are one damaged frame', async () => {
    const parts = await run(
      chat,
      encode(
        `${delta('Hello')}data: {"choices":[{"delta":{"content":" wor\ndata: {"choices":[{"index":0,"delta":{"content":"ld"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
      ),
    );
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'error']);
    expect(parts.at(-1)).toMatchObject({ error: { kind: 'damaged' } });
  });

  it('a body that ends inside its last frame is truncated, in SSE and in NDJSON', async () => {
    const sseParts = await run(chat, encode(`${delta('Hello')}data: {"choices":[{"index":0,"delta":{"content":" wor`));
    expect(sseParts.at(-1)).toMatchObject({ type: 'error', error: { kind: 'truncated' } });
    const ollama = APIS.find((a) => a.name === 'ollama')!;
    const ndjson = await run(ollama, encode('{"message":{"content":"Hello"},"done":false}\n{"message":{"content":" wor'));
    expect(ndjson.map((p) => p.type)).toEqual(['text-delta', 'error']);
    expect(ndjson.at(-1)).toMatchObject({ error: { kind: 'truncated' } });
  });

  it('in NDJSON, an error object pretty-printed over several lines at the end is still the error', async () => {
    const ollama = APIS.find((a) => a.name === 'ollama')!;
    const parts = await run(ollama, encode('{"message":{"content":"Hello"},"done":false}\n{\n  "error": "model ran out of memory"\n}\n'));
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { message: expect.stringContaining('model ran out of memory') } });
  });
});
