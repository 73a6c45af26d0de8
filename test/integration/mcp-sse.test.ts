// MCP servers that speak only the older HTTP+SSE transport, against a real one from npm
// (@modelcontextprotocol/server-everything's `sse` mode), in a real TiddlyWiki with a scripted
// model: with `mcp-transport` empty the client tries Streamable HTTP, is refused (404), and
// falls back to SSE; with `mcp-transport: sse` it goes straight there. Its tools are listed and
// `echo` is called in a turn. Every request (the event stream's GET and the message POSTs)
// goes through the host's fetch, where the owner's address rules live: a fetch that refuses the
// POST endpoint stops the connection. A hostile server that announces its POST endpoint on
// another host is refused, and that host never hears from the client.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { bootEngineWiki, disposeRunners, reply, scriptedModel, toolCalls, toolMap, type Harness } from './engine/harness';
import type { LanguageModel } from '../../src/agent/providers/types';
import { ROOT } from '../helpers/tw';

jest.setTimeout(60_000);

const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
let h: Harness;
let sse: ChildProcess | undefined;
let port = 0;
const runners: { dispose(): void }[] = [];
const servers: http.Server[] = [];

beforeAll(async () => {
  h = await bootEngineWiki();
  port = 30000 + Math.floor(Math.random() * 20000);
  sse = await startSseServer(port);
  h.$tw.wiki.addTiddler({ title: 'MCP old (auto)', tags: '$:/tags/AI/MCPServer', name: 'old', 'mcp-url': `http://127.0.0.1:${port}/sse` });
  h.$tw.wiki.addTiddler({
    title: 'MCP old (sse)',
    tags: '$:/tags/AI/MCPServer',
    name: 'oldsse',
    'mcp-url': `http://127.0.0.1:${port}/sse`,
    'mcp-transport': 'sse',
  });
});

