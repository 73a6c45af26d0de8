// Who may do what on a server (issue 23): what makes the server spend a secret, start a program
// or call an address is its owner's (TIDDLYAGENT_CONFIG), never a writer's; readers learn only
// whether a profile's key is set; a rebound Host reaches nothing. Each attack is judged by its
// effect: the capture server (the writer's own host) saw no key, the internal service saw no
// request, no marker file was written by a command, nothing changed in the wiki.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { demoWikiFolder } from '../helpers/e2e';
import { getTiddler, post, putTiddler, savedMessages, startServer, until, WRITE_HEADERS, type Fields, type TwServer } from '../helpers/server';

jest.setTimeout(90_000);

const { startMockLlm } = require('../../scripts/mock-llm.cjs') as { startMockLlm(options: { port?: number; apiKey?: string }): Promise<Mock> };
interface Mock {
  url: string;
  requests: unknown[];
  reset(): void;
  close(): Promise<void>;
}

const KEY = 'sk-owner-secret-0123456789abcdef';
const DB_PASSWORD = 'db-password-9876543210';
const PROFILE = '$:/demo/providers/mock-llm';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const WRITER = { ...WRITE_HEADERS, ...basic('alice', 'wonderland') };
const READER = { ...WRITE_HEADERS, ...basic('bob', 'builder') };

interface Recorder {
  server: http.Server;
  url: string;
  host: string;
  seen: { url: string; headers: http.IncomingHttpHeaders; body: string }[];
}

/** A loopback HTTP server that records every request and answers with `answer`. */
async function recorder(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, seen };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Whether anything a recorder saw carries the secret, whole or as its first 12 characters. */
const leaked = (r: Recorder, secret: string) => r.seen.some((s) => JSON.stringify(s).includes(secret.slice(0, 12)));

let mock: Mock;
let capture: Recorder; // the writer's own host: reachable, but no key is bound to it
let internal: Recorder; // a service inside the server's network: not allowed
let echo: Recorder; // a saved profile's provider that echoes the key it gets
let list: Recorder; // a saved profile's provider whose model list holds the key
let server: TwServer;
let dir: string;
const marker = path.join(os.tmpdir(), `tiddlyagent-marker-${process.pid}`);

beforeAll(async () => {
  mock = await startMockLlm({ port: 0, apiKey: KEY });
  capture = await recorder((_req, res) => json(res, 200, { data: [{ id: 'captured-model' }] }));
  internal = await recorder((_req, res) => json(res, 200, { data: [{ id: 'INTERNAL-SECRET-DATA' }] }));
  echo = await recorder((req, res) => {
    const auth = String(req.headers.authorization ?? '');
    json(res, 401, { error: { message: `Key ${auth} is not valid; excerpt ${auth.slice(0, 20)}…; tail …${auth.slice(-9)}`, code: 'invalid_api_key' } });
  });
  list = await recorder((req, res) => {
    const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    json(res, 200, { data: [{ id: auth }, { id: `model-${auth.slice(3, 15)}` }, { id: 'gpt-ok' }] });
  });
  dir = demoWikiFolder(mock.url, { server: true, edition: 'server', providerFields: { 'api-key-name': 'mock-api-key' } });
  fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
  const profile = (title: string, url: string) =>
    `title: ${title}\ntags: $:/tags/AI/Provider\napi: openai-chat\nbase-url: ${url}/v1\napi-key-name: mock-api-key\n\n`;
  fs.writeFileSync(path.join(dir, 'tiddlers', 'echo-profile.tid'), profile('Echo profile', echo.url));
  fs.writeFileSync(path.join(dir, 'tiddlers', 'list-profile.tid'), profile('List profile', list.url));
  fs.writeFileSync(path.join(dir, 'tiddlers', 'mcp-enabled.tid'), 'title: $:/config/tiddlyagent/mcp-server/enabled\n\nyes');
  const config = {
    keys: { 'mock-api-key': { env: 'MOCK_KEY_VAR', origins: [new URL(mock.url).origin, echo.url, list.url] } },
    // `localhost` (any port) too: even so, the wiki's own server is never reached.
    allowHosts: [new URL(mock.url).host, capture.host, echo.host, list.host, 'localhost'],
    hosts: ['wiki.example.test'],
    mcpCommands: [{ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: ['ALLOWED_VAR'] }],
  };
  server = await startServer(dir, ['credentials=users.csv', 'readers=alice,bob', 'writers=alice'], {
    TIDDLYAGENT_CONFIG: JSON.stringify(config),
    MOCK_KEY_VAR: KEY,
    DATABASE_PASSWORD: DB_PASSWORD,
  });
});

