/*\
The OpenAI Responses adapter beyond the recorded fixtures: request shape, function calls,
incomplete replies, both error shapes, response.failed, truncation and unknown events.
\*/
import { createLanguageModel } from '../../../src/agent/providers';
import { createOpenAIResponsesModel } from '../../../src/agent/providers/openai-responses';
import type { FetchFn, ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import { collect, fakeFetch, normalize, sseResponse } from './replay';

const BASE = 'https://api.example.com/v1';
const REQ: ModelRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };

function model(fetch: FetchFn, extra: { apiKey?: string; headers?: Record<string, string>; baseUrl?: string } = {}) {
  return createOpenAIResponsesModel({ baseUrl: BASE, apiKey: 'sk-test', ...extra, fetch });
}

/** An SSE body from typed event objects (`event: <type>` + JSON data) and raw strings, in order. */
function sse(...events: (Record<string, unknown> | string)[]): string {
  return events.map((e) => (typeof e === 'string' ? e : `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`)).join('');
}
const created = { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [], usage: null } };
const completed = (usage: object | null = { input_tokens: 10, output_tokens: 5, output_tokens_details: { reasoning_tokens: 2 } }) => ({
  type: 'response.completed',
  response: { id: 'resp_1', status: 'completed', usage },
});
const text = (delta: string) => ({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta });
const callAdded = (outputIndex: number, itemId: string, callId: string, name: string) => ({
  type: 'response.output_item.added',
  output_index: outputIndex,
  item: { type: 'function_call', id: itemId, call_id: callId, name, arguments: '', status: 'in_progress' },
});
const argsDelta = (outputIndex: number, itemId: string, delta: string) => ({
  type: 'response.function_call_arguments.delta',
  item_id: itemId,
  output_index: outputIndex,
  delta,
});
const callDone = (outputIndex: number, itemId: string, callId: string, name: string, args: string) => ({
  type: 'response.output_item.done',
  output_index: outputIndex,
  item: { type: 'function_call', id: itemId, call_id: callId, name, arguments: args, status: 'completed' },
});

async function run(body: string, req: ModelRequest = REQ): Promise<StreamPart[]> {
  return collect(model(fakeFetch(() => sseResponse(body))).stream(req, new AbortController().signal));
}