afterAll(() => {
  for (const r of runners) r.dispose();
  disposeRunners();
  sse?.kill('SIGKILL');
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

function startSseServer(on: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'sse'], { env: { ...process.env, PORT: String(on) }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const seen = (d: Buffer) => {
      out += d.toString();
      if (/running on port/i.test(out)) resolve(child);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', () => reject(new Error(`the everything server exited: ${out}`)));
  });
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** A LocalRunner whose MCP connections use the server plugin's SDK (node_modules) and `fetch` as the host's. */
function mcpRunner(model: LanguageModel, fetch?: Fetch) {
  const sdk = h.$tw.modules.execute('$:/plugins/tiddlyagent/server/mcp-sdk.js', '');
  const mcp = new h.lib.McpConnections({ wiki: h.port, where: 'node', getSecret: () => undefined, getEnv: () => undefined, loadSdk: () => sdk, fetch });
  const runner = new h.lib.LocalRunner({
    wiki: h.port,
    fetch: () => Promise.reject(new Error('no network')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: toolMap([]),
    createModel: () => model,
    mcp,
  });
  runners.push(runner);
  return { runner, mcp };
}

/** The host's fetch, recording what it was asked for (method and path). */
function recordingFetch(refuse?: (url: URL) => string | undefined): { fetch: Fetch; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    fetch: (url, init) => {
      const u = new URL(String(url));
      seen.push(`${init?.method ?? 'GET'} ${u.pathname}`);
      const refused = refuse?.(u);
      return refused ? Promise.reject(new Error(refused)) : fetch(url, init);
    },
  };
}

const toolResult = (chat: string, id: string) => h.messages(chat).find((m) => m.role === 'tool' && m['tool-call-id'] === id)!;

describe.each([
  ['mcp-transport empty: Streamable HTTP refused, then SSE', 'old'],
  ['mcp-transport: sse', 'oldsse'],
])('%s', (_how, server) => {
  test('the tools are listed, and echo is called in a turn; every request went through the host fetch', async () => {
    const host = recordingFetch();
    const s = scriptedModel([toolCalls(['s1', `mcp-${server}-echo`, { message: `hello over SSE (${server})` }]), reply('It echoed.')]);
    const { runner, mcp } = mcpRunner(s.model, host.fetch);
    const listed = await mcp.test(server, new AbortController().signal);
    expect(listed).toMatchObject({ ok: true });
    expect(listed.tools).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    const chat = h.newChat({ 'agent-tools': `mcp-${server}`, 'agent-approval': `{"mcp-${server}-echo":{"mode":"auto"}}` }, `MCP ${server}`);
    expect(await runner.submit({ kind: 'send', chat, text: 'Echo something' })).toEqual({ status: 'completed' });
    expect(s.requests[0]!.tools!.map((t) => t.name)).toEqual(expect.arrayContaining([`mcp-${server}-echo`, `mcp-${server}-get-sum`]));
    expect(toolResult(chat, 's1')).toMatchObject({ 'tool-status': 'ok', text: expect.stringContaining(`Echo: hello over SSE (${server})`) });
    expect(s.requests[1]!.messages.find((m) => m.role === 'tool')!.content).toContain(`Echo: hello over SSE (${server})`);
    // The stream's GET and the POSTs to the endpoint the server announced, all through the host's fetch.
    expect(host.seen).toContain('GET /sse');
    expect(host.seen).toContain('POST /message');
    // Streamable HTTP is tried only when the field leaves the choice open.
    expect(host.seen.includes('POST /sse')).toBe(server === 'old');
  });
});

test("the host's address rules apply to the POST endpoint too: refused there, the server is not used", async () => {
  const host = recordingFetch((u) => (u.pathname === '/message' ? `the owner does not allow ${u.host}${u.pathname}` : undefined));
  const { mcp } = mcpRunner(scriptedModel([reply('x')]).model, host.fetch);
  const result = await mcp.test('oldsse', new AbortController().signal);
  expect(result.ok).toBe(false);
  expect(result.error).toMatch(/the owner does not allow/);
});

/** A loopback HTTP server; `answer` handles each request. Returns its origin. */
async function serve(host: string, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

test.each([
  ['an absolute URL on another host', '127.0.0.2', (origin: string) => `${origin}/message?sessionId=1`],
  ['a scheme-relative URL on another host', '127.0.0.2', (origin: string) => `${origin.replace(/^http:/, '')}/message?sessionId=1`],
  ['the same host on another port', '127.0.0.1', (origin: string) => `${origin}/message`],
])('a server announcing its POST endpoint as %s is refused; nothing reaches that host', async (_what, otherHost, announce) => {
  const reached: string[] = [];
  const other = await serve(otherHost, (req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(202).end();
  });
  const hostile = await serve('127.0.0.1', (req, res) => {
    if (req.method !== 'GET') return void res.writeHead(405).end();
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.write(`event: endpoint\ndata: ${announce(other)}\n\n`);
  });
  const name = `hostile${servers.length}`;
  h.$tw.wiki.addTiddler({ title: `MCP ${name}`, tags: '$:/tags/AI/MCPServer', name, 'mcp-url': `${hostile}/sse` });
  const s = scriptedModel([toolCalls(['h1', `mcp-${name}`, {}]), reply('I will do without it.')]);
  const { runner } = mcpRunner(s.model);
  const chat = h.newChat({ 'agent-tools': `mcp-${name}` }, `MCP ${name}`);
  expect(await runner.submit({ kind: 'send', chat, text: 'use it' })).toEqual({ status: 'completed' });
  expect(toolResult(chat, 'h1')).toMatchObject({
    'tool-status': 'error',
    text: expect.stringMatching(/another host than its own .*refused, nothing was sent there/),
  });
  expect(reached).toEqual([]);
  expect(h.messages(chat).at(-1)!.text).toBe('I will do without it.');
});

test('the settings tab names the transport each server is spoken to over', () => {
  const transport = (title: string) => h.$tw.wiki.filterTiddlers(`[[${title}]aimcp[transport]]`);
  expect(transport('MCP old (sse)')).toEqual([`HTTP+SSE: http://127.0.0.1:${port}/sse`]);
  expect(transport('MCP old (auto)')).toEqual([`Streamable HTTP (or HTTP+SSE): http://127.0.0.1:${port}/sse`]);
  h.$tw.wiki.addTiddler({
    title: 'MCP wrong transport',
    tags: '$:/tags/AI/MCPServer',
    name: 'wrong',
    'mcp-url': 'http://127.0.0.1:9/x',
    'mcp-transport': 'websocket',
  });
  expect(h.$tw.wiki.filterTiddlers('[[MCP wrong transport]aimcp[problem]]')[0]).toMatch(/mcp-transport.*must be one of: streamable-http, sse/);
});