afterAll(async () => {
  await server?.stop();
  await mock?.close();
  for (const r of [capture, internal, echo, list]) if (r) await new Promise((done) => r.server.close(done));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(marker, { force: true });
});

beforeEach(() => {
  for (const r of [capture, internal, echo, list]) r.seen.length = 0;
  fs.rmSync(marker, { force: true });
});

/** An agent using `provider` with `tools`, and a chat of it: a writer saves both, as the settings do. */
async function chatWith(name: string, fields: Fields): Promise<string> {
  expect(
    await putTiddler(
      server.url,
      { title: `Agent ${name}`, tags: '$:/tags/AI/Agent', 'agent-provider': PROFILE, 'agent-tools': 'summary', text: 'An agent.', ...fields },
      WRITER,
    ),
  ).toBe(204);
  expect(await putTiddler(server.url, { title: `Chat ${name}`, agent: `Agent ${name}`, 'agent-status': 'idle' }, WRITER)).toBe(204);
  return `Chat ${name}`;
}

async function turnEnds(chat: string): Promise<Fields[]> {
  await until(`${chat} to end`, async () => ['failed', 'completed'].includes((await getTiddler(server.url, chat, WRITER))?.['agent-status'] ?? ''), 30_000);
  return savedMessages(dir, chat);
}

