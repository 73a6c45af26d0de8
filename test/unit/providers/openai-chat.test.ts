/*\
The OpenAI chat adapter beyond the recorded fixtures: request shape, failures before and
during the stream, truncation, stalls, abort, and tool-call fragment edge cases.
\*/
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as net from 'node:net';
import * as path from 'node:path';
import { ProviderError } from '../../../src/agent/providers/errors';
import { createOpenAIChatModel } from '../../../src/agent/providers/openai-chat';
import type { FetchFn, ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, collect, fakeFetch, fixtureBody, normalize, sseResponse, stallingStream } from './replay';

const enc = (s: string) => new TextEncoder().encode(s);
const BASE = 'https://api.example.com/v1';
const REQ: ModelRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };

function model(fetch: FetchFn, extra: { apiKey?: string; idleTimeoutMs?: number; headers?: Record<string, string>; baseUrl?: string } = {}) {
  return createOpenAIChatModel({ baseUrl: BASE, apiKey: 'sk-test', ...extra, fetch });
}

/** An SSE body from chunk objects (JSON-encoded) and raw strings, in order. */
function sse(...events: (object | string)[]): string {
  return events.map((e) => (typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\n\n`)).join('');
}
const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
const DONE = 'data: [DONE]\n\n';

async function run(body: string, req: ModelRequest = REQ): Promise<StreamPart[]> {
  return collect(model(fakeFetch(() => sseResponse(body))).stream(req, new AbortController().signal));
}

describe('request', () => {
  const request: ModelRequest = {
    model: 'gpt-4o-mini',
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
      { role: 'assistant', content: 'It is 2,869,461.' },
    ],
  };

  it('POSTs the documented body to {baseUrl}/chat/completions', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(delta({}, 'stop'), DONE)));
    await collect(model(fetch, { baseUrl: `${BASE}/` }).stream(request, new AbortController().signal));
    expect(fetch.calls).toHaveLength(1);
    const { url, init } = fetch.calls[0]!;
    expect(url).toBe('https://api.example.com/v1/chat/completions');
    expect(init.method).toBe('POST');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(init.body as string)).toEqual({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 512,
      tools: [{ type: 'function', function: { name: 'multiply', description: 'Multiply two numbers', parameters: request.tools![0]!.parameters } }],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 1231 * 2331?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'multiply', arguments: '{"a":1231,"b":2331}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '2869461' },
        { role: 'assistant', content: 'It is 2,869,461.' },
      ],
    });
  });

  it('omits tools, temperature and max_tokens when not given', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(delta({}, 'stop'))));
    await collect(model(fetch).stream(REQ, new AbortController().signal));
    expect(JSON.parse(fetch.calls[0]!.init.body as string)).toEqual({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('sends the key as a Bearer token, plus custom headers', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(delta({}, 'stop'))));
    await collect(model(fetch, { headers: { 'HTTP-Referer': 'https://tiddlyagent.example' } }).stream(REQ, new AbortController().signal));
    expect(fetch.calls[0]!.init.headers).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer sk-test',
      'HTTP-Referer': 'https://tiddlyagent.example',
    });
  });

  it.each([undefined, '', '   '])('sends no authorization header when the key is %j', async (apiKey) => {
    const fetch = fakeFetch(() => sseResponse(sse(delta({}, 'stop'))));
    await collect(createOpenAIChatModel({ baseUrl: 'http://localhost:11434/v1', apiKey, fetch }).stream(REQ, new AbortController().signal));
    expect(Object.keys(fetch.calls[0]!.init.headers as object)).toEqual(['content-type']);
  });

  it('names its wire API', () => {
    expect(model(fakeFetch(() => new Response(''))).api).toBe('openai-chat');
  });
});

describe('failures before the stream are thrown', () => {
  const errorBody = fs.readFileSync(path.join(FIXTURES, 'errors/er01-openai-404-model-not-found.json'), 'utf8');

  it('HTTP 404 from the recorded body', async () => {
    const m = model(fakeFetch(() => new Response(errorBody, { status: 404, headers: { 'content-type': 'application/json' } })));
    const e = await collect(m.stream(REQ, new AbortController().signal)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).toMatchObject({ kind: 'http', status: 404, code: 'model_not_found' });
    expect((e as Error).message).toContain(`HTTP 404 from ${BASE}`);
    expect((e as Error).message).toContain('The model "gpt-test" is unknown');
  });

  it('a 200 with a JSON error body is raised as that error', async () => {
    const body = JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    const m = model(fakeFetch(() => new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } })));
    await expect(collect(m.stream(REQ, new AbortController().signal))).rejects.toMatchObject({
      kind: 'http',
      code: 'invalid_api_key',
      message: expect.stringContaining('Check the API key'),
    });
  });

  it('a 200 with a JSON completion (no stream) is an invalid response', async () => {
    const body = JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] });
    const m = model(fakeFetch(() => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })));
    const e = await collect(m.stream(REQ, new AbortController().signal)).catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'invalid-response', retryable: false });
    expect((e as Error).message).toContain(`Expected a stream of server-sent events from ${BASE} but got JSON: {"id":"x"`);
  });

  it('a 200 with an HTML page is an invalid response pointing at the base URL', async () => {
    const m = model(fakeFetch(() => new Response('<!doctype html><title>Open WebUI</title>', { status: 200, headers: { 'content-type': 'text/html' } })));
    await expect(collect(m.stream(REQ, new AbortController().signal))).rejects.toMatchObject({
      kind: 'invalid-response',
      message: expect.stringContaining('HTML page'),
    });
  });

  it('a refused connection', async () => {
    const refused = () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
    const e = await collect(model(refused, { baseUrl: 'http://localhost:11434/v1' }).stream(REQ, new AbortController().signal)).catch((x: unknown) => x);
    expect(e).toMatchObject({
      kind: 'network',
      retryable: true,
      message: expect.stringContaining('Could not connect to http://localhost:11434/v1 (connection refused)'),
    });
  });

  it('no response headers within the idle timeout', async () => {
    const m = model(
      fakeFetch(() => new Promise<Response>(() => undefined)),
      { idleTimeoutMs: 30 },
    );
    await expect(collect(m.stream(REQ, new AbortController().signal))).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('Stop while waiting for the response headers', async () => {
    const controller = new AbortController();
    const m = model(fakeFetch(() => new Promise<Response>(() => undefined)));
    const p = collect(m.stream(REQ, controller.signal));
    setTimeout(() => controller.abort(), 5);
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('completion and truncation', () => {
  it('a stream cut without finish_reason or [DONE] is truncated; the partial text stays', async () => {
    const parts = await run(sse(delta({ role: 'assistant', content: '' }), delta({ content: 'Hel' }), delta({ content: 'lo' })));
    expect(parts.slice(0, 2)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
    ]);
    expect(parts[2]).toMatchObject({ type: 'error', error: { kind: 'truncated', retryable: true } });
    expect((parts[2] as { error: Error }).error.message).toBe(`The stream from ${BASE} ended before the reply was complete.`);
    expect(parts).toHaveLength(3);
  });

  it('a stream cut in the middle of an event is truncated too', async () => {
    const parts = await run(`${sse(delta({ content: 'Hi' }))}data: {"choices":[{"index":0,"delta":{"content":" th`);
    expect(normalize(parts)).toEqual([{ type: 'text-delta', text: 'Hi' }, expect.objectContaining({ type: 'error', kind: 'truncated' })]);
  });

  it('finish_reason without [DONE] completes normally', async () => {
    expect(await run(sse(delta({ content: 'ok' }), delta({}, 'stop')))).toEqual([
      { type: 'text-delta', text: 'ok' },
      { type: 'finish', reason: 'stop', raw: 'stop' },
    ]);
  });

  it('[DONE] without finish_reason completes with stop, or tool-calls when there were calls', async () => {
    expect((await run(sse(delta({ content: 'ok' }), DONE))).at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    const withCall = await run(sse(delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{"x":1}' } }] }), DONE));
    expect(withCall.slice(-2)).toEqual([
      { type: 'tool-call', index: 0, id: 'c1', name: 'f', args: { x: 1 } },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('maps finish reasons and keeps unknown ones as other', async () => {
    const finish = async (raw: string) => (await run(sse(delta({}, raw), DONE))).at(-1);
    expect(await finish('length')).toEqual({ type: 'finish', reason: 'length', raw: 'length' });
    expect(await finish('content_filter')).toEqual({ type: 'finish', reason: 'content-filter', raw: 'content_filter' });
    expect(await finish('function_call')).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'function_call' });
    expect(await finish('eos_token')).toEqual({ type: 'finish', reason: 'other', raw: 'eos_token' });
  });

  it('`stop` with tool calls counts as tool-calls (Gemini compat and others)', async () => {
    const parts = await run(sse(delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{}' } }] }, 'stop'), DONE));
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'stop' });
  });

  it('ignores unknown fields, empty choices, non-JSON data and everything after [DONE]', async () => {
    const parts = await run(
      sse(
        { choices: [], prompt_filter_results: [] },
        'data: : OPENROUTER PROCESSING\n\n',
        { choices: [{ index: 0, delta: { content: 'a', mystery: 1 }, finish_reason: null }], obfuscation: 'x' },
        delta({}, 'stop'),
        DONE,
        delta({ content: 'late' }),
      ),
    );
    expect(parts).toEqual([
      { type: 'text-delta', text: 'a' },
      { type: 'finish', reason: 'stop', raw: 'stop' },
    ]);
  });

  it('shows a refusal as text', async () => {
    expect(normalize(await run(sse(delta({ refusal: "I can't" }), delta({ refusal: ' help with that.' }), delta({}, 'stop'), DONE)))[0]).toEqual({
      type: 'text-delta',
      text: "I can't help with that.",
    });
  });

  it('counts reasoning once when a server sends both reasoning_content and reasoning', async () => {
    const parts = await run(sse(delta({ reasoning_content: 'think', reasoning: 'think' }), delta({}, 'stop'), DONE));
    expect(parts[0]).toEqual({ type: 'reasoning-delta', text: 'think' });
    expect(parts).toHaveLength(2);
  });

  it('emits usage once, the last one seen, before finish', async () => {
    const parts = await run(
      sse(
        { ...delta({ content: 'a' }), usage: { prompt_tokens: 1, completion_tokens: 1 } },
        delta({}, 'stop'),
        { choices: [], usage: { prompt_tokens: 5, completion_tokens: 7 } },
        DONE,
      ),
    );
    expect(parts.slice(1)).toEqual([
      { type: 'usage', inputTokens: 5, outputTokens: 7 },
      { type: 'finish', reason: 'stop', raw: 'stop' },
    ]);
  });
});

describe('errors inside a 200 stream', () => {
  it('`data: {"error":…}` first: an error part, retryable because nothing was shown', async () => {
    const parts = await run(
      sse({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } }),
    );
    expect(parts).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'stream', code: 'server_error', retryable: true }) }]);
  });

  it('stops at the error; later events are not read', async () => {
    const parts = await run(sse(delta({ content: 'a' }), 'event: error\ndata: {"error":{"message":"boom"}}\n\n', delta({ content: 'b' }), delta({}, 'stop')));
    expect(normalize(parts)).toEqual([
      { type: 'text-delta', text: 'a' },
      expect.objectContaining({ type: 'error', kind: 'stream', message: `Error from ${BASE} during the reply: boom.` }),
    ]);
  });

  it('an error after finish_reason leaves no complete tool calls behind', async () => {
    const parts = await run(
      sse(
        delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{}' } }] }),
        delta({}, 'tool_calls'),
        { error: { code: 502, message: 'Upstream failed' } },
        DONE,
      ),
    );
    expect(parts.map((p) => p.type)).toEqual(['tool-call-start', 'tool-call-delta', 'error']);
    expect(parts[2]).toMatchObject({ error: { kind: 'stream', status: 502, retryable: true } });
  });

  it('a raw JSON error without `data:` after the events is raised (Vertex-style residue)', async () => {
    const parts = await run(
      sse(delta({ content: 'First ' })) +
        '{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded.",\n    "status": "UNAVAILABLE"\n  }\n}\n',
    );
    expect(normalize(parts)).toEqual([
      { type: 'text-delta', text: 'First ' },
      expect.objectContaining({
        type: 'error',
        kind: 'stream',
        status: 503,
        code: 'UNAVAILABLE',
        retryable: true,
        message: expect.stringContaining('The model is overloaded.'),
      }),
    ]);
  });

  it('a body that is not SSE at all is an invalid response', async () => {
    const m = model(fakeFetch(() => new Response('Internal proxy failure', { status: 200, headers: { 'content-type': 'text/plain' } })));
    expect(normalize(await collect(m.stream(REQ, new AbortController().signal)))).toEqual([
      expect.objectContaining({ type: 'error', kind: 'invalid-response', message: expect.stringContaining('Internal proxy failure') }),
    ]);
  });

  it('a connection reset mid-stream becomes a network error part', async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (!sent) {
          sent = true;
          c.enqueue(enc(sse(delta({ content: 'par' }))));
        } else c.error(new TypeError('terminated'));
      },
    });
    const parts = await collect(model(fakeFetch(() => sseResponse(body))).stream(REQ, new AbortController().signal));
    expect(normalize(parts)).toEqual([
      { type: 'text-delta', text: 'par' },
      expect.objectContaining({ type: 'error', kind: 'network', message: expect.stringContaining('terminated') }),
    ]);
  });
});

