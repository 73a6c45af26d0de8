// Access control on every route of the server edition (issue 14.5), generated from its route
// table: each route module in src/server/routes (its methods and path) and each action of
// POST /agent/<action> (the runner's command and query kinds, runner/commands.ts), plus /mcp, under TiddlyWiki's own
// authentication (a credentials file, readers=alice,bob writers=alice): anonymous, reader and
// writer, with and without `X-Requested-With: TiddlyWiki` (for /mcp, which clients cannot
// send it to, another site's Origin instead), then bad JSON, an oversized body and an unknown
// chat (or MCP session), and each route as the writer would send it but with a rebound Host
// (a web page that pointed its own name at the server: 403 before any route runs). Every request gets the status the table says; every refused one
// changes no tiddler of the server and no file of the wiki folder (tiddlers and agent-state), and
// reaches no model. A route
// or action added without a line here fails the test. One server, a few hundred requests.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { COMMAND_KINDS, QUERY_KINDS } from '../../src/agent/runner/commands';

/** Every action of POST /agent/<action>: the runner's command and query kinds. */
const ACTION_NAMES = [...COMMAND_KINDS, ...QUERY_KINDS];
import { post, savedMessages, serverWikiFolder, startMockLlm, startServer, until, watch, type MockLlm, type SseClient, type TwServer } from '../helpers/server';
import { ROOT } from '../helpers/tw';

jest.setTimeout(60_000);

const CHAT = 'Demo chat';
const UNKNOWN_CHAT = 'No such chat';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const ROLES = { anonymous: {}, reader: basic('bob', 'builder'), writer: basic('alice', 'wonderland') } as const;
type Role = keyof typeof ROLES;
const CSRF = { 'X-Requested-With': 'TiddlyWiki' };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const MCP_ACCEPT = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const ALL = '[all[tiddlers]]';
const OVERSIZED = JSON.stringify({ chat: CHAT, text: 'x'.repeat(1_100_000) });

let mock: MockLlm;
let server: TwServer;
let dir: string;
let url: string;
let page: SseClient;
/** A turn of CHAT waiting for approval: its user message and the pending tool call. */
let userMessage: string;
let pending: string;
/** The writer's MCP session. */
let aliceSession: string;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
  fs.writeFileSync(path.join(dir, 'tiddlers', 'mcp-enabled.tid'), 'title: $:/config/tiddlyagent/mcp-server/enabled\n\nyes');
  // The test reads every tiddler the server holds, with its revision (TiddlyWiki's change count).
  fs.writeFileSync(path.join(dir, 'tiddlers', 'all-filter.tid'), `title: $:/config/Server/ExternalFilters/${ALL}\n\nyes`);
  server = await startServer(dir, ['credentials=users.csv', 'readers=alice,bob', 'writers=alice']);
  url = server.url;
  // Real things to aim at: a turn waiting for the writer's approval, and the writer's MCP session.
  page = await watch(url, [CHAT], { headers: ROLES.writer });
  const sent = await post(
    url,
    'send',
    { chat: CHAT, text: 'mock:tool=wiki-create {"title":"Written by a writer","text":"x"}' },
    { ...JSON_TYPE, ...CSRF, ...ROLES.writer },
  );
  expect(sent.status).toBe(202);
  pending = (await page.waitFor('the approval', (e) => e.event === 'agent' && e.data.type === 'waiting')).data.message;
  await page.waitFor('input-required', (e) => e.event === 'agent' && e.data.type === 'status' && e.data.status === 'input-required');
  userMessage = savedMessages(dir, CHAT).find((m) => m.role === 'user')!.title!;
  const init = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_ACCEPT, ...ROLES.writer }, body: JSON.stringify(initialize('alice-client')) });
  expect(init.status).toBe(200);
  aliceSession = init.headers.get('mcp-session-id')!;
  await init.text();
  await until('the MCP chat on disk', () => fs.readdirSync(path.join(dir, 'tiddlers')).some((f) => f.startsWith('MCP_')));
});

afterAll(async () => {
  page?.close();
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function initialize(name: string): unknown {
  return { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } } };
}

// ---- The route table --------------------------------------------------------------------------

interface RouteModule {
  methods: string[];
  path: RegExp;
}

