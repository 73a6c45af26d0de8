/*\
The Ollama native adapter and its NDJSON reader beyond the recorded fixtures: request shape,
tool calls, finish reasons, failures before and during the stream, truncation, stalls, abort.
\*/
import { createLanguageModel } from '../../../src/agent/providers';
import { readNdjson } from '../../../src/agent/providers/ndjson';
import { createOllamaModel } from '../../../src/agent/providers/ollama';
import type { FetchFn, ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import { collect, fakeFetch, split, stallingStream, streamOf } from './replay';

const enc = (s: string) => new TextEncoder().encode(s);
const BASE = 'http://127.0.0.1:11434';
const REQ: ModelRequest = { model: 'qwen3', messages: [{ role: 'user', content: 'hi' }] };

function model(fetch: FetchFn, extra: { apiKey?: string; idleTimeoutMs?: number; headers?: Record<string, string>; baseUrl?: string } = {}) {
  return createOllamaModel({ baseUrl: BASE, ...extra, fetch });
}
const ndjson = (...lines: (object | string)[]) => `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;
const msg = (m: object, done = false, extra: object = {}) => ({ model: 'qwen3', message: { role: 'assistant', content: '', ...m }, done, ...extra });
const DONE = msg({}, true, { done_reason: 'stop', prompt_eval_count: 4, eval_count: 2 });
const response = (body: ReadableStream<Uint8Array> | string, init: ResponseInit = {}) =>
  new Response(typeof body === 'string' ? streamOf([enc(body)]) : body, {
    status: 200,
    ...init,
    headers: { 'content-type': 'application/x-ndjson', ...(init.headers as Record<string, string> | undefined) },
  });

async function run(body: string, req: ModelRequest = REQ): Promise<StreamPart[]> {
  return collect(model(fakeFetch(() => response(body))).stream(req, new AbortController().signal));
}

describe('request', () => {
  const request: ModelRequest = {
    model: 'qwen3:8b',
    temperature: 0.2,
    maxOutputTokens: 512,
    tools: [
      { name: 'multiply', description: 'Multiply two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    ],
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 1231 * 2331?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'multiply', args: { a: 1231, b: 2331 } }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'multiply', content: '2869461' },
      { role: 'assistant', content: 'It is 2,869,461.', toolCalls: [{ id: 'call_2', name: 'multiply', args: '{"a":1,"b":2}' }] },
    ],
  };

  it('POSTs the documented body to {baseUrl}/api/chat', async () => {
    const fetch = fakeFetch(() => response(ndjson(DONE)));
    await collect(model(fetch, { baseUrl: `${BASE}/` }).stream(request, new AbortController().signal));
    expect(fetch.calls).toHaveLength(1);
    const { url, init } = fetch.calls[0]!;
    expect(url).toBe('http://127.0.0.1:11434/api/chat');
    expect(init.method).toBe('POST');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(init.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(init.body as string)).toEqual({
      model: 'qwen3:8b',
      stream: true,
      options: { temperature: 0.2, num_predict: 512 },
      tools: [{ type: 'function', function: { name: 'multiply', description: 'Multiply two numbers', parameters: request.tools![0]!.parameters } }],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 1231 * 2331?' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'multiply', arguments: { a: 1231, b: 2331 } } }] },
        { role: 'tool', content: '2869461', tool_name: 'multiply' },
        { role: 'assistant', content: 'It is 2,869,461.', tool_calls: [{ function: { name: 'multiply', arguments: { a: 1, b: 2 } } }] },
      ],
    });
  });

  it('omits tools and options when not given; a key becomes a Bearer token, plus custom headers', async () => {
    const fetch = fakeFetch(() => response(ndjson(DONE)));
    await collect(model(fetch, { apiKey: 'secret', headers: { 'x-extra': '1' } }).stream(REQ, new AbortController().signal));
    expect(JSON.parse(fetch.calls[0]!.init.body as string)).toEqual({ model: 'qwen3', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(fetch.calls[0]!.init.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer secret', 'x-extra': '1' });
  });

  it('is registered as "ollama"', () => {
    expect(createLanguageModel('ollama', { baseUrl: BASE, fetch: fakeFetch(() => response('')) }).api).toBe('ollama');
  });
});

describe('stream decoding', () => {
  it('tool calls (object arguments, in a done:false line) complete at done; stop -> tool-calls', async () => {
    const parts = await run(
      ndjson(
        msg({ thinking: 'need tools' }),
        msg({
          tool_calls: [
            { function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } },
            { id: 'call_x', function: { name: 'now', arguments: {} } },
          ],
        }),
        DONE,
      ),
    );
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'need tools' },
      { type: 'tool-call-start', index: 0, id: 'call_0', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argsText: '{"city":"Paris"}' },
      { type: 'tool-call-start', index: 1, id: 'call_x', name: 'now' },
      { type: 'tool-call-delta', index: 1, argsText: '{}' },
      { type: 'tool-call', index: 0, id: 'call_0', name: 'get_weather', args: { city: 'Paris' } },
      { type: 'tool-call', index: 1, id: 'call_x', name: 'now', args: {} },
      { type: 'usage', inputTokens: 4, outputTokens: 2 },
      { type: 'finish', reason: 'tool-calls', raw: 'stop' },
    ]);
  });

  it('a tool call in the final done:true line is completed too (ol02 shape)', async () => {
    const parts = await run(ndjson(msg({ tool_calls: [{ function: { name: 'llm_version', arguments: {} } }] }, true, { done_reason: 'stop' })));
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([{ type: 'tool-call', index: 0, id: 'call_0', name: 'llm_version', args: {} }]);
    expect(parts[parts.length - 1]).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'stop' });
  });

  it.each([
    ['length', 'length'],
    ['load', 'other'],
  ])('done_reason %s -> %s', async (raw, reason) => {
    const parts = await run(ndjson(msg({ content: 'x' }), msg({}, true, { done_reason: raw })));
    expect(parts[parts.length - 1]).toEqual({ type: 'finish', reason, raw });
  });

  it('nothing after done:true is read', async () => {
    const parts = await run(ndjson(msg({ content: 'a' }), DONE, msg({ content: 'late' }), '{"error":"late"}'));
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'usage', 'finish']);
  });

  it('EOF without done:true is truncated, text kept, no tool call completed', async () => {
    const parts = await run(ndjson(msg({ content: 'Hel' }), msg({ tool_calls: [{ function: { name: 'f', arguments: {} } }] })));
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(parts[0]).toEqual({ type: 'text-delta', text: 'Hel' });
    expect(parts[parts.length - 1]).toEqual({ type: 'error', error: expect.objectContaining({ kind: 'truncated', retryable: true }) });
  });

  it('an empty body is truncated', async () => {
    expect(await run('')).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'truncated' }) }]);
  });

  it('a pretty-printed error object spread over several lines is still an error', async () => {
    const parts = await run(`${ndjson(msg({ content: 'a' }))}{\n  "error": "model crashed"\n}\n`);
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'stream', message: expect.stringContaining('model crashed') } });
  });

  it('plain text instead of NDJSON is an invalid response', async () => {
    expect(await run('404 page not found')).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'invalid-response' }) }]);
  });

  it('multi-byte characters cut between reads survive, byte by byte', async () => {
    const body = enc(ndjson(msg({ content: 'Grüße 😊 日本' }), DONE));
    const parts = await collect(model(fakeFetch(() => response(streamOf(split(body, 'bytes'))))).stream(REQ, new AbortController().signal));
    expect(parts[0]).toEqual({ type: 'text-delta', text: 'Grüße 😊 日本' });
  });
});

describe('readNdjson', () => {
  it('accepts CRLF, blank lines, a BOM and a last line without newline', async () => {
    const items = [];
    for await (const item of readNdjson(streamOf([enc('\uFEFF{"a":1}\r\n\r\n{"b"'), enc(':2}\n  \n{"c":3}')]))) items.push(item);
    expect(items).toEqual([
      { kind: 'value', value: { a: 1 } },
      { kind: 'value', value: { b: 2 } },
      { kind: 'value', value: { c: 3 } },
    ]);
  });
});

describe('HTTP failures before the stream', () => {
  it('404 for an unknown model names the model', async () => {
    const fetch = fakeFetch(
      () => new Response('{"error":"model \\"nope\\" not found, try pulling it first"}', { status: 404, headers: { 'content-type': 'application/json' } }),
    );
    await expect(collect(model(fetch).stream({ ...REQ, model: 'nope' }, new AbortController().signal))).rejects.toMatchObject({
      kind: 'http',
      status: 404,
      message: expect.stringContaining('The model "nope" is unknown'),
    });
  });

  it('500 is retryable', async () => {
    const fetch = fakeFetch(() => new Response('{"error":"llama runner process has terminated"}', { status: 500 }));
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({ kind: 'http', status: 500, retryable: true });
  });

  it('an SSE answer (a /v1 base URL) or an HTML page is an invalid response', async () => {
    for (const type of ['text/event-stream', 'text/html']) {
      const fetch = fakeFetch(() => response('data: {}\n\n', { headers: { 'content-type': type } }));
      await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({
        kind: 'invalid-response',
        message: expect.stringContaining('no /v1'),
      });
    }
  });

  it('a non-streamed JSON answer (application/json) is still read', async () => {
    const fetch = fakeFetch(() =>
      response(JSON.stringify(msg({ content: 'whole' }, true, { done_reason: 'stop' })), { headers: { 'content-type': 'application/json; charset=utf-8' } }),
    );
    expect(await collect(model(fetch).stream(REQ, new AbortController().signal))).toEqual([
      { type: 'text-delta', text: 'whole' },
      { type: 'finish', reason: 'stop', raw: 'stop' },
    ]);
  });

  it('connection refused is a network error', async () => {
    const fetch = fakeFetch(() => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })));
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({
      kind: 'network',
      message: expect.stringContaining('connection refused'),
    });
  });

  it('no response headers within the idle timeout is a timeout; Stop while waiting is aborted', async () => {
    const never = fakeFetch(() => new Promise<Response>(() => undefined));
    await expect(collect(model(never, { idleTimeoutMs: 20 }).stream(REQ, new AbortController().signal))).rejects.toMatchObject({ kind: 'timeout' });
    const controller = new AbortController();
    const p = collect(model(never, { idleTimeoutMs: 0 }).stream(REQ, controller.signal));
    setTimeout(() => controller.abort(), 5);
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('stalls and Stop during the stream', () => {
  it('a stall after some text keeps the text and ends with a timeout part; the body is cancelled', async () => {
    const { stream, cancelled } = stallingStream([enc(ndjson(msg({ content: 'Hello' })))]);
    const parts = await collect(
      model(
        fakeFetch(() => response(stream)),
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
    const { stream, cancelled } = stallingStream([enc(ndjson(msg({ content: 'Hello' })))]);
    const controller = new AbortController();
    const it = model(fakeFetch(() => response(stream)))
      .stream(REQ, controller.signal)
      [Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ type: 'text-delta', text: 'Hello' });
    const pending = it.next();
    controller.abort();
    expect((await pending).value).toMatchObject({ type: 'error', error: { kind: 'aborted' } });
    expect((await it.next()).done).toBe(true);
    expect(cancelled()).toBe(true);
  });

  it('breaking out of the loop early cancels the body', async () => {
    const { stream, cancelled } = stallingStream([enc(ndjson(msg({ content: 'a' }), msg({ content: 'b' })))]);
    for await (const part of model(fakeFetch(() => response(stream))).stream(REQ, new AbortController().signal)) {
      expect(part).toEqual({ type: 'text-delta', text: 'a' });
      break;
    }
    expect(cancelled()).toBe(true);
  });
});