describe('stalls and Stop during the stream', () => {
  it('a stream that never sends a byte ends with a timeout part', async () => {
    const { stream, cancelled } = stallingStream();
    const parts = await collect(
      model(
        fakeFetch(() => sseResponse(stream)),
        { idleTimeoutMs: 30 },
      ).stream(REQ, new AbortController().signal),
    );
    expect(normalize(parts)).toEqual([expect.objectContaining({ type: 'error', kind: 'timeout', retryable: true })]);
    expect(cancelled()).toBe(true);
  });

  it('a stream that stalls after some text keeps the text and ends with a timeout part', async () => {
    const { stream } = stallingStream([enc(`: keep-alive\n\n${sse(delta({ content: 'Hello' }))}`)]);
    const parts = await collect(
      model(
        fakeFetch(() => sseResponse(stream)),
        { idleTimeoutMs: 30 },
      ).stream(REQ, new AbortController().signal),
    );
    expect(normalize(parts)).toEqual([{ type: 'text-delta', text: 'Hello' }, expect.objectContaining({ type: 'error', kind: 'timeout' })]);
  });

  it('Stop during the stream ends the iteration at once', async () => {
    const { stream, cancelled } = stallingStream([enc(sse(delta({ content: 'Hello' })))]);
    const controller = new AbortController();
    const it = model(
      fakeFetch(() => sseResponse(stream)),
      { idleTimeoutMs: 60_000 },
    )
      .stream(REQ, controller.signal)
      [Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ type: 'text-delta', text: 'Hello' });
    const pending = it.next();
    const started = Date.now();
    controller.abort();
    expect((await pending).value).toMatchObject({ type: 'error', error: { kind: 'aborted' } });
    expect((await it.next()).done).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(cancelled()).toBe(true);
  });

  it('breaking out of the loop cancels the body', async () => {
    const { stream, cancelled } = stallingStream([enc(sse(delta({ content: 'a' }), delta({ content: 'b' })))]);
    for await (const part of model(fakeFetch(() => sseResponse(stream))).stream(REQ, new AbortController().signal)) {
      expect(part).toEqual({ type: 'text-delta', text: 'a' });
      break;
    }
    expect(cancelled()).toBe(true);
  });
});