/** Every route module the server plugin registers (module-type route in its .meta). */
function routeModules(): Map<string, RouteModule> {
  const folder = path.join(ROOT, 'src', 'server', 'routes');
  const out = new Map<string, RouteModule>();
  for (const meta of fs.readdirSync(folder).filter((f) => f.endsWith('.ts.meta'))) {
    if (!/^module-type: route$/m.test(fs.readFileSync(path.join(folder, meta), 'utf8'))) continue;
    const file = meta.replace(/\.meta$/, '');
    const { methods, path: pattern } = require(path.join(folder, file)) as RouteModule;
    out.set(file.replace(/\.ts$/, ''), { methods, path: pattern });
  }
  return out;
}

/** One request of the walk and the status it must get. */
interface Probe {
  route: string;
  method: string;
  path: string;
  role: Role;
  variant: string;
  headers: Record<string, string>;
  body?: string;
  /** A Host header other than the server's (fetch cannot set one: sent over raw HTTP). */
  host?: string;
  expect: number;
}

/** The body of each action aimed at the waiting turn (valid), and at a chat that does not exist. */
function actionBody(action: string, chat: string): Record<string, unknown> {
  const bodies: Record<string, Record<string, unknown>> = {
    send: { chat, text: 'Hello from someone who may not write' },
    stop: { chat },
    decide: { chat, message: pending, choice: 'always', scope: { kind: 'tiddler' }, text: 'Edited by someone who may not write' },
    'revoke-rule': { chat, message: pending },
    answer: { chat, message: pending, answers: ['yes'] },
    retry: { chat, message: userMessage },
    'delete-turn': { chat, message: userMessage, keepChanges: true },
    edit: { chat, message: userMessage, text: 'Edited by someone who may not write' },
    'switch-branch': { chat, at: 0, version: 1 },
    rollback: { chat, message: userMessage, force: true },
    compact: { chat },
    preview: { chat },
    rename: { chat, to: 'Renamed by someone who may not write' },
    'delete-chat': { chat },
    // The "unknown" variant names a server that does not exist (mcp-test has no chat).
    'mcp-test': { server: chat === CHAT ? '$:/demo/mcp/everything' : 'No such server' },
    // Aimed at a profile (provider-test has no chat either); the unknown variant names none.
    'provider-test': { profile: chat === CHAT ? '$:/demo/providers/mock-llm' : 'No such profile' },
    // Ask AI in the editor (no chat either); the unknown variant names no agent.
    'propose-edit': { instruction: 'rewrite', text: 'Some words', agent: chat === CHAT ? '$:/demo/agents/offline-demo' : 'No such agent' },
  };
  if (!bodies[action]) throw new Error(`POST /agent/${action} has no line in this test: add one`);
  return bodies[action]!;
}

/** A route that TiddlyWiki authorizes for writers (any method but GET, HEAD; not /mcp). */
function writersOnly(probe: { method: string; path: string }): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(probe.method) && probe.path !== '/mcp';
}

/** What TiddlyWiki's own access control answers before any route runs, if it refuses. */
function gate(role: Role, csrf: boolean, writes: boolean): number | undefined {
  if (writes && !csrf) return 403;
  if (role === 'anonymous') return 401;
  if (writes && role !== 'writer') return 401;
  return undefined;
}

