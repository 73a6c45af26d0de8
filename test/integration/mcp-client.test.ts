// The MCP client against a real MCP server from npm (@modelcontextprotocol/server-everything),
// over stdio and over Streamable HTTP, in a real TiddlyWiki with a scripted model: the tools
// are listed and offered as mcp-<server>-<tool> with their schemas, `echo` is called through a
// turn (after the approval card MCP tools get by default) and its result reaches the next
// round; the HTTP server killed and started again is reconnected on the next call; servers that
// cannot start, hang, or are defined wrongly end in a clear tool error and the turn goes on.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { bootEngineWiki, disposeRunners, reply, scriptedModel, toolCalls, toolMap, type Harness } from './engine/harness';
import type { LanguageModel } from '../../src/agent/providers/types';
import { ROOT } from '../helpers/tw';

jest.setTimeout(60_000);

const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
let h: Harness;
let http: ChildProcess | undefined;
let port = 0;
const runners: { dispose(): void }[] = [];

beforeAll(async () => {
  h = await bootEngineWiki();
  port = 30000 + Math.floor(Math.random() * 20000);
  http = await startHttpServer(port);
  h.$tw.wiki.addTiddler({
    title: 'MCP everything (stdio)',
    tags: '$:/tags/AI/MCPServer',
    name: 'everything',
    'mcp-command': process.execPath,
    'mcp-args': JSON.stringify([EVERYTHING, 'stdio']),
  });
  h.$tw.wiki.addTiddler({ title: 'MCP everything (http)', tags: '$:/tags/AI/MCPServer', name: 'web', 'mcp-url': `http://127.0.0.1:${port}/mcp` });
});

afterAll(() => {
  for (const r of runners) r.dispose();
  disposeRunners();
  http?.kill('SIGKILL');
});

function startHttpServer(on: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(on) }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const seen = (d: Buffer) => {
      out += d.toString();
      if (/listening on port/i.test(out)) resolve(child);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', () => reject(new Error(`the everything server exited: ${out}`)));
  });
}

/** A LocalRunner with MCP connections whose SDK is the server plugin's (from node_modules), as under Node. */
function mcpRunner(model: LanguageModel) {
  const sdk = h.$tw.modules.execute('$:/plugins/tiddlyagent/server/mcp-sdk.js', '');
  const stdio = sdk;
  const mcp = new h.lib.McpConnections({
    wiki: h.port,
    where: 'node',
    getSecret: () => undefined,
    getEnv: (name) => process.env[name],
    loadSdk: () => ({
      ...sdk,
      stdio: (params: { env: Record<string, string> }) =>
        new stdio.StdioClientTransport({ ...params, env: { ...stdio.getDefaultEnvironment(), ...params.env } }),
    }),
  });
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

const toolResult = (chat: string, id: string) => h.messages(chat).find((m) => m.role === 'tool' && m['tool-call-id'] === id)!;

describe.each([
  ['stdio', 'everything'],
  ['Streamable HTTP', 'web'],
])('over %s', (_transport, server) => {
  test('the tools are listed with their schemas; echo waits for approval, runs, and its result reaches the next round', async () => {
    const s = scriptedModel([toolCalls(['e1', `mcp-${server}-echo`, { message: `hello over ${server}` }]), reply('The server echoed it.')]);
    const { runner } = mcpRunner(s.model);
    const chat = h.newChat({ 'agent-tools': `mcp-${server}` }, `MCP ${server}`);
    expect(await runner.submit({ kind: 'send', chat, text: 'Echo something' })).toEqual({ status: 'input-required' });
    // Offered as mcp-<server>-<tool>, with the server's own JSON schema.
    const echo = s.requests[0]!.tools!.find((t) => t.name === `mcp-${server}-echo`)!;
    expect(echo.parameters).toMatchObject({ type: 'object', properties: { message: expect.objectContaining({ type: 'string' }) } });
    expect(s.requests[0]!.tools!.length).toBeGreaterThan(3);
    // MCP tools confirm by default: the card waits.
    const pending = toolResult(chat, 'e1');
    expect(pending['tool-status']).toBe('pending');
    expect(await runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'once' })).toEqual({ status: 'completed' });
    expect(toolResult(chat, 'e1')).toMatchObject({ 'tool-status': 'ok', text: expect.stringContaining(`Echo: hello over ${server}`) });
    const next = s.requests[1]!.messages.find((m) => m.role === 'tool')!;
    expect(next.content).toContain(`Echo: hello over ${server}`);
    expect(next.content).toContain('untrusted data from an outside server');
    expect(h.messages(chat).at(-1)!.text).toBe('The server echoed it.');
  });
});