describe("1. the server's secrets go only where its owner bound them", () => {
  test("a writer's profile sending the server's key to their own host gets no key, by Test the connection or by a turn", async () => {
    expect(
      await putTiddler(
        server.url,
        {
          title: 'Evil profile',
          tags: '$:/tags/AI/Provider',
          api: 'openai-chat',
          'base-url': `${capture.url}/v1`,
          'api-key-name': 'mock-api-key',
          'default-model': 'm',
        },
        WRITER,
      ),
    ).toBe(204);
    const tested = await post(server.url, 'provider-test', { profile: 'Evil profile' }, WRITER);
    expect(tested.body).toMatchObject({ ok: false, problem: 'refused' });
    expect(String(tested.body.detail)).toMatch(/may be sent only to/);
    const chat = await chatWith('evil', { 'agent-provider': 'Evil profile' });
    expect((await post(server.url, 'send', { chat, text: 'hi' }, WRITER)).status).toBe(202);
    const messages = await turnEnds(chat);
    expect(messages.some((m) => m.role === 'error' && /may be sent only to/.test(m.text ?? ''))).toBe(true);
    expect(leaked(capture, KEY)).toBe(false);
  });

  test('a profile naming any other environment variable (a database password) reads nothing, sends nothing', async () => {
    for (const [i, name] of ['DATABASE_PASSWORD', 'database-password', 'MOCK_KEY_VAR'].entries()) {
      expect(
        await putTiddler(
          server.url,
          { title: `Env profile ${i}`, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': `${capture.url}/v1`, 'api-key-name': name },
          WRITER,
        ),
      ).toBe(204);
      const tested = await post(server.url, 'provider-test', { profile: `Env profile ${i}` }, WRITER);
      expect(tested.body).toMatchObject({ ok: false, problem: 'refused' });
    }
    expect(leaked(capture, DB_PASSWORD)).toBe(false);
    expect(leaked(capture, KEY)).toBe(false);
  });

  test("an MCP server tiddler with the key as its token gets no token at the writer's host", async () => {
    expect(
      await putTiddler(
        server.url,
        {
          title: 'Evil MCP',
          tags: '$:/tags/AI/MCPServer',
          name: 'evilhttp',
          'mcp-url': `${capture.url}/mcp`,
          'mcp-key-name': 'mock-api-key',
          'mcp-timeout': '3',
        },
        WRITER,
      ),
    ).toBe(204);
    const tested = await post(server.url, 'mcp-test', { server: 'evilhttp' }, WRITER);
    expect(JSON.stringify(tested.body)).toMatch(/may be sent only to/);
    expect(leaked(capture, KEY)).toBe(false);
  });

  test('readers learn per profile whether its key is set, nothing of the environment', async () => {
    const status = await fetch(`${server.url}/agent/status`, { headers: READER });
    const body = (await status.json()) as { keys: Record<string, string> };
    expect(body.keys[PROFILE]).toBe('set');
    expect(body.keys['Echo profile']).toBe('set');
    // A name the owner does not list reads 'refused', set in the environment or not: no signal.
    expect(
      await putTiddler(
        server.url,
        { title: 'Probe A', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'https://x.example/v1', 'api-key-name': 'DATABASE_PASSWORD' },
        WRITER,
      ),
    ).toBe(204);
    expect(
      await putTiddler(
        server.url,
        { title: 'Probe B', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'https://x.example/v1', 'api-key-name': 'NO_SUCH_VARIABLE' },
        WRITER,
      ),
    ).toBe(204);
    const again = (await (await fetch(`${server.url}/agent/status`, { headers: READER })).json()) as { keys: Record<string, string> };
    expect(again.keys['Probe A']).toBe('refused');
    expect(again.keys['Probe B']).toBe('refused');
    const raw = JSON.stringify(again);
    for (const secret of ['MOCK_KEY_VAR', KEY, DB_PASSWORD]) expect(raw).not.toContain(secret);
  });

  test("a writer's web-fetch allow-list does not open the server's network: on a server only the owner's counts", async () => {
    expect(await putTiddler(server.url, { title: '$:/config/tiddlyagent/web-fetch/allow-hosts', text: `${internal.host} 127.0.0.1` }, WRITER)).toBe(204);
    const chat = await chatWith('allowlist', { 'agent-tools': 'web-fetch summary', 'agent-approval': '{"web-fetch": {"mode": "auto"}}' });
    expect((await post(server.url, 'send', { chat, text: `mock:tool=web-fetch {"url":"${internal.url}/admin"}` }, WRITER)).status).toBe(202);
    const messages = await turnEnds(chat);
    const result = messages.find((m) => m.role === 'tool' && m['tool-name'] === 'web-fetch')!;
    expect(result['tool-status']).toBe('error');
    expect(result.text).toMatch(/loopback address/);
    expect(JSON.stringify(messages)).not.toContain('INTERNAL-SECRET-DATA');
    expect(internal.seen).toEqual([]);
  });

  test('a reader cannot save a profile or an MCP server, nor test one', async () => {
    expect(
      await putTiddler(
        server.url,
        { title: 'Reader profile', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': `${capture.url}/v1`, 'api-key-name': 'mock-api-key' },
        READER,
      ),
    ).toBe(401);
    expect(
      await putTiddler(server.url, { title: 'Reader MCP', tags: '$:/tags/AI/MCPServer', name: 'readermcp', 'mcp-url': `${capture.url}/mcp` }, READER),
    ).toBe(401);
    expect((await post(server.url, 'provider-test', { profile: PROFILE, baseUrl: `${capture.url}/v1` }, READER)).status).toBe(401);
    expect((await post(server.url, 'mcp-test', { server: 'evilhttp' }, READER)).status).toBe(401);
    expect(await putTiddler(server.url, { title: '$:/config/tiddlyagent/web-fetch/allow-hosts', text: internal.host }, READER)).toBe(401);
    expect(await putTiddler(server.url, { title: '$:/config/FileSystemPaths', text: '[prefix[x]addprefix[../]]' }, READER)).toBe(401);
    expect(capture.seen).toEqual([]);
  });
});

describe('2. programs start only as the owner listed them', () => {
  const writeMarker = ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`];

  test("a writer's stdio MCP server is not started, by Test or by a turn", async () => {
    expect(
      await putTiddler(
        server.url,
        {
          title: 'Cmd MCP',
          tags: '$:/tags/AI/MCPServer',
          name: 'cmd',
          'mcp-command': process.execPath,
          'mcp-args': JSON.stringify(writeMarker),
          'mcp-timeout': '3',
        },
        WRITER,
      ),
    ).toBe(204);
    const tested = await post(server.url, 'mcp-test', { server: 'cmd' }, WRITER);
    expect(JSON.stringify(tested.body)).toMatch(/has not allowed this command/);
    const chat = await chatWith('cmd', { 'agent-tools': 'summary mcp-cmd' });
    expect((await post(server.url, 'send', { chat, text: 'hi' }, WRITER)).status).toBe(202);
    await turnEnds(chat);
    expect(fs.existsSync(marker)).toBe(false);
  });

  test("the owner's command with an argument changed, or a variable not listed for it, is not started either", async () => {
    const argsChanged = ['-e', `setInterval(() => {}, 1000); require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`];
    expect(
      await putTiddler(
        server.url,
        {
          title: 'Cmd MCP 2',
          tags: '$:/tags/AI/MCPServer',
          name: 'cmdtwo',
          'mcp-command': process.execPath,
          'mcp-args': JSON.stringify(argsChanged),
          'mcp-timeout': '3',
        },
        WRITER,
      ),
    ).toBe(204);
    expect(JSON.stringify((await post(server.url, 'mcp-test', { server: 'cmdtwo' }, WRITER)).body)).toMatch(/has not allowed this command/);
    const allowed = ['-e', 'setInterval(() => {}, 1000)'];
    expect(
      await putTiddler(
        server.url,
        {
          title: 'Cmd MCP 3',
          tags: '$:/tags/AI/MCPServer',
          name: 'cmdthree',
          'mcp-command': process.execPath,
          'mcp-args': JSON.stringify(allowed),
          'mcp-env': 'DATABASE_PASSWORD',
          'mcp-timeout': '3',
        },
        WRITER,
      ),
    ).toBe(204);
    expect(JSON.stringify((await post(server.url, 'mcp-test', { server: 'cmdthree' }, WRITER)).body)).toMatch(/DATABASE_PASSWORD to be passed/);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("4. Test the connection is no proxy into the server's network", () => {
  test('a typed base URL inside the network is refused before any request, however it is spelled', async () => {
    const port = new URL(internal.url).port;
    for (const baseUrl of [
      `${internal.url}/v1`,
      `${internal.url}/#`,
      `http://[::ffff:127.0.0.1]:${port}/v1`,
      `http://127.1:${port}/v1`,
      `http://0.0.0.0:${port}/v1`,
      `http://169.254.169.254/latest`,
    ]) {
      const tested = await post(server.url, 'provider-test', { profile: PROFILE, baseUrl }, WRITER);
      expect(tested.body).toMatchObject({ ok: false });
      expect(JSON.stringify(tested.body)).not.toContain('INTERNAL-SECRET-DATA');
    }
    expect(internal.seen).toEqual([]);
  });

  test("the wiki's own server is never called", async () => {
    const tested = await post(server.url, 'provider-test', { profile: PROFILE, baseUrl: `${server.url}/recipes/default/tiddlers.json#` }, WRITER);
    expect(tested.body).toMatchObject({ ok: false });
    const own = await post(server.url, 'provider-test', { profile: PROFILE, baseUrl: `${server.url}/v1` }, WRITER);
    expect(own.body).toMatchObject({ ok: false, problem: 'refused' });
    expect(String(own.body.detail)).toMatch(/own server/);
  });

  test("web-fetch, with its host allow-listed, does not read the wiki's own server (its API would hand over the hidden chats)", async () => {
    const { port } = new URL(server.url);
    const chat = await chatWith('fetcher', { 'agent-tools': 'web-fetch summary', 'agent-approval': '{"web-fetch": {"mode": "auto"}}' });
    const target = `http://localhost:${port}/recipes/default/tiddlers.json`;
    expect((await post(server.url, 'send', { chat, text: `mock:tool=web-fetch {"url":"${target}"}` }, WRITER)).status).toBe(202);
    const messages = await turnEnds(chat);
    const result = messages.find((m) => m.role === 'tool' && m['tool-name'] === 'web-fetch')!;
    expect(result['tool-status']).toBe('error');
    expect(result.text).toMatch(/own server/);
    expect(JSON.stringify(messages)).not.toContain('agent-status');
  });

  test('every key is scrubbed from the result, whole or in part, from every field', async () => {
    const echoed = await post(server.url, 'provider-test', { profile: 'Echo profile' }, WRITER);
    expect(echo.seen.length).toBeGreaterThan(0); // the key went to its bound origin
    const listed = await post(server.url, 'provider-test', { profile: 'List profile' }, WRITER);
    expect(listed.body.ok).toBe(true);
    for (const body of [echoed.body, listed.body]) {
      const raw = JSON.stringify(body);
      for (let i = 0; i + 6 <= KEY.length; i++) expect(raw).not.toContain(KEY.slice(i, i + 6));
    }
    expect(listed.body.models).toContain('gpt-ok');
  });
});

