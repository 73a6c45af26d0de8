/*\
The Anthropic Messages adapter beyond the recorded fixtures: request shape (headers, system,
alternating turns, tool results, tools), HTTP failures, in-stream errors, truncation and
stream edge cases.
\*/
import { ProviderError } from '../../../src/agent/providers/errors';
import { createAnthropicModel } from '../../../src/agent/providers/anthropic';
import { createLanguageModel } from '../../../src/agent/providers';
import type { FetchFn, ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import { collect, fakeFetch, normalize, sseResponse } from './replay';

const BASE = 'https://api.example.com/v1';
const REQ: ModelRequest = { model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] };

function model(fetch: FetchFn, extra: { apiKey?: string; headers?: Record<string, string>; baseUrl?: string } = {}) {
  return createAnthropicModel({ baseUrl: BASE, apiKey: 'sk-ant-test', ...extra, fetch });
}

/** An SSE body from event objects (named after their `type`) and raw strings, in order. */
function sse(...events: (Record<string, unknown> | string)[]): string {
  return events.map((e) => (typeof e === 'string' ? e : `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`)).join('');
}
const start = (id = 'msg_1', input = 10) => ({
  type: 'message_start',
  message: { id, type: 'message', role: 'assistant', content: [], usage: { input_tokens: input, output_tokens: 1 } },
});
const textBlock = (index: number, text = '') => ({ type: 'content_block_start', index, content_block: { type: 'text', text } });
const toolBlock = (index: number, id: string, name: string, input: object = {}) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name, input },
});
const text = (index: number, t: string) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } });
const json = (index: number, partial: string) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const msgDelta = (reason: string | null, output = 5) => ({
  type: 'message_delta',
  delta: { stop_reason: reason, stop_sequence: null },
  usage: { output_tokens: output },
});
const END = { type: 'message_stop' };

async function run(body: string, req: ModelRequest = REQ): Promise<StreamPart[]> {
  return collect(model(fakeFetch(() => sseResponse(body))).stream(req, new AbortController().signal));
}
const OK = sse(start(), textBlock(0), text(0, 'ok'), stop(0), msgDelta('end_turn'), END);

describe('request', () => {
  const request: ModelRequest = {
    model: 'claude-sonnet-4-5',
    temperature: 0.3,
    maxOutputTokens: 1024,
    tools: [
      { name: 'multiply', description: 'Multiply two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
      { name: 'now', description: 'The time', parameters: { type: 'object', properties: {} } },
    ],
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 1231 * 2331, and what time is it?' },
      { role: 'system', content: 'Use tools.' },
      {
        role: 'assistant',
        content: 'Let me compute.',
        toolCalls: [
          { id: 'toolu_1', name: 'multiply', args: { a: 1231, b: 2331 } },
          { id: 'toolu_2', name: 'now', args: {} },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_1', toolName: 'multiply', content: '2869461' },
      { role: 'tool', toolCallId: 'toolu_2', toolName: 'now', content: '12:00' },
      { role: 'assistant', content: 'It is 2,869,461 and noon.' },
      { role: 'user', content: 'Thanks.' },
      { role: 'user', content: 'One more?' },
    ],
  };

  it('POSTs the documented body to {baseUrl}/messages', async () => {
    const fetch = fakeFetch(() => sseResponse(OK));
    await collect(model(fetch, { baseUrl: `${BASE}/` }).stream(request, new AbortController().signal));
    expect(fetch.calls).toHaveLength(1);
    const { url, init } = fetch.calls[0]!;
    expect(url).toBe('https://api.example.com/v1/messages');
    expect(init.method).toBe('POST');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(init.body as string)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Be brief.\n\nUse tools.',
      temperature: 0.3,
      stream: true,
      tools: [
        { name: 'multiply', description: 'Multiply two numbers', input_schema: request.tools![0]!.parameters },
        { name: 'now', description: 'The time', input_schema: { type: 'object', properties: {} } },
      ],
      messages: [
        { role: 'user', content: 'What is 1231 * 2331, and what time is it?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me compute.' },
            { type: 'tool_use', id: 'toolu_1', name: 'multiply', input: { a: 1231, b: 2331 } },
            { type: 'tool_use', id: 'toolu_2', name: 'now', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '2869461' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '12:00' },
          ],
        },
        { role: 'assistant', content: 'It is 2,869,461 and noon.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Thanks.' },
            { type: 'text', text: 'One more?' },
          ],
        },
      ],
    });
  });

  it('defaults max_tokens to 4096 and omits system, tools and temperature when not given', async () => {
    const fetch = fakeFetch(() => sseResponse(OK));
    await collect(model(fetch).stream(REQ, new AbortController().signal));
    expect(JSON.parse(fetch.calls[0]!.init.body as string)).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('sends x-api-key, the API version and the browser-access header, plus custom headers', async () => {
    const fetch = fakeFetch(() => sseResponse(OK));
    await collect(model(fetch, { headers: { 'x-extra': '1' } }).stream(REQ, new AbortController().signal));
    expect(fetch.calls[0]!.init.headers).toEqual({
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'anthropic-dangerous-direct-browser-access': 'true',
      'x-extra': '1',
    });
    expect(fetch.calls[0]!.init.headers).not.toHaveProperty('authorization');
  });

  it('puts tool results before text in a user turn, drops empty text, and turns assistant args into objects', async () => {
    const fetch = fakeFetch(() => sseResponse(OK));
    const req: ModelRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 't1', name: 'a', args: '{"x":1}' },
            { id: 't2', name: 'b', args: 'not json' },
          ],
        },
        { role: 'tool', toolCallId: 't1', toolName: 'a', content: 'r1' },
        { role: 'user', content: 'and?' },
        { role: 'tool', toolCallId: 't2', toolName: 'b', content: 'r2' },
      ],
    };
    await collect(model(fetch).stream(req, new AbortController().signal));
    expect(JSON.parse(fetch.calls[0]!.init.body as string).messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 't2', name: 'b', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'r1' },
          { type: 'tool_result', tool_use_id: 't2', content: 'r2' },
          { type: 'text', text: 'and?' },
        ],
      },
    ]);
  });

  it('is registered as "anthropic"', () => {
    const m = createLanguageModel('anthropic', { baseUrl: BASE, fetch: fakeFetch(() => sseResponse(OK)) });
    expect(m.api).toBe('anthropic');
  });
});

