// "Test the connection" in the server edition: POST /agent/provider-test runs the probe on the
// server with the key from its environment, as its owner's configuration binds it (the attacks
// on that configuration are in server-trust.test.ts). A writer gets the models; a reader and an
// anonymous user are refused before any request leaves the server; a key in the body is
// ignored; a typed base URL on an origin the key is not bound to gets no key, and a provider
// that echoes the key does not get it back to the page.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { demoWikiFolder } from '../helpers/e2e';
import { post, startServer, WRITE_HEADERS, type TwServer } from '../helpers/server';

jest.setTimeout(60_000);

const { startMockLlm } = require('../../scripts/mock-llm.cjs') as { startMockLlm(options: { port?: number; apiKey?: string }): Promise<Mock> };
interface Mock {
  url: string;
  requests: { path: string; headers: Record<string, string> }[];
  reset(): void;
  close(): Promise<void>;
}

const KEY = 'sk-server-secret-1234';
const PROFILE = '$:/demo/providers/mock-llm';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const WRITER = { ...WRITE_HEADERS, ...basic('alice', 'wonderland') };
const READER = { ...WRITE_HEADERS, ...basic('bob', 'builder') };

let mock: Mock;
let server: TwServer;
let dir: string;
/** Two servers like it: one a saved profile calls (echo), one no profile names (other). */
let echo: http.Server;
let echoUrl: string;
let other: http.Server;
let otherUrl: string;
/** Authorization headers that reached the other server (not the mock). */
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ port: 0, apiKey: KEY });
  // A provider that echoes whatever key it gets in its error, as some proxies do.
  const echoing: http.RequestListener = (req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Key ${req.headers.authorization ?? 'none'} is not valid here`, code: 'invalid_api_key' } }));
  };
  [echo, echoUrl] = await listen(echoing);
  [other, otherUrl] = await listen(echoing);
  dir = demoWikiFolder(mock.url, { server: true, edition: 'server', providerFields: { 'api-key-name': 'mock-api-key' } });
  fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
  fs.writeFileSync(
    path.join(dir, 'tiddlers', 'echo-profile.tid'),
    `title: Echo profile\ntags: $:/tags/AI/Provider\napi: openai-chat\nbase-url: ${echoUrl}\napi-key-name: mock-api-key\n\n`,
  );
  const config = { keys: { 'mock-api-key': { origins: [new URL(mock.url).origin, new URL(echoUrl).origin] } }, allowHosts: ['127.0.0.1'] };
  server = await startServer(dir, ['credentials=users.csv', 'readers=alice,bob', 'writers=alice'], {
    'mock-api-key': KEY,
    TIDDLYAGENT_CONFIG: JSON.stringify(config),
  });
});

afterAll(async () => {
  await server?.stop();
  await mock?.close();
  await new Promise((r) => other.close(r));
  await new Promise((r) => echo.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function listen(handler: http.RequestListener): Promise<[http.Server, string]> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return [s, `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`];
}

beforeEach(() => {
  mock.reset();
  seen.length = 0;
});

test("a writer tests a profile with the server's key: the models come back, the key does not", async () => {
  const answer = await post(server.url, 'provider-test', { profile: PROFILE, model: 'mock-model' }, WRITER);
  expect(answer).toEqual({ status: 200, body: { ok: true, models: ['mock-model', 'mock-model-large'], model: 'listed' } });
  expect(mock.requests).toEqual([]); // the list is no chat request; the mock records chats only
  // A key in the body is not used: the server's own key still answers.
  const typed = await post(server.url, 'provider-test', { profile: PROFILE, apiKey: 'sk-wrong' }, WRITER);
  expect(typed.body.ok).toBe(true);
  // An unknown model is named as such.
  const unknown = await post(server.url, 'provider-test', { profile: PROFILE, model: 'gpt-nope' }, WRITER);
  expect(unknown.body).toMatchObject({ ok: false, problem: 'model' });
  expect(JSON.stringify(unknown.body)).not.toContain(KEY);
});

test('a reader and an anonymous user are refused, and the server calls nobody', async () => {
  for (const headers of [READER, WRITE_HEADERS]) {
    const answer = await post(server.url, 'provider-test', { profile: 'Echo profile', baseUrl: otherUrl }, headers);
    expect(answer.status).toBe(401);
  }
  expect(seen).toEqual([]);
  expect(server.output()).not.toContain(KEY);
});

test('a typed base URL on an origin the key is not bound to gets no key; a saved one that echoes it gets it masked', async () => {
  const elsewhere = await post(server.url, 'provider-test', { profile: PROFILE, baseUrl: otherUrl }, WRITER);
  expect(seen).toEqual([]);
  expect(elsewhere.body).toMatchObject({ ok: false, problem: 'refused' });
  seen.length = 0;
  const echoed = await post(server.url, 'provider-test', { profile: 'Echo profile' }, WRITER);
  expect(seen).toEqual([`Bearer ${KEY}`]);
  expect(echoed.body).toMatchObject({ ok: false, problem: 'key' });
  expect(JSON.stringify(echoed.body)).not.toContain(KEY);
  expect(String(echoed.body.detail)).toContain('Bearer ***');
});

test('bad input: no profile, an unknown one, a base URL that is not a string', async () => {
  expect((await post(server.url, 'provider-test', {}, WRITER)).status).toBe(400);
  expect((await post(server.url, 'provider-test', { profile: 'No such profile' }, WRITER)).status).toBe(404);
  expect((await post(server.url, 'provider-test', { profile: PROFILE, baseUrl: 42 }, WRITER)).status).toBe(400);
});