describe('tool-call fragments', () => {
  const call = (frag: object) => delta({ tool_calls: [frag] });

  it('invalid JSON arguments (cut by the token limit) give tool-call-invalid with the raw text', async () => {
    const parts = await run(
      sse(call({ index: 0, id: 'c1', type: 'function', function: { name: 'write', arguments: '{"text": "abc' } }), delta({}, 'length'), DONE),
    );
    const invalid = parts.find((p) => p.type === 'tool-call-invalid');
    expect(invalid).toMatchObject({
      index: 0,
      id: 'c1',
      name: 'write',
      argsText: '{"text": "abc',
      reason: expect.stringContaining('cut off by the token limit'),
    });
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'length', raw: 'length' });
  });

  it('does not finalize early when partial arguments happen to parse', async () => {
    const parts = await run(
      sse(
        call({ index: 0, id: 'c1', function: { name: 'f', arguments: '{"a":1}' } }),
        call({ index: 0, function: { arguments: '' } }),
        delta({}, 'tool_calls'),
        DONE,
      ),
    );
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([{ type: 'tool-call', index: 0, id: 'c1', name: 'f', args: { a: 1 } }]);
  });

  it('the name may arrive after the arguments; start is emitted once the name is known, with the buffered args', async () => {
    const parts = await run(
      sse(
        call({ index: 0, id: 'c1', function: { arguments: '{"q":' } }),
        call({ index: 0, function: { name: 'search', arguments: '"x"}' } }),
        delta({}, 'tool_calls'),
        DONE,
      ),
    );
    expect(parts.slice(0, 3)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'c1', name: 'search' },
      { type: 'tool-call-delta', index: 0, argsText: '{"q":"x"}' },
      { type: 'tool-call', index: 0, id: 'c1', name: 'search', args: { q: 'x' } },
    ]);
  });

  it('repeated ids and names in continuations are not concatenated', async () => {
    const parts = await run(
      sse(
        call({ index: 0, id: 'c1', function: { name: 'f', arguments: '{"a"' } }),
        call({ index: 0, id: 'c1', function: { name: 'f', arguments: ':1}' } }),
        delta({}, 'tool_calls'),
        DONE,
      ),
    );
    expect(parts.find((p) => p.type === 'tool-call')).toEqual({ type: 'tool-call', index: 0, id: 'c1', name: 'f', args: { a: 1 } });
  });

  it('without index: matched by id, else to the only open call', async () => {
    const parts = await run(
      sse(
        call({ id: 'c1', function: { name: 'f', arguments: '{"a":' } }),
        call({ function: { arguments: '1}' } }),
        call({ id: 'c2', function: { name: 'g', arguments: '' } }),
        call({ id: 'c2', function: { arguments: '{}' } }),
        delta({}, 'tool_calls'),
        DONE,
      ),
    );
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      { type: 'tool-call', index: 0, id: 'c1', name: 'f', args: { a: 1 } },
      { type: 'tool-call', index: 1, id: 'c2', name: 'g', args: {} },
    ]);
  });

  it('every call at index 0 but with different ids (Gemini compat) are separate calls', async () => {
    const parts = await run(
      sse(
        delta({
          tool_calls: [
            { index: 0, id: 'a', function: { name: 'f', arguments: '{"n":1}' } },
            { index: 0, id: 'b', function: { name: 'f', arguments: '{"n":2}' } },
          ],
        }),
        delta({}, 'tool_calls'),
        DONE,
      ),
    );
    expect(parts.filter((p) => p.type === 'tool-call').map((p) => p.type === 'tool-call' && [p.index, p.id, p.args])).toEqual([
      [0, 'a', { n: 1 }],
      [1, 'b', { n: 2 }],
    ]);
  });

  it('object arguments (Ollama-style) are accepted; missing ids are generated', async () => {
    const parts = await run(sse(call({ index: 0, function: { name: 'f', arguments: { city: 'Berlin' } } }), delta({}, 'tool_calls'), DONE));
    expect(parts.find((p) => p.type === 'tool-call')).toEqual({ type: 'tool-call', index: 0, id: 'call_0', name: 'f', args: { city: 'Berlin' } });
    expect(parts[0]).toEqual({ type: 'tool-call-start', index: 0, id: 'call_0', name: 'f' });
  });

  it('a call without a name is invalid', async () => {
    const parts = await run(sse(call({ index: 0, id: 'c1', function: { arguments: '{}' } }), delta({}, 'tool_calls'), DONE));
    expect(parts.find((p) => p.type === 'tool-call-invalid')).toMatchObject({ id: 'c1', name: '', reason: 'the model sent a tool call without a name' });
  });

  it('"" and "null" arguments become {}', async () => {
    const parts = await run(
      sse(
        call({ index: 0, id: 'a', function: { name: 'f', arguments: '' } }),
        call({ index: 1, id: 'b', function: { name: 'g', arguments: 'null' } }),
        delta({}, 'tool_calls'),
        DONE,
      ),
    );
    expect(parts.filter((p) => p.type === 'tool-call').map((p) => p.type === 'tool-call' && p.args)).toEqual([{}, {}]);
  });
});