describe('request', () => {
  const request: ModelRequest = {
    model: 'gpt-5-mini',
    temperature: 0.2,
    maxOutputTokens: 512,
    tools: [
      { name: 'multiply', description: 'Multiply two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    ],
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: 'What is 1231 * 2331?' },
      { role: 'assistant', content: 'Let me compute.', toolCalls: [{ id: 'call_1', name: 'multiply', args: { a: 1231, b: 2331 } }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'multiply', content: '2869461' },
      { role: 'assistant', content: 'It is 2,869,461.' },
      { role: 'user', content: 'Thanks' },
    ],
  };

  it('POSTs the documented body to {baseUrl}/responses', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(created, completed())));
    await collect(model(fetch, { baseUrl: `${BASE}/` }).stream(request, new AbortController().signal));
    expect(fetch.calls).toHaveLength(1);
    const { url, init } = fetch.calls[0]!;
    expect(url).toBe('https://api.example.com/v1/responses');
    expect(init.method).toBe('POST');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(init.body as string)).toEqual({
      model: 'gpt-5-mini',
      instructions: 'Be brief.\n\nAnswer in English.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'What is 1231 * 2331?' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Let me compute.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'multiply', arguments: '{"a":1231,"b":2331}' },
        { type: 'function_call_output', call_id: 'call_1', output: '2869461' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'It is 2,869,461.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'multiply',
          description: 'Multiply two numbers',
          parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
          strict: false,
        },
      ],
      temperature: 0.2,
      max_output_tokens: 512,
      stream: true,
      store: false,
    });
  });

  it('leaves out instructions, tools, temperature and max_output_tokens when not given; empty assistant text is skipped', async () => {
    const fetch = fakeFetch(() => sseResponse(sse(completed())));
    const req: ModelRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: 'list files' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'ls', args: undefined },
            { id: 'c2', name: 'cat', args: '{"path":"a"}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'ls', content: 'a' },
        { role: 'tool', toolCallId: 'c2', toolName: 'cat', content: 'x' },
      ],
    };
    await collect(model(fetch).stream(req, new AbortController().signal));
    expect(JSON.parse(fetch.calls[0]!.init.body as string)).toEqual({
      model: 'm',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
        { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
        { type: 'function_call', call_id: 'c2', name: 'cat', arguments: '{"path":"a"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a' },
        { type: 'function_call_output', call_id: 'c2', output: 'x' },
      ],
      stream: true,
      store: false,
    });
  });

  it('sends a Bearer key only when one is set, plus custom headers', async () => {
    const withKey = fakeFetch(() => sseResponse(sse(completed())));
    await collect(model(withKey, { headers: { 'openai-organization': 'org_1' } }).stream(REQ, new AbortController().signal));
    expect(withKey.calls[0]!.init.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer sk-test', 'openai-organization': 'org_1' });
    const noKey = fakeFetch(() => sseResponse(sse(completed())));
    await collect(model(noKey, { apiKey: '  ' }).stream(REQ, new AbortController().signal));
    expect(noKey.calls[0]!.init.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('is registered as "openai-responses"', () => {
    const m = createLanguageModel('openai-responses', { baseUrl: BASE, fetch: fakeFetch(() => sseResponse('')) });
    expect(m.api).toBe('openai-responses');
  });
});

describe('stream', () => {
  it('streams a function call live and completes it only at response.completed', async () => {
    const parts = await run(
      sse(
        created,
        callAdded(0, 'fc_1', 'call_abc', 'get_weather'),
        argsDelta(0, 'fc_1', '{"loc'),
        argsDelta(0, 'fc_1', 'ation":"Paris"}'),
        { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 0, arguments: '{"location":"Paris"}' },
        callDone(0, 'fc_1', 'call_abc', 'get_weather', '{"location":"Paris"}'),
        completed(),
      ),
    );
    expect(parts).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_abc', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argsText: '{"loc' },
      { type: 'tool-call-delta', index: 0, argsText: 'ation":"Paris"}' },
      { type: 'tool-call', index: 0, id: 'call_abc', name: 'get_weather', args: { location: 'Paris' } },
      { type: 'usage', inputTokens: 10, outputTokens: 5, reasoningTokens: 2 },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('handles parallel calls, text before them, empty arguments and deltas matched by output_index', async () => {
    const parts = await run(
      sse(
        text('Checking.'),
        callAdded(1, 'fc_1', 'call_1', 'a'),
        callAdded(2, 'fc_2', 'call_2', 'b'),
        { type: 'response.function_call_arguments.delta', output_index: 1, delta: '{"x":1}' },
        callDone(1, 'fc_1', 'call_1', 'a', '{"x":1}'),
        callDone(2, 'fc_2', 'call_2', 'b', ''),
        completed(null),
      ),
    );
    expect(normalize(parts)).toEqual([
      { type: 'text-delta', text: 'Checking.' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'a' },
      { type: 'tool-call-start', index: 1, id: 'call_2', name: 'b' },
      { type: 'tool-call-delta', index: 0, argsText: '{"x":1}' },
      { type: 'tool-call', index: 0, id: 'call_1', name: 'a', args: { x: 1 } },
      { type: 'tool-call', index: 1, id: 'call_2', name: 'b', args: {} },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('takes the arguments from the .done events when no deltas came', async () => {
    const parts = await run(sse(callAdded(0, 'fc_1', 'call_1', 'f'), callDone(0, 'fc_1', 'call_1', 'f', '{"q":"x"}'), completed(null)));
    expect(parts).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argsText: '{"q":"x"}' },
      { type: 'tool-call', index: 0, id: 'call_1', name: 'f', args: { q: 'x' } },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('response.incomplete (max_output_tokens) finishes with length; a cut-off call is invalid', async () => {
    const parts = await run(
      sse(callAdded(0, 'fc_1', 'call_1', 'write'), argsDelta(0, 'fc_1', '{"text":"abc'), {
        type: 'response.incomplete',
        response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 3, output_tokens: 16 } },
      }),
    );
    expect(parts.slice(-3)).toEqual([
      {
        type: 'tool-call-invalid',
        index: 0,
        id: 'call_1',
        name: 'write',
        argsText: '{"text":"abc',
        reason: expect.stringContaining('cut off by the token limit'),
      },
      { type: 'usage', inputTokens: 3, outputTokens: 16 },
      { type: 'finish', reason: 'length', raw: 'max_output_tokens' },
    ]);
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
  });

  it('response.incomplete for other reasons finishes with content-filter or other', async () => {
    const inc = (reason: string) => ({ type: 'response.incomplete', response: { incomplete_details: { reason } } });
    expect((await run(sse(text('a'), inc('content_filter')))).pop()).toEqual({ type: 'finish', reason: 'content-filter', raw: 'content_filter' });
    expect((await run(sse(text('a'), inc('something_new')))).pop()).toEqual({ type: 'finish', reason: 'other', raw: 'something_new' });
  });

  it('reasoning_text deltas (raw chain of thought) become reasoning; refusals are shown as text', async () => {
    const parts = await run(
      sse(
        { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'think ' },
        { type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'more' },
        { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'I cannot help.' },
        completed(null),
      ),
    );
    expect(normalize(parts)).toEqual([
      { type: 'reasoning-delta', text: 'think more' },
      { type: 'text-delta', text: 'I cannot help.' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('the documented flat error event becomes a stream error with the code; a call before it is never completed', async () => {
    const parts = await run(
      sse(callAdded(0, 'fc_1', 'call_1', 'f'), callDone(0, 'fc_1', 'call_1', 'f', '{}'), {
        type: 'error',
        code: 'server_error',
        message: 'The server had an error while processing your request.',
        param: null,
        sequence_number: 4,
      }),
    );
    expect(parts.map((p) => p.type)).toEqual(['tool-call-start', 'tool-call-delta', 'error']);
    expect(parts[2]).toMatchObject({
      type: 'error',
      error: {
        kind: 'stream',
        code: 'server_error',
        retryable: true,
        quota: false,
        message: expect.stringContaining('The server had an error while processing your request.'),
      },
    });
  });

  it('response.failed alone becomes a stream error with its message and code, and keeps its usage', async () => {
    const parts = await run(
      sse(text('partial'), {
        type: 'response.failed',
        response: { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Slow down' }, usage: { input_tokens: 7, output_tokens: 1 } },
      }),
    );
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'usage', 'error']);
    expect(parts[2]).toMatchObject({ type: 'error', error: { kind: 'stream', code: 'rate_limit_exceeded', message: expect.stringContaining('Slow down') } });
    const noDetail = await run(sse({ type: 'response.failed', response: { status: 'failed', error: null } }));
    expect(noDetail).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'stream', message: expect.stringContaining('the response failed') }) }]);
  });

  it('an error event named only by `event: error` (data without a type) is still an error', async () => {
    const parts = await run('event: error\ndata: {"error":{"code":"insufficient_quota","message":"No credit"}}\n\n');
    expect(parts).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'stream', quota: true, code: 'insufficient_quota' }) }]);
  });

  it('EOF without a terminal event is truncated, and started calls are not completed', async () => {
    const parts = await run(sse(created, text('Hel'), callAdded(1, 'fc_1', 'call_1', 'f'), callDone(1, 'fc_1', 'call_1', 'f', '{}')));
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'tool-call-start', 'tool-call-delta', 'error']);
    expect(parts[3]).toMatchObject({ type: 'error', error: { kind: 'truncated', retryable: true } });
  });

  it('an empty 200 body is truncated', async () => {
    expect(await run('')).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'truncated' }) }]);
  });

  it('ignores unknown event types, comments and non-JSON data', async () => {
    const parts = await run(
      sse(
        ': keep-alive\n\n',
        { type: 'response.queued' },
        { type: 'response.web_search_call.in_progress', output_index: 0 },
        'event: response.something\ndata: not json\n\n',
        { type: 'response.output_text.annotation.added', annotation: {} },
        text('ok'),
        completed(null),
      ),
    );
    expect(parts).toEqual([
      { type: 'text-delta', text: 'ok' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('a raw JSON error written into the stream is raised', async () => {
    const parts = await run('{"error":{"message":"Bad things","code":"server_error"}}\n');
    expect(parts).toEqual([{ type: 'error', error: expect.objectContaining({ kind: 'stream', code: 'server_error' }) }]);
  });

  it('stops reading after the terminal event', async () => {
    const parts = await run(sse(text('a'), completed(null), text('ignored')));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'a' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('an HTTP error is thrown before the first part', async () => {
    const fetch = fakeFetch(
      () =>
        new Response(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }), {
          status: 401,
          headers: { 'content-type': 'application/json' },
        }),
    );
    await expect(collect(model(fetch).stream(REQ, new AbortController().signal))).rejects.toMatchObject({ kind: 'http', status: 401, code: 'invalid_api_key' });
  });
});
