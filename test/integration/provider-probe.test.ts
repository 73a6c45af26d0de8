// The settings' "Test the connection" (providers/probe.ts) over real HTTP on loopback: the mock
// LLM with a required key tells a good key (models listed) from a bad one (OpenAI's 401), an
// unknown model (404 model_not_found after the list), a closed port (unreachable), a server
// answering HTML or JSON of another shape (unexpected format), and a base URL whose server has
// no such API. Only the list is asked for when the model is in it; no request carries a key
// the user did not give.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { probeProvider } from '../../src/agent/providers/probe';

const { startMockLlm } = require('../../scripts/mock-llm.cjs') as { startMockLlm(options: { port?: number; apiKey?: string }): Promise<Mock> };

interface Mock {
  url: string;
  requests: { method: string; path: string; body: unknown; headers: Record<string, string> }[];
  reset(): void;
  close(): Promise<void>;
}

const fetchFn = (url: string, init: RequestInit) => fetch(url, init);
let mock: Mock;
let html: http.Server;
let htmlUrl: string;
let shape: http.Server;
let shapeUrl: string;

async function serve(handler: http.RequestListener): Promise<[http.Server, string]> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`];
}

beforeAll(async () => {
  mock = await startMockLlm({ port: 0, apiKey: 'sk-good' });
  [html, htmlUrl] = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body><h1>Welcome to my router</h1></body></html>');
  });
  [shape, shapeUrl] = await serve((req, res) => {
    if (req.url?.includes('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ status: 'ok', items: ['a'] }));
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html>Cannot POST</html>');
  });
});

afterAll(async () => {
  await mock.close();
  await new Promise((r) => html.close(r));
  await new Promise((r) => shape.close(r));
});

beforeEach(() => mock.reset());

test('a good key: the models are listed, and a listed model needs no chat request', async () => {
  const result = await probeProvider({ api: 'openai-chat', baseUrl: mock.url, apiKey: 'sk-good', model: 'mock-model' }, fetchFn);
  expect(result).toEqual({ ok: true, models: ['mock-model', 'mock-model-large'], model: 'listed' });
  expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
});

test('a wrong key and no key are "key" problems, with the provider\'s own words', async () => {
  for (const apiKey of ['sk-wrong', undefined]) {
    const result = await probeProvider({ api: 'openai-chat', baseUrl: mock.url, apiKey, model: 'mock-model' }, fetchFn);
    expect(result.ok).toBe(false);
    expect(result.problem).toBe('key');
    expect(result.detail).toContain('Incorrect API key provided');
    expect(result.detail).not.toContain('sk-wrong');
  }
});

test('a model the provider does not know: not in the list, and the chat request says 404 model_not_found', async () => {
  const result = await probeProvider({ api: 'openai-chat', baseUrl: mock.url, apiKey: 'sk-good', model: 'gpt-nope' }, fetchFn);
  expect(result).toMatchObject({ ok: false, problem: 'model', models: ['mock-model', 'mock-model-large'] });
  expect(result.detail).toContain('gpt-nope');
  // The one chat request asked for one token, with the key the user gave.
  const chat = mock.requests.find((r) => r.path === '/v1/chat/completions')!;
  expect((chat.body as { max_tokens: number }).max_tokens).toBe(1);
  expect(chat.headers.authorization).toBe('Bearer sk-good');
});

test('an unreachable base URL (a closed port) and a malformed one', async () => {
  const [closed, closedUrl] = await serve(() => undefined);
  await new Promise((r) => closed.close(r));
  const result = await probeProvider({ api: 'openai-chat', baseUrl: closedUrl, apiKey: 'sk-good', model: 'mock-model' }, fetchFn);
  expect(result).toMatchObject({ ok: false, problem: 'unreachable', models: [] });
  expect(result.detail).toContain('connection refused');
  expect(await probeProvider({ api: 'openai-chat', baseUrl: 'api.openai.com/v1' }, fetchFn)).toMatchObject({ ok: false, problem: 'address' });
});

test('an answer in an unexpected format: an HTML page, or JSON that is not a model list', async () => {
  const page = await probeProvider({ api: 'openai-chat', baseUrl: htmlUrl, apiKey: 'sk-good', model: 'mock-model' }, fetchFn);
  expect(page).toMatchObject({ ok: false, problem: 'format' });
  expect(page.detail).toContain('text/html');
  expect(page.detail).toContain('Welcome to my router');
  const other = await probeProvider({ api: 'anthropic', baseUrl: shapeUrl, apiKey: 'k', model: 'claude' }, fetchFn);
  expect(other).toMatchObject({ ok: false, problem: 'format' });
  expect(other.detail).toContain('"items"');
});

test('a server with no such API at the base URL: the address is wrong, not the model', async () => {
  // The mock serves /v1; one level up there is neither a list nor a chat endpoint.
  const result = await probeProvider({ api: 'openai-chat', baseUrl: mock.url.replace(/\/v1$/, '/v2'), apiKey: 'sk-good', model: 'mock-model' }, fetchFn);
  expect(result).toMatchObject({ ok: false, problem: 'address' });
});

test('an API with no probe is named', async () => {
  expect(await probeProvider({ api: 'telepathy', baseUrl: mock.url }, fetchFn)).toEqual({ ok: false, problem: 'api', detail: 'telepathy', models: [] });
});