function probes(): Probe[] {
  const routes = routeModules();
  const out: Probe[] = [];
  const add = (
    route: string,
    method: string,
    p: string,
    variant: string,
    body: string | undefined,
    extra: Record<string, string>,
    passed: number | undefined,
  ) => {
    for (const role of Object.keys(ROLES) as Role[]) {
      for (const csrf of [true, false]) {
        const writes = writersOnly({ method, path: p });
        const refused = gate(role, csrf, writes);
        // A request the gate lets through is walked only with the variants that must be refused.
        if (refused === undefined && passed === undefined) continue;
        const headers: Record<string, string> = { ...extra, ...ROLES[role], ...(csrf ? CSRF : {}) };
        out.push({ route, method, path: p, role, variant: `${variant}${csrf ? '' : ', no X-Requested-With'}`, headers, body, expect: refused ?? passed! });
      }
    }
  };
  const seen = new Set<string>();
  for (const [name, route] of routes) {
    seen.add(name);
    switch (name) {
      case 'agent-actions':
        expect(route.methods).toEqual(['POST']);
        for (const action of ACTION_NAMES) {
          const p = `/agent/${action}`;
          expect(route.path.test(p)).toBe(true);
          add(name, 'POST', p, 'valid', JSON.stringify(actionBody(action, CHAT)), JSON_TYPE, undefined);
          add(name, 'POST', p, 'bad JSON', '{"chat": "Demo chat", ', JSON_TYPE, 400);
          add(name, 'POST', p, 'not an object', '["Demo chat"]', JSON_TYPE, 400);
          add(name, 'POST', p, 'oversized body', OVERSIZED, JSON_TYPE, 413);
          add(name, 'POST', p, 'unknown chat', JSON.stringify(actionBody(action, UNKNOWN_CHAT)), JSON_TYPE, action === 'mcp-test' ? 200 : 404);
        }
        add(name, 'POST', '/agent/no-such-action', 'unknown action', JSON.stringify({ chat: CHAT }), JSON_TYPE, 404);
        // Other methods on the action paths are no route at all.
        add(name, 'GET', '/agent/send', 'wrong method', undefined, {}, 404);
        break;
      case 'agent-events':
        expect(route.methods).toEqual(['GET']);
        add(name, 'GET', `/agent/events?chat=${encodeURIComponent(UNKNOWN_CHAT)}`, 'unknown chat', undefined, {}, 200);
        break;
      case 'agent-status':
        expect(route.methods).toEqual(['GET']);
        add(name, 'GET', '/agent/status', 'valid', undefined, {}, 200);
        break;
      case 'put-chat': {
        expect(route.methods).toEqual(['PUT']);
        const p = `/recipes/default/tiddlers/${encodeURIComponent(CHAT)}`;
        expect(route.path.test(p)).toBe(true);
        add(
          name,
          'PUT',
          p,
          'valid',
          JSON.stringify({ title: CHAT, text: 'Taken over', fields: { agent: '$:/demo/agents/offline-demo', 'agent-status': 'idle' } }),
          JSON_TYPE,
          undefined,
        );
        add(name, 'PUT', p, 'bad JSON', '{"title": "Demo chat", ', JSON_TYPE, 400);
        add(name, 'PUT', p, 'not an object', 'null', JSON_TYPE, 400);
        break;
      }
      case 'mcp':
        expect(route.methods).toEqual(['POST', 'GET', 'DELETE']);
        expect(route.path.test('/mcp')).toBe(true);
        add(name, 'POST', '/mcp', 'bad JSON', '{"jsonrpc": ', MCP_ACCEPT, 400);
        add(name, 'POST', '/mcp', 'not an object', 'null', MCP_ACCEPT, 400);
        add(name, 'POST', '/mcp', 'oversized body', OVERSIZED, MCP_ACCEPT, 413);
        add(name, 'POST', '/mcp', 'another site', JSON.stringify(initialize('evil')), { ...MCP_ACCEPT, Origin: 'https://evil.example' }, 403);
        add(name, 'POST', '/mcp', 'no session', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), MCP_ACCEPT, 400);
        add(
          name,
          'POST',
          '/mcp',
          'unknown session',
          JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
          { ...MCP_ACCEPT, 'Mcp-Session-Id': 'no-such-session' },
          404,
        );
        add(name, 'GET', '/mcp', 'unknown session', undefined, { Accept: 'text/event-stream', 'Mcp-Session-Id': 'no-such-session' }, 404);
        add(name, 'DELETE', '/mcp', 'unknown session', undefined, { 'Mcp-Session-Id': 'no-such-session' }, 404);
        break;
      default:
        throw new Error(`The route module ${name} has no lines in this test: add them`);
    }
  }
  expect([...seen].sort()).toEqual(['agent-actions', 'agent-events', 'agent-status', 'mcp', 'put-chat']);
  // Each route and method once more, as the writer would send it, from a rebound name.
  const rebound = `rebind.attacker.example:${new URL(url).port}`;
  const once = new Map<string, Probe>();
  for (const probe of out) once.set(`${probe.method} ${probe.path}`, once.get(`${probe.method} ${probe.path}`) ?? probe);
  for (const probe of once.values()) {
    const headers = { ...probe.headers, ...ROLES.writer, ...CSRF, Origin: `http://${rebound}` };
    out.push({ ...probe, role: 'writer', variant: 'rebound Host', headers, host: rebound, expect: 403 });
  }
  return out;
}

// ---- What a refused request must leave alone --------------------------------------------------