test('the HTTP server killed and started again: the next call reconnects', async () => {
  const s = scriptedModel((n) => (n % 2 === 1 ? toolCalls([`k${n}`, 'mcp-web-echo', { message: `call ${n}` }]) : reply('ok')));
  const { runner } = mcpRunner(s.model);
  const chat = h.newChat({ 'agent-tools': 'mcp-web-echo', 'agent-approval': '{"mcp-web-echo":{"mode":"auto"}}' }, 'MCP restart');
  expect(await runner.submit({ kind: 'send', chat, text: 'first' })).toEqual({ status: 'completed' });
  expect(toolResult(chat, 'k1').text).toContain('Echo: call 1');
  http!.kill('SIGKILL');
  await new Promise((r) => http!.once('exit', r));
  http = await startHttpServer(port);
  expect(await runner.submit({ kind: 'send', chat, text: 'second' })).toEqual({ status: 'completed' });
  expect(toolResult(chat, 'k3')).toMatchObject({ 'tool-status': 'ok', text: expect.stringContaining('Echo: call 3') });
});

describe('bad servers end in a clear tool error, and the turn goes on', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['a command that does not exist', { 'mcp-command': '/no/such/mcp-server' }, /could not be started|ENOENT|closed/],
    ['a server that exits at start', { 'mcp-command': process.execPath, 'mcp-args': '["-e","process.exit(3)"]' }, /closed|exit/i],
    [
      'a server that hangs on initialize',
      { 'mcp-command': process.execPath, 'mcp-args': '["-e","setInterval(()=>{},1000)"]', 'mcp-timeout': '2' },
      /did not answer "initialize" within 2 s|timed out/i,
    ],
    ['both a command and a URL', { 'mcp-command': 'x', 'mcp-url': 'http://127.0.0.1:9/mcp' }, /exactly one of/],
    ['neither a command nor a URL', {}, /exactly one of/],
  ];
  test.each(cases)('%s', async (_name, fields, error) => {
    const name = `bad${Math.random().toString(36).slice(2, 7)}`;
    h.$tw.wiki.addTiddler({ title: `MCP ${name}`, tags: '$:/tags/AI/MCPServer', name, ...fields });
    const s = scriptedModel([toolCalls(['b1', `mcp-${name}`, {}]), reply('It is down; I will do without.')]);
    const { runner } = mcpRunner(s.model);
    const chat = h.newChat({ 'agent-tools': `mcp-${name}` }, `MCP ${name}`);
    expect(await runner.submit({ kind: 'send', chat, text: 'use it' })).toEqual({ status: 'completed' });
    expect(s.requests[0]!.tools!.map((t) => t.name)).toEqual([`mcp-${name}`]);
    expect(toolResult(chat, 'b1')).toMatchObject({ 'tool-status': 'error', text: expect.stringMatching(error) });
    expect(h.messages(chat).at(-1)!.text).toBe('It is down; I will do without.');
  });
});

