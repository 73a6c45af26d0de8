/*\
The Gemini adapter beyond the recorded fixtures: request shape (contents, tools, schema
cleaning, thought signatures), failures before and during the stream, truncation, stalls,
abort and the finish-reason mapping.
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SKIP_SIGNATURE, cleanSchema, createGeminiModel } from '../../../src/agent/providers/gemini';
import { createLanguageModel } from '../../../src/agent/providers';
import type { FetchFn, ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, collect, fakeFetch, fixtureBody, sseResponse, stallingStream } from './replay';

const enc = (s: string) => new TextEncoder().encode(s);
const BASE = 'https://generativelanguage.googleapis.com/v1beta';
const REQ: ModelRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };

function model(fetch: FetchFn, extra: { apiKey?: string; idleTimeoutMs?: number; headers?: Record<string, string>; baseUrl?: string } = {}) {
  let n = 0;
  return createGeminiModel({ baseUrl: BASE, apiKey: 'AIza-test', ...extra, fetch }, { generateId: () => `gen_${n++}` });
}
const sse = (...events: (object | string)[]) => events.map((e) => (typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\r\n\r\n`)).join('');
const cand = (parts: object[], finishReason?: string) => ({
  candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
});
const STOP = cand([{ text: '' }], 'STOP');

async function run(body: string, req: ModelRequest = REQ): Promise<StreamPart[]> {
  return collect(model(fakeFetch(() => sseResponse(body))).stream(req, new AbortController().signal));
}
const sentBody = (f: ReturnType<typeof fakeFetch>, i = 0) => JSON.parse(f.calls[i]!.init.body as string) as Record<string, unknown>;

describe('request', () => {
  const params = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    properties: {
      a: { type: 'number', description: 'first' },
      // A property may be called like a dropped keyword; only keywords go.
      additionalProperties: { type: ['string', 'null'] },
      mode: { const: 'fast' },
      list: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { x: { type: 'string' } } } },
    },
    required: ['a'],
  };
  const request: ModelRequest = {
    model: 'gemini-2.5-flash',
    temperature: 0.2,
    maxOutputTokens: 512,
    tools: [
      { name: 'multiply', description: 'Multiply', parameters: params },
      { name: 'now', description: 'Current time', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    ],
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'What is 2*3 and the time?' },
      {
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [
          { id: 'c1', name: 'multiply', args: { a: 2, b: 3 } },
          { id: 'c2', name: 'now', args: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'multiply', content: '6' },
      { role: 'tool', toolCallId: 'c2', toolName: 'now', content: '12:00' },
      { role: 'assistant', content: '6, and it is noon.' },
      { role: 'user', content: 'Thanks' },
    ],
  };

  it('POSTs the documented body to {baseUrl}/models/{model}:streamGenerateContent?alt=sse', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(STOP)));
    await collect(model(fetch, { baseUrl: `${BASE}/` }).stream(request, new AbortController().signal));
    expect(fetch.calls).toHaveLength(1);
    const { url, init } = fetch.calls[0]!;
    expect(url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(init.method).toBe('POST');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(init.body as string)).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.\n\nUse tools.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'What is 2*3 and the time?' }] },
        {
          role: 'model',
          parts: [{ text: 'Let me check.' }, { functionCall: { name: 'multiply', args: { a: 2, b: 3 } } }, { functionCall: { name: 'now', args: {} } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'multiply', response: { content: '6' } } },
            { functionResponse: { name: 'now', response: { content: '12:00' } } },
          ],
        },
        { role: 'model', parts: [{ text: '6, and it is noon.' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'multiply',
              description: 'Multiply',
              parameters: {
                type: 'object',
                properties: {
                  a: { type: 'number', description: 'first' },
                  additionalProperties: { type: 'string', nullable: true },
                  mode: { enum: ['fast'] },
                  list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } } } },
                },
                required: ['a'],
              },
            },
            // An empty object schema is left out entirely.
            { name: 'now', description: 'Current time' },
          ],
        },
      ],
      generationConfig: { temperature: 0.2, maxOutputTokens: 512 },
    });
  });

  it('omits systemInstruction, tools and generationConfig when not given; strips a models/ prefix', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(STOP)));
    await collect(model(fetch).stream({ ...REQ, model: 'models/gemini-2.0-flash' }, new AbortController().signal));
    expect(fetch.calls[0]!.url).toBe(`${BASE}/models/gemini-2.0-flash:streamGenerateContent?alt=sse`);
    expect(sentBody(fetch)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  it('sends the key in x-goog-api-key (never in the URL), plus custom headers', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(STOP)));
    await collect(model(fetch, { headers: { 'x-extra': '1' } }).stream(REQ, new AbortController().signal));
    const headers = fetch.calls[0]!.init.headers as Record<string, string>;
    expect(headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test', 'x-extra': '1' });
    expect(fetch.calls[0]!.url).not.toContain('key=');
  });

  it('sends no key header without a key', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(STOP)));
    await collect(model(fetch, { apiKey: '  ' }).stream(REQ, new AbortController().signal));
    expect(fetch.calls[0]!.init.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('is registered as "gemini"', () => {
    expect(createLanguageModel('gemini', { baseUrl: BASE, fetch: fakeFetch(() => sseResponse('')) }).api).toBe('gemini');
  });
});

describe('thought signatures and call ids', () => {
  it('echoes the thoughtSignature of a streamed call when the call is replayed (ge04)', async () => {
    let n = 0;
    const fetch = fakeFetch((_, init) =>
      sseResponse(JSON.parse(init.body as string).contents.length === 1 ? fixtureBody('gemini/ge04-function-call-finish-stop-gemini3.sse') : sse(STOP)),
    );
    const m = createGeminiModel({ baseUrl: BASE, fetch }, { generateId: () => `sig-test-${n++}` });
    const parts = await collect(m.stream({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'country?' }] }, new AbortController().signal));
    const call = parts.find((p) => p.type === 'tool-call')!;
    expect(call).toMatchObject({ id: 'sig-test-0', name: 'get_country' });
    const replayed: ModelRequest = {
      model: 'gemini-3-pro-preview',
      messages: [
        { role: 'user', content: 'country?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'sig-test-0', name: 'get_country', args: {} }] },
        { role: 'tool', toolCallId: 'sig-test-0', toolName: 'get_country', content: 'Mexico' },
      ],
    };
    await collect(m.stream(replayed, new AbortController().signal));
    const contents = sentBody(fetch, 1).contents as { parts: Record<string, unknown>[] }[];
    const signature = /"thoughtSignature": "([^"]+)"/.exec(new TextDecoder().decode(fixtureBody('gemini/ge04-function-call-finish-stop-gemini3.sse')))![1];
    expect(contents[1]!.parts).toEqual([{ functionCall: { name: 'get_country', args: {} }, thoughtSignature: signature }]);
    expect(contents[2]!.parts).toEqual([{ functionResponse: { name: 'get_country', response: { content: 'Mexico' } } }]);
  });

  it('uses the documented sentinel for an unknown Gemini 3 call (first call of a turn only), nothing for older models', async () => {
    const messages: ModelRequest['messages'] = [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'lost-1', name: 'a', args: {} },
          { id: 'lost-2', name: 'b', args: {} },
        ],
      },
    ];
    const fetch = fakeFetch(() => sseResponse(sse(STOP)));
    await collect(model(fetch).stream({ model: 'gemini-3-flash-preview', messages }, new AbortController().signal));
    await collect(model(fetch).stream({ model: 'gemini-2.5-pro', messages }, new AbortController().signal));
    const three = (sentBody(fetch, 0).contents as { parts: unknown[] }[])[1]!.parts;
    expect(three).toEqual([{ functionCall: { name: 'a', args: {} }, thoughtSignature: SKIP_SIGNATURE }, { functionCall: { name: 'b', args: {} } }]);
    const two = (sentBody(fetch, 1).contents as { parts: unknown[] }[])[1]!.parts;
    expect(two).toEqual([{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }]);
  });

  it('keeps an id Gemini sent and echoes it in functionCall and functionResponse', async () => {
    const fetch = fakeFetch((_, init) =>
      sseResponse(
        JSON.parse(init.body as string).contents.length === 1 ? sse(cand([{ functionCall: { id: 'srv-9', name: 'f', args: { q: 1 } } }], 'STOP')) : sse(STOP),
      ),
    );
    const m = model(fetch);
    const parts = await collect(m.stream(REQ, new AbortController().signal));
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([{ type: 'tool-call', index: 0, id: 'srv-9', name: 'f', args: { q: 1 } }]);
    await collect(
      m.stream(
        {
          ...REQ,
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'srv-9', name: 'f', args: { q: 1 } }] },
            { role: 'tool', toolCallId: 'srv-9', toolName: 'f', content: 'ok' },
          ],
        },
        new AbortController().signal,
      ),
    );
    const contents = sentBody(fetch, 1).contents as { parts: unknown[] }[];
    expect(contents[1]!.parts).toEqual([{ functionCall: { id: 'srv-9', name: 'f', args: { q: 1 } } }]);
    expect(contents[2]!.parts).toEqual([{ functionResponse: { id: 'srv-9', name: 'f', response: { content: 'ok' } } }]);
  });

  it('generates distinct ids by default', async () => {
    const body = sse(cand([{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }], 'STOP'));
    const m = createGeminiModel({ baseUrl: BASE, fetch: fakeFetch(() => sseResponse(body)) });
    const ids = [...(await collect(m.stream(REQ, new AbortController().signal))), ...(await collect(m.stream(REQ, new AbortController().signal)))]
      .filter((p) => p.type === 'tool-call')
      .map((p) => (p.type === 'tool-call' ? p.id : ''));
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('cleanSchema', () => {
  it('drops rejected keywords at every depth, inside anyOf and items too', () => {
    expect(
      cleanSchema({
        type: 'object',
        $defs: { x: {} },
        properties: {
          u: {
            anyOf: [
              { type: 'string', examples: ['a'] },
              { type: 'object', additionalProperties: true },
            ],
          },
        },
      }),
    ).toEqual({ type: 'object', properties: { u: { anyOf: [{ type: 'string' }, { type: 'object' }] } } });
  });
});

describe('stream decoding', () => {
  it('several parts in one event keep their order; several calls get slots 0 and 1', async () => {
    const parts = await run(
      sse(
        cand([{ text: 'think', thought: true }, { text: 'Hi ' }, { functionCall: { name: 'f', args: { a: 1 } } }, { functionCall: { name: 'g' } }]),
        cand([], 'STOP'),
      ),
    );
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'think' },
      { type: 'text-delta', text: 'Hi ' },
      { type: 'tool-call-start', index: 0, id: 'gen_0', name: 'f' },
      { type: 'tool-call-delta', index: 0, argsText: '{"a":1}' },
      { type: 'tool-call-start', index: 1, id: 'gen_1', name: 'g' },
      { type: 'tool-call-delta', index: 1, argsText: '{}' },
      { type: 'tool-call', index: 0, id: 'gen_0', name: 'f', args: { a: 1 } },
      { type: 'tool-call', index: 1, id: 'gen_1', name: 'g', args: {} },
      { type: 'finish', reason: 'tool-calls', raw: 'STOP' },
    ]);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['BLOCKLIST', 'content-filter'],
    ['PROHIBITED_CONTENT', 'content-filter'],
    ['SPII', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'other'],
    ['OTHER', 'other'],
  ])('finishReason %s -> %s', async (raw, reason) => {
    const parts = await run(sse(cand([{ text: 'x' }], raw)));
    expect(parts[parts.length - 1]).toEqual({ type: 'finish', reason, raw });
  });

  it('a call followed by MAX_TOKENS stays length (not tool-calls)', async () => {
    const parts = await run(sse(cand([{ functionCall: { name: 'f', args: {} } }], 'MAX_TOKENS')));
    expect(parts[parts.length - 1]).toEqual({ type: 'finish', reason: 'length', raw: 'MAX_TOKENS' });
  });

  it('EOF without any finishReason is truncated; text and usage are kept', async () => {
    const parts = await run(sse({ ...cand([{ text: 'Hel' }]), usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 } }));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'usage', inputTokens: 3, outputTokens: 1 },
      { type: 'error', error: expect.objectContaining({ kind: 'truncated', retryable: true }) },
    ]);
  });

  it('a call announced before a truncation is never completed', async () => {
    const parts = await run(sse(cand([{ functionCall: { name: 'f', args: {} } }])));
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'truncated' } });
  });

  it('an empty body is truncated', async () => {
    expect(await run('')).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'truncated' }) }]);
  });

  it('data: {"error":…} inside the stream is a stream error with the Gemini status', async () => {
    const parts = await run(sse(cand([{ text: 'a' }]), { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'stream', status: 503, code: 'UNAVAILABLE', retryable: true } });
  });

  it('a blocked prompt with a blockReasonMessage names both', async () => {
    const parts = await run(
      sse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT', blockReasonMessage: 'Not allowed' }, usageMetadata: { promptTokenCount: 5 } }),
    );
    expect(parts).toEqual([
      { type: 'usage', inputTokens: 5 },
      {
        type: 'error',
        error: expect.objectContaining({ kind: 'stream', code: 'PROHIBITED_CONTENT', message: expect.stringMatching(/PROHIBITED_CONTENT.*Not allowed\./) }),
      },
    ]);
  });

  it('a body of plain non-SSE text is an invalid response', async () => {
    const parts = await run('hello there\n');
    expect(parts).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'invalid-response' }) }]);
  });
});

describe('HTTP failures before the stream', () => {
  const errorFixture = (name: string) => fs.readFileSync(path.join(FIXTURES, 'errors', name), 'utf8');

  it('429 with RetryInfo: retryable with the delay from the body', async () => {
    const fetch = fakeFetch(
      () => new Response(errorFixture('er04-gemini-429-retryinfo.json'), { status: 429, headers: { 'content-type': 'application/json' } }),
    );
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({
      kind: 'http',
      status: 429,
      retryable: true,
      retryAfterMs: 34400,
    });
  });

  it('400 API_KEY_INVALID: not retryable, asks to check the key', async () => {
    const fetch = fakeFetch(
      () => new Response(errorFixture('er05-gemini-400-api-key-invalid.json'), { status: 400, headers: { 'content-type': 'application/json' } }),
    );
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({
      kind: 'http',
      status: 400,
      retryable: false,
      message: expect.stringContaining('Check the API key'),
    });
  });

  it('a JSON array (no alt=sse) is reported as an invalid response', async () => {
    const fetch = fakeFetch(() => new Response('[{"candidates":[]}]', { status: 200, headers: { 'content-type': 'application/json' } }));
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({ kind: 'invalid-response' });
  });

  it('a network failure is a network error', async () => {
    const fetch = fakeFetch(() => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })));
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({ kind: 'network', retryable: true });
  });
});

describe('stalls and Stop during the stream', () => {
  it('a stall after some text keeps the text and ends with a timeout part; the body is cancelled', async () => {
    const { stream, cancelled } = stallingStream([enc(sse(cand([{ text: 'Hello' }])))]);
    const parts = await collect(
      model(
        fakeFetch(() => sseResponse(stream)),
        { idleTimeoutMs: 30 },
      ).stream(REQ, new AbortController().signal),
    );
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'error', error: expect.objectContaining({ kind: 'timeout', retryable: true }) },
    ]);
    expect(cancelled()).toBe(true);
  });

  it('Stop during the stream ends promptly with an aborted part and cancels the body', async () => {
    const { stream, cancelled } = stallingStream([enc(sse(cand([{ text: 'Hello' }])))]);
    const controller = new AbortController();
    const it = model(fakeFetch(() => sseResponse(stream)))
      .stream(REQ, controller.signal)
      [Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ type: 'text-delta', text: 'Hello' });
    const pending = it.next();
    controller.abort();
    expect((await pending).value).toMatchObject({ type: 'error', error: { kind: 'aborted' } });
    expect((await it.next()).done).toBe(true);
    expect(cancelled()).toBe(true);
  });
});
