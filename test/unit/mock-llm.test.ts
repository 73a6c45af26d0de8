/*
Tests for scripts/mock-llm.cjs, the scripted OpenAI-compatible test double that the other
tests (and the offline demo) talk to. They use Node's fetch over real loopback HTTP, because
the mock's job is to reproduce wire-level behaviour (SSE framing, cut sockets, client aborts,
CORS) that an in-process fake could not.
*/
const { startMockLlm, defaultReply, toolResultReply } = require('../../scripts/mock-llm.cjs');

interface MockRecord {
  id: number;
  body: { messages?: unknown[] } | null;
  headers: Record<string, string | undefined>;
  completed: boolean;
  aborted: boolean;
}
interface Mock {
  url: string;
  requests: MockRecord[];
  queue(script: object | object[]): number;
  reset(): void;
  close(): Promise<void>;
}

let mock: Mock;

// 1 ms between chunks keeps the suite fast while still exercising the timer-driven writes.
beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => mock.reset());

function chat(body: object, init: RequestInit = {}): Promise<Response> {
  return fetch(`${mock.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify(body),
    ...init,
  });
}
const userTurn = (text: string, extra: object = {}) => ({
  model: 'mock-model',
  stream: true,
  messages: [{ role: 'user', content: text }],
  ...extra,
});

// Reads the body to the end or to a network error, so a cut stream's partial text is kept.
async function readAll(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: null };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

// The `data:` payloads of an SSE body, in order.
function dataPayloads(sse: string): string[] {
  return sse
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

// Bounded polling: the server sees the disconnect asynchronously, so wait for the flag
// instead of guessing a sleep long enough on a slow CI machine.
async function waitFor(check: () => boolean, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  return check();
}

test('default reply streams OpenAI chunks, a usage chunk, then [DONE]', async () => {
  const res = await chat(userTurn('Hello mock', { stream_options: { include_usage: true } }));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  expect(res.headers.get('access-control-allow-origin')).toBe('*');

  const { text, error } = await readAll(res);
  expect(error).toBeNull();
  const payloads = dataPayloads(text);
  expect(payloads[payloads.length - 1]).toBe('[DONE]');

  const chunks = payloads.slice(0, -1).map((p) => JSON.parse(p));
  expect(chunks[0].object).toBe('chat.completion.chunk');
  expect(chunks[0].choices[0].delta.role).toBe('assistant');
  const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  expect(content).toBe(defaultReply('Hello mock'));
  expect(content).toContain('not a real AI'); // the mock must never pass for a real model
  expect(chunks.length).toBeGreaterThan(5); // word-sized deltas, not one blob

  const usage = chunks[chunks.length - 1];
  expect(usage.choices).toEqual([]);
  expect(usage.usage.total_tokens).toBe(usage.usage.prompt_tokens + usage.usage.completion_tokens);
  expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop');

  expect(mock.requests).toHaveLength(1);
  expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  expect(mock.requests[0]!.completed).toBe(true);
  expect(mock.requests[0]!.aborted).toBe(false);
});

test("an unknown model gets OpenAI's exact 404 body", async () => {
  const res = await chat(userTurn('hi', { model: 'gpt-nope' }));
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({
    error: {
      message: 'The model `gpt-nope` does not exist or you do not have access to it.',
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
    },
  });
});

test('mock:401 in the user text answers with an invalid_api_key error', async () => {
  const res = await chat(userTurn('please fail mock:401 now'));
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toBe('application/json');
  const body = await res.json();
  expect(body.error.code).toBe('invalid_api_key');
  expect(body.error.type).toBe('invalid_request_error');
});

test('a queued script streams tool calls in fragments; the tool result gets a quoting reply', async () => {
  mock.queue({ toolCalls: [{ id: 'call_1', name: 'search', arguments: { query: 'cats', limit: 3 } }] });
  const { text } = await readAll(await chat(userTurn('find cats')));
  const payloads = dataPayloads(text);
  expect(payloads[payloads.length - 1]).toBe('[DONE]');
  const deltas = payloads.slice(0, -1).map((p) => JSON.parse(p).choices[0]);

  const calls = deltas.flatMap((c) => c.delta.tool_calls ?? []);
  expect(calls[0]).toEqual({ index: 0, id: 'call_1', type: 'function', function: { name: 'search', arguments: '' } });
  const fragments = calls.slice(1).map((c: { function: { arguments: string } }) => c.function.arguments);
  expect(fragments.length).toBeGreaterThanOrEqual(2); // clients must reassemble partial JSON
  expect(JSON.parse(fragments.join(''))).toEqual({ query: 'cats', limit: 3 });
  expect(deltas[deltas.length - 1].finish_reason).toBe('tool_calls');

  // The follow-up request ends with the tool result, so it must not re-trigger a call.
  const followUp = await chat({
    model: 'mock-model',
    stream: true,
    messages: [
      { role: 'user', content: 'find cats' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Found 3 cats' },
    ],
  });
  const reply = dataPayloads((await readAll(followUp)).text)
    .slice(0, -1)
    .map((p) => JSON.parse(p).choices[0]?.delta?.content ?? '')
    .join('');
  expect(reply).toBe(toolResultReply('Found 3 cats'));
});

test('the tour: each step is read from the conversation (search, then an edit with the modified the search showed, then a reply)', async () => {
  const toolCallsOf = async (messages: object[]) => {
    const payloads = dataPayloads((await readAll(await chat({ model: 'mock-model', stream: true, messages }))).text).slice(0, -1);
    const deltas = payloads.map((p) => JSON.parse(p).choices[0]?.delta ?? {});
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    const args = calls
      .slice(1)
      .map((c: { function: { arguments: string } }) => c.function.arguments)
      .join('');
    return { name: calls[0]?.function?.name, args: args ? JSON.parse(args) : undefined, text: deltas.map((d) => d.content ?? '').join('') };
  };
  const user = { role: 'user', content: 'Show me what you can do' };
  const called = (name: string, args: object) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  });
  const result = (content: string) => ({ role: 'tool', tool_call_id: 'c1', content });

  expect(await toolCallsOf([user])).toMatchObject({ name: 'wiki-search', args: { query: 'Demo notes' } });
  const found = 'Found 1.\n<tiddler-data title="Demo notes" modified="20261122000000000" tags="TiddlyAgent">…</tiddler-data>';
  const edit = await toolCallsOf([user, called('wiki-search', {}), result(found)]);
  expect(edit).toMatchObject({ name: 'wiki-edit', args: { title: 'Demo notes', modified: '20261122000000000' } });
  expect(
    (await toolCallsOf([user, called('wiki-search', {}), result(found), called('wiki-edit', {}), result('Edited "Demo notes": 1 change(s)')])).text,
  ).toContain('Roll back');
  expect((await toolCallsOf([user, called('wiki-search', {}), result(found), called('wiki-edit', {}), result('Denied by the user')])).text).toContain(
    'The edit did not happen',
  );
  expect((await toolCallsOf([user, called('wiki-search', {}), result('Found 0.')])).text).toContain('did not find');
  // Anything else is still the default reply.
  expect((await toolCallsOf([{ role: 'user', content: 'Show me what you can do with tags' }])).text).toBe(defaultReply('Show me what you can do with tags'));
});

test('mock:cut destroys the socket mid-stream without [DONE]', async () => {
  const res = await chat(userTurn('mock:cut'));
  expect(res.status).toBe(200);
  const { text, error } = await readAll(res);
  expect(error).toBeTruthy(); // fetch reports the broken chunked body as an error
  const payloads = dataPayloads(text);
  expect(payloads.length).toBeGreaterThan(1); // some words arrived first
  expect(payloads).not.toContain('[DONE]');
  // A deliberate cut is neither a normal completion nor a client abort.
  expect(mock.requests[0]!.completed).toBe(false);
  expect(mock.requests[0]!.aborted).toBe(false);
});

test('a client that aborts after the first chunk is recorded as aborted', async () => {
  const controller = new AbortController();
  // mock:stall hangs after a few words, so only the client can end this request.
  const res = await chat(userTurn('mock:stall'), { signal: controller.signal });
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  controller.abort();
  await reader.read().catch(() => undefined); // the pending read rejects with AbortError

  expect(await waitFor(() => mock.requests[0]?.aborted === true)).toBe(true);
  expect(mock.requests[0]!.completed).toBe(false);
});

test('CORS: preflight from a file:// page (Origin: null) is allowed, including Authorization', async () => {
  const res = await fetch(`${mock.url}/chat/completions`, {
    method: 'OPTIONS',
    headers: {
      origin: 'null',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  expect(res.status).toBe(204);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
  // `*` alone does not cover Authorization per the Fetch spec, so it must be named.
  const allowed = res.headers.get('access-control-allow-headers')!.split(/\s*,\s*/);
  expect(allowed).toEqual(expect.arrayContaining(['*', 'authorization', 'content-type']));
  expect(res.headers.get('access-control-expose-headers')).toBe('retry-after, retry-after-ms');

  const models = await fetch(`${mock.url}/models`, { headers: { origin: 'null' } });
  expect(models.headers.get('access-control-allow-origin')).toBe('*');
  const list = await models.json();
  expect(list.object).toBe('list');
  expect(list.data[0].owned_by).toMatch(/not a real model/);
});

// biome-ignore lint/suspicious/noExportsInTest: the file has no import, and an export makes it a module, so its top-level names do not clash with other test files
export {};