describe('with the real fetch against a local server', () => {
  let server: http.Server;
  let baseUrl = '';
  let closed: Promise<void>;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url === '/v1/chat/completions' && req.headers['x-mode'] === 'stall') {
        res.write(sse(delta({ content: 'Hello' })));
        return; // never ends
      }
      const body = fixtureBody('openai-chat/oc02-tool-call-fragmented-args-usage.sse');
      let i = 0;
      const tick = () => {
        if (i >= body.length) return void res.end();
        const start = i;
        i += 97;
        res.write(body.subarray(start, i));
        setImmediate(tick);
      };
      tick();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('streams a recorded reply', async () => {
    const m = createOpenAIChatModel({ baseUrl, fetch: globalThis.fetch });
    const parts = await collect(m.stream(REQ, new AbortController().signal));
    expect(parts.find((p) => p.type === 'tool-call')).toMatchObject({ name: 'multiply', args: { a: 1231, b: 2331 } });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('Stop closes the connection', async () => {
    const controller = new AbortController();
    const m = createOpenAIChatModel({ baseUrl, headers: { 'x-mode': 'stall' }, fetch: globalThis.fetch });
    const it = m.stream(REQ, controller.signal)[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ type: 'text-delta', text: 'Hello' });
    const pending = it.next();
    controller.abort();
    expect((await pending).value).toMatchObject({ type: 'error', error: { kind: 'aborted' } });
    await closed; // the server sees the socket go away
  });
});