describe('an odd server: what cannot be offered is left out, a hanging call times out, a malformed result is an error', () => {
  const ODD = path.join(ROOT, 'test', 'fixtures', 'mcp', 'odd-server.mjs');
  beforeAll(() => {
    h.$tw.wiki.addTiddler({
      title: 'MCP odd',
      tags: '$:/tags/AI/MCPServer',
      name: 'odd',
      'mcp-command': process.execPath,
      'mcp-args': JSON.stringify([ODD]),
      'mcp-timeout': '2',
    });
  });

  test('only object-schema tools are offered; a text and an image result; a call that never answers; a malformed result', async () => {
    const s = scriptedModel([
      toolCalls(['o1', 'mcp-odd-fine', { q: 'x' }], ['o2', 'mcp-odd-hang', {}], ['o3', 'mcp-odd-broken', {}], ['o4', 'mcp-odd-listy', {}]),
      reply('Done with the odd server.'),
    ]);
    const { runner } = mcpRunner(s.model);
    const chat = h.newChat({ 'agent-tools': 'mcp-odd', 'agent-approval': '{"*":{"mode":"auto"}}' }, 'MCP odd');
    expect(await runner.submit({ kind: 'send', chat, text: 'try them all' })).toEqual({ status: 'completed' });
    expect(s.requests[0]!.tools!.map((t) => t.name).sort()).toEqual(['mcp-odd-broken', 'mcp-odd-fine', 'mcp-odd-hang', 'mcp-odd-slow']);
    // The image reaches the next request as an image part; its bytes are kept in a hidden tiddler of the chat, not in the message.
    const fine = toolResult(chat, 'o1');
    expect(fine).toMatchObject({ 'tool-status': 'ok', text: expect.stringMatching(/fine: x\n\[image \(image\/png, 1 KB\): attached to this result\]/) });
    const kept = `$:/ai/images/${chat}/1`;
    expect(fine.attachments).toBe(`[[${kept}]]`);
    expect(h.fields(kept)).toMatchObject({ type: 'image/png', 'agent-image-chat': chat, text: expect.stringMatching(/^iVBORw0KGgo/) });
    const sent = s.requests[1]!.messages.find((m) => m.role === 'tool' && m.toolCallId === 'o1')!;
    expect(sent).toMatchObject({ images: [{ mediaType: 'image/png', data: h.fields(kept).text }] });
    expect(sent.content).not.toContain('iVBORw0KGgo');
    expect(toolResult(chat, 'o2')['tool-status']).toMatch(/error|timeout/);
    expect(toolResult(chat, 'o2').text).toMatch(/timed out|did not finish|Request timed out/i);
    expect(toolResult(chat, 'o3')['tool-status']).toBe('error');
    expect(toolResult(chat, 'o4')).toMatchObject({ 'tool-status': 'error', text: expect.stringMatching(/Unknown tool "mcp-odd-listy"/) });
    expect(h.messages(chat).at(-1)!.text).toBe('Done with the odd server.');
    // The kept image is hidden from the tools, and goes with its turn.
    expect(h.port.agentView().getFields(kept)).toBeUndefined();
    await runner.submit({ kind: 'delete-turn', chat, message: h.messages(chat)[0]!.title! });
    expect(h.$tw.wiki.tiddlerExists(kept)).toBe(false);
  });
});

test('the stdio server process killed: the next call starts it again', async () => {
  const { execSync } = await import('node:child_process');
  const s = scriptedModel((n) => (n % 2 === 1 ? toolCalls([`s${n}`, 'mcp-everything-echo', { message: `stdio ${n}` }]) : reply('ok')));
  const { runner } = mcpRunner(s.model);
  const chat = h.newChat({ 'agent-tools': 'mcp-everything-echo', 'agent-approval': '{"mcp-everything-echo":{"mode":"auto"}}' }, 'MCP stdio restart');
  expect(await runner.submit({ kind: 'send', chat, text: 'first' })).toEqual({ status: 'completed' });
  expect(toolResult(chat, 's1').text).toContain('Echo: stdio 1');
  // The child processes this test file started over stdio (no other suite starts this server over stdio).
  // ("[.]" keeps pgrep's own shell out of the match.)
  const pids = execSync(`pgrep -f "server-everything/dist/index[.]js stdio" || true`).toString().trim().split(/\s+/).filter(Boolean);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
  expect(await runner.submit({ kind: 'send', chat, text: 'second' })).toEqual({ status: 'completed' });
  expect(toolResult(chat, 's3')).toMatchObject({ 'tool-status': 'ok', text: expect.stringContaining('Echo: stdio 3') });
});