describe('HTTP failures before the stream', () => {
  it('529 overloaded is a retryable ProviderError thrown before the first part', async () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const fetch = fakeFetch(() => new Response(body, { status: 529, headers: { 'content-type': 'application/json' } }));
    const parts: StreamPart[] = [];
    const err = await (async () => {
      for await (const p of model(fetch).stream(REQ, new AbortController().signal)) parts.push(p);
    })().catch((e: unknown) => e);
    expect(parts).toEqual([]);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'http', status: 529, code: 'overloaded_error', retryable: true, quota: false });
    expect((err as ProviderError).message).toContain('Overloaded');
  });

  it('401 with an authentication_error is not retryable and points at the key', async () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    const fetch = fakeFetch(() => new Response(body, { status: 401, headers: { 'content-type': 'application/json' } }));
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({
      kind: 'http',
      status: 401,
      retryable: false,
      message: expect.stringContaining('API key'),
    });
  });
});

describe('stream', () => {
  it('`event: error` mid-stream (no message_stop) ends in a retryable stream error after the partial text', async () => {
    const parts = await run(
      sse(start(), textBlock(0), text(0, 'Hel'), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'),
    );
    expect(normalize(parts)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'usage', inputTokens: 10, outputTokens: 1 },
      { type: 'error', kind: 'stream', code: 'overloaded_error', retryable: true, quota: false, message: expect.stringContaining('Overloaded') },
    ]);
  });

  it('a stream without message_stop is truncated, even after a stop_reason', async () => {
    const parts = await run(sse(start(), textBlock(0), text(0, 'Hi'), stop(0), msgDelta('end_turn')));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'truncated', retryable: true } });
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
  });

  it('no tool call is completed when the stream breaks off inside it', async () => {
    const parts = await run(sse(start(), toolBlock(0, 't1', 'a'), json(0, '{"x":1}'), stop(0)));
    expect(parts.map((p) => p.type)).toEqual(['tool-call-start', 'tool-call-delta', 'usage', 'error']);
  });

  it('no-argument tools (no delta, or only "") get {}; parallel calls are numbered by call, not by block', async () => {
    const parts = await run(
      sse(
        start(),
        textBlock(0, 'Sure. '),
        toolBlock(1, 't1', 'now'),
        stop(1),
        { type: 'ping' },
        toolBlock(2, 't2', 'today'),
        json(2, ''),
        stop(2),
        msgDelta('tool_use', 40),
        END,
      ),
    );
    expect(normalize(parts)).toEqual([
      { type: 'text-delta', text: 'Sure. ' },
      { type: 'tool-call-start', index: 0, id: 't1', name: 'now' },
      { type: 'tool-call-start', index: 1, id: 't2', name: 'today' },
      { type: 'tool-call', index: 0, id: 't1', name: 'now', args: {} },
      { type: 'tool-call', index: 1, id: 't2', name: 'today', args: {} },
      { type: 'usage', inputTokens: 10, outputTokens: 40 },
      { type: 'finish', reason: 'tool-calls', raw: 'tool_use' },
    ]);
  });

  it('counts cached prompt tokens as input; message_delta usage is cumulative', async () => {
    const begin = {
      type: 'message_start',
      message: { id: 'm', usage: { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 1 } },
    };
    const parts = await run(sse(begin, textBlock(0), text(0, 'x'), msgDelta(null, 3), msgDelta('end_turn', 9), END));
    expect(parts.filter((p) => p.type === 'usage')).toEqual([{ type: 'usage', inputTokens: 125, outputTokens: 9 }]);
  });

  it.each([
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
    ['something_new', 'other'],
  ])('maps stop_reason %s to %s', async (raw, reason) => {
    const parts = await run(sse(start(), textBlock(0), text(0, 'x'), stop(0), msgDelta(raw), END));
    expect(parts[parts.length - 1]).toEqual({ type: 'finish', reason, raw });
  });

  it('thinking and text given whole in content_block_start are emitted; signature and unknown blocks are ignored', async () => {
    const parts = await run(
      sse(
        start(),
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: 'hmm', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'SIG' } },
        stop(0),
        { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
        stop(1),
        textBlock(2, 'done'),
        stop(2),
        { type: 'some_future_event', foo: 1 },
        msgDelta('end_turn'),
        END,
      ),
    );
    expect(normalize(parts)).toEqual([
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'text-delta', text: 'done' },
      { type: 'usage', inputTokens: 10, outputTokens: 5 },
      { type: 'finish', reason: 'stop', raw: 'end_turn' },
    ]);
  });

  it('a raw JSON error body written into the 200 stream is raised', async () => {
    const parts = await run('{"type":"error","error":{"type":"api_error","message":"Internal server error"}}\n');
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ type: 'error', error: { kind: 'stream', code: 'api_error', retryable: true } });
  });
});