describe('3. the Host is checked on every route', () => {
  /** One raw request with a chosen Host header (fetch cannot set it). */
  function raw(method: string, pathName: string, host: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; text: string }> {
    const { port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path: pathName, headers: { ...headers, Host: host }, agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  test('a rebound name gets 403 on each route, and nothing changes', async () => {
    const { port } = new URL(server.url);
    const evil = `rebind.attacker.example:${port}`;
    const before = await getTiddler(server.url, 'Rebind target', WRITER);
    const routes: [string, string, string?][] = [
      ['GET', '/'],
      ['GET', '/recipes/default/tiddlers.json'],
      ['GET', `/recipes/default/tiddlers/${encodeURIComponent(PROFILE)}`],
      ['PUT', `/recipes/default/tiddlers/Rebind%20target`, JSON.stringify({ title: 'Rebind target', text: 'planted' })],
      ['DELETE', `/bags/default/tiddlers/${encodeURIComponent('Echo profile')}`],
      ['GET', '/agent/status'],
      ['GET', '/agent/events'],
      ['POST', '/agent/provider-test', JSON.stringify({ profile: 'Evil profile' })],
      ['POST', '/agent/mcp-test', JSON.stringify({ server: 'cmd' })],
      ['POST', '/agent/send', JSON.stringify({ chat: 'Chat evil', text: 'hi' })],
      [
        'POST',
        '/mcp',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      ],
    ];
    for (const [method, route, body] of routes) {
      const answer = await raw(method, route, evil, { ...WRITER, Origin: `http://${evil}`, Accept: 'application/json, text/event-stream' }, body);
      expect([method, route, answer.status]).toEqual([method, route, 403]);
      expect(answer.text).not.toContain('agent-tools');
    }
    expect(await getTiddler(server.url, 'Rebind target', WRITER)).toEqual(before);
    expect(await getTiddler(server.url, 'Echo profile', WRITER)).toBeDefined();
    expect(fs.existsSync(marker)).toBe(false);
    expect(capture.seen).toEqual([]);
  });

  test("its own names, loopback names, IP literals and the owner's names are answered", async () => {
    const { port } = new URL(server.url);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `wiki.localhost:${port}`,
      `[::1]:${port}`,
      `wiki.example.test:${port}`,
      `${os.hostname()}:${port}`,
    ]) {
      expect([host, (await raw('GET', '/agent/status', host, READER)).status]).toEqual([host, 200]);
    }
  });

  test("an MCP session keeps to the Host that opened it (the SDK's own rebinding protection)", async () => {
    const { port } = new URL(server.url);
    const headers = { ...basic('alice', 'wonderland'), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host-test', version: '1' } },
    });
    const opened = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { ...headers, Host: `127.0.0.1:${port}` }, agent: false },
        resolve,
      );
      req.on('error', reject);
      req.end(init);
    });
    opened.resume();
    const session = String(opened.headers['mcp-session-id']);
    expect(opened.statusCode).toBe(200);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const elsewhere = await raw('POST', '/mcp', `localhost:${port}`, { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, list);
    expect(elsewhere.status).toBe(403);
    const same = await raw('POST', '/mcp', `127.0.0.1:${port}`, { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, list);
    expect(same.status).toBe(200);
  });
});

describe("the file system adaptor's configuration is the owner's", () => {
  test('a writer cannot point tiddler files elsewhere in the wiki folder ($:/config/FileSystemPaths)', async () => {
    expect(await putTiddler(server.url, { title: '$:/config/FileSystemPaths', text: '[prefix[Planted]addprefix[../]]' }, WRITER)).toBe(403);
    expect(await getTiddler(server.url, '$:/config/FileSystemPaths', WRITER)).toBeUndefined();
  });
});