/**
 * Every tiddler the server holds (with its change count) and every file of the wiki folder it
 * writes (tiddlers/, agent-state/), with its bytes: the wiki saves tiddlers to disk a little
 * later, so the files alone would not show a change at once.
 */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const res = await fetch(`${url}/recipes/default/tiddlers.json?filter=${encodeURIComponent(ALL)}&exclude=`, { headers: ROLES.writer });
  expect(res.status).toBe(200);
  for (const tiddler of (await res.json()) as Record<string, string>[]) out.set(`wiki: ${tiddler.title}`, JSON.stringify(tiddler));
  for (const sub of ['tiddlers', 'agent-state']) {
    const root = path.join(dir, sub);
    if (!fs.existsSync(root)) continue;
    for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile())
        out.set(path.relative(dir, path.join(entry.parentPath, entry.name)), fs.readFileSync(path.join(entry.parentPath, entry.name)).toString('base64'));
    }
  }
  return out;
}

function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f));
}

async function send(probe: Probe): Promise<number> {
  if (probe.host) return sendWithHost(probe);
  const abort = new AbortController();
  const res = await fetch(`${url}${probe.path}`, { method: probe.method, headers: probe.headers, body: probe.body, signal: abort.signal });
  // A push channel that was let through stays open: its status is all that is asked.
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) abort.abort();
  else await res.text();
  return res.status;
}

function sendWithHost(probe: Probe): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: probe.method, path: probe.path, headers: { ...probe.headers, Host: probe.host! }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          req.destroy();
          resolve(res.statusCode ?? 0);
        }
      },
    );
    req.on('error', reject);
    req.end(probe.body);
  });
}

test('every route x role x variant gets its status; every refused request changes nothing and reaches no model', async () => {
  const walk = probes();
  const wrong: string[] = [];
  const counted = new Map<string, Set<Role>>();
  for (const probe of walk) {
    const before = await snapshot();
    const requests = mock.requests.length;
    const status = await send(probe);
    const label = `${probe.role} ${probe.method} ${probe.path} (${probe.variant})`;
    if (status !== probe.expect) wrong.push(`${label}: ${status}, expected ${probe.expect}`);
    if (status >= 400 || probe.expect >= 400) {
      const changed = changedFiles(before, await snapshot());
      if (changed.length) wrong.push(`${label}: changed ${changed.join(', ')}`);
      if (mock.requests.length !== requests) wrong.push(`${label}: reached the model`);
    }
    const key = `${probe.method} ${probe.path.split('?')[0]}`;
    counted.set(key, (counted.get(key) ?? new Set()).add(probe.role));
  }
  expect(wrong).toEqual([]);
  const pairs = [...counted.values()].reduce((n, roles) => n + roles.size, 0);
  console.log(
    `Access control: ${walk.length} requests, ${counted.size} routes (method and path) x roles = ${pairs} pairs checked, none refused wrongly or let through`,
  );
  // The call still waits for the writer, who may still decide it; the snapshot sees what that changes.
  expect(savedMessages(dir, CHAT).find((m) => m.title === pending)!['tool-status']).toBe('pending');
  const before = await snapshot();
  const decided = await post(url, 'decide', { chat: CHAT, message: pending, choice: 'once' }, { ...JSON_TYPE, ...CSRF, ...ROLES.writer });
  expect(decided.status).toBe(202);
  await page.waitFor('completed', (e) => e.event === 'agent' && e.data.type === 'status' && e.data.status === 'completed');
  expect(changedFiles(before, await snapshot())).toEqual(expect.arrayContaining(['wiki: Written by a writer', `wiki: ${CHAT}`]));
});

test("over /mcp, a reader's session lists and reads but writes nothing, and cannot use the writer's session", async () => {
  const init = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_ACCEPT, ...ROLES.reader }, body: JSON.stringify(initialize('bob-client')) });
  expect(init.status).toBe(200);
  const bobSession = init.headers.get('mcp-session-id')!;
  await init.text();
  const before = await snapshot();
  const requests = mock.requests.length;
  const call = async (session: string, body: unknown) => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_ACCEPT, ...ROLES.reader, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  await call(bobSession, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const created = await call(bobSession, {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'wiki-create', arguments: { title: 'By a reader', text: 'x' } },
  });
  expect(created.status).toBe(200);
  expect(created.text).toContain('"isError":true');
  expect(created.text).toContain('only users the server lets write');
  // The writer's session is not the reader's.
  expect((await call(aliceSession, { jsonrpc: '2.0', id: 4, method: 'tools/list' })).status).toBe(404);
  expect(changedFiles(before, await snapshot())).toEqual([]);
  expect(mock.requests.length).toBe(requests);
});
