// The server edition as an MCP server: a real `tiddlywiki --listen` with the server plugin,
// driven by the MCP SDK's own client over Streamable HTTP. /mcp is off until a writer turns it
// on; then a writer's client gets the configured agent's wiki tools, its writes go through the
// write gate and approvals, are journaled and listed in its `MCP: <client>` chat (a confirm-mode
// call waits for POST /agent/decide, as the browser card sends it); readers and anonymous users
// get the read tools only (or nothing where they may not read the wiki); bad input ends in a
// clear error; hidden tiddlers do not exist over MCP either.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  getTiddler,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  tiddlerFiles,
  until,
  type Fields,
  type MockLlm,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(60_000);

const AGENT = 'MCP test agent';
const NOTE = 'MCP note';
/** Notes an MCP client and a user both edit: one its updates write at once, one they wait for the user. */
const SHARED = ['Auto/Shared over MCP', 'Shared over MCP', 'Auto/Never read over MCP'];
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const ALICE = basic('alice', 'wonderland'); // writer
const BOB = basic('bob', 'builder'); // reader
const CSRF = { 'X-Requested-With': 'TiddlyWiki', 'Content-Type': 'application/json' };
const MCP_ACCEPT = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function writeTiddler(dir: string, file: string, fields: Fields): void {
  const { text = '', ...rest } = fields;
  fs.writeFileSync(
    path.join(dir, 'tiddlers', file),
    `${Object.entries(rest)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n${text}`,
  );
}

function wikiFolder(mockUrl: string, enabled: boolean): string {
  const dir = serverWikiFolder(mockUrl);
  fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
  writeTiddler(dir, 'mcp-agent.tid', {
    title: AGENT,
    tags: '$:/tags/AI/Agent',
    'agent-provider': '$:/demo/providers/mock-llm',
    'agent-tools': 'wiki-search wiki-read wiki-create wiki-update summary ask-question manage-todo',
    // Under Auto/ a create or an update runs at once; any other waits for the user.
    // Reads of Private/… are denied (for a reader's session too).
    'agent-approval':
      '{"wiki-create": {"mode": "confirm", "allow": ["^Auto/"]}, "wiki-update": {"mode": "confirm", "allow": ["^Auto/"]}, "wiki-read": {"deny": ["^Private/"]}}',
    // Short, so a confirmation nobody answers times out within the test.
    'agent-approval-timeout': '5',
    text: 'An agent for MCP clients.',
  });
  writeTiddler(dir, 'mcp-agent-config.tid', { title: '$:/config/tiddlyagent/mcp-server/agent', text: AGENT });
  if (enabled) writeTiddler(dir, 'mcp-enabled.tid', { title: '$:/config/tiddlyagent/mcp-server/enabled', text: 'yes' });
  writeTiddler(dir, 'mcp-note.tid', { title: NOTE, text: 'hello from the wiki, zebra-words' });
  writeTiddler(dir, 'mcp-private.tid', { title: 'Private/Salary', text: 'private figures: 4711' });
  for (const [i, title] of SHARED.entries()) writeTiddler(dir, `mcp-shared-${i}.tid`, { title, text: 'The original words.', modified: '20260101000000000' });
  return dir;
}

async function connect(url: string, name: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const text = (result: object) => ((result as { content?: { text?: string }[] }).content ?? [])[0]?.text ?? '';

let mock: MockLlm;
let auth: { server: TwServer; dir: string };
let anon: { server: TwServer; dir: string };
const clients: Client[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 2 });
  const authDir = wikiFolder(mock.url, false);
  const anonDir = wikiFolder(mock.url, true);
  const [a, b] = await Promise.all([
    startServer(authDir, ['credentials=users.csv', 'readers=alice,bob', 'writers=alice']),
    startServer(anonDir, ['authenticated-user-header=x-remote-user', 'readers=(anon)', 'writers=alice']),
  ]);
  auth = { server: a, dir: authDir };
  anon = { server: b, dir: anonDir };
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await Promise.all([auth?.server.stop(), anon?.server.stop()]);
  await mock?.close();
  for (const s of [auth, anon]) if (s) fs.rmSync(s.dir, { recursive: true, force: true });
});

describe('the wiki as an MCP server', () => {
  test('/mcp is 404 with a clear message while off; a writer turns it on through the settings tiddler', async () => {
    const off = await fetch(`${auth.server.url}/mcp`, { method: 'POST', headers: { ...MCP_ACCEPT, ...ALICE }, body: '{}' });
    expect(off.status).toBe(404);
    expect(((await off.json()) as { error: string }).error).toMatch(/MCP server of this wiki is off/);
    const put = await fetch(`${auth.server.url}/recipes/default/tiddlers/${encodeURIComponent('$:/config/tiddlyagent/mcp-server/enabled')}`, {
      method: 'PUT',
      headers: { ...CSRF, ...ALICE },
      body: JSON.stringify({ title: '$:/config/tiddlyagent/mcp-server/enabled', text: 'yes' }),
    });
    expect(put.status).toBe(204);
  });

  test("a writer's client: the agent's wiki tools, a read, a journaled write in its MCP chat, rollback, a confirmed write", async () => {
    const { url } = auth.server;
    const client = await connect(url, 'test-client', ALICE);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['wiki-create', 'wiki-read', 'wiki-search', 'wiki-update']);
    expect(tools.find((t) => t.name === 'wiki-create')!.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['title', 'text']) });

    const read = await client.callTool({ name: 'wiki-read', arguments: { title: NOTE } });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain('hello from the wiki');

    // Allowed by the agent's rule: lands at once, in the wiki file, journaled, listed in the chat.
    const created = await client.callTool({ name: 'wiki-create', arguments: { title: 'Auto/Made over MCP', text: 'written by an MCP client' } });
    expect(created.isError).toBeFalsy();
    const files = tiddlerFiles(auth.dir).tiddlers;
    expect(files.get('Auto/Made over MCP')?.text).toBe('written by an MCP client');
    const chat = [...files.values()].find((t) => t['agent-mcp-session'] === 'test-client')!;
    expect(chat.title).toBe('MCP: test-client');
    expect(chat.agent).toBe(AGENT);
    const messages = savedMessages(auth.dir, chat.title!);
    const opening = messages[0]!;
    expect(opening.role).toBe('user');
    const call = messages.find((m) => m.role === 'assistant' && m['tool-calls']?.includes('Auto/Made over MCP'))!;
    expect(JSON.parse(call['tool-calls']!)[0]).toMatchObject({ name: 'wiki-create', args: { title: 'Auto/Made over MCP' } });
    expect(messages.find((m) => m.role === 'tool' && m['tool-name'] === 'wiki-create')!['tool-status']).toBe('ok');
    const journal = [...files.keys()].find((t) => t.startsWith(`$:/ai/journal/${chat.title}/`));
    expect(journal).toBe(`$:/ai/journal/${chat.title}/${opening.title!.split('/').pop()}`);

    // A create outside Auto/ waits for the user: a pending card in the chat, decided as the browser does.
    const waiting = client.callTool({ name: 'wiki-create', arguments: { title: 'Confirmed over MCP', text: 'after a yes' } });
    let pending: Fields | undefined;
    await until('the pending call', () => {
      pending = savedMessages(auth.dir, chat.title!).find((m) => m['tool-status'] === 'pending');
      return !!pending;
    });
    expect(pending!['approval-expires']).toMatch(/^\d+$/);
    expect(JSON.parse(pending!['tool-changes']!)).toHaveProperty(['Confirmed over MCP']);
    await until('input-required', () => tiddlerFiles(auth.dir).tiddlers.get(chat.title!)?.['agent-status'] === 'input-required');
    expect(tiddlerFiles(auth.dir).tiddlers.has('Confirmed over MCP')).toBe(false);
    const decided = await post(url, 'decide', { chat: chat.title, message: pending!.title, choice: 'once' }, { ...CSRF, ...ALICE });
    expect(decided.status).toBe(202);
    const confirmed = await waiting;
    expect(confirmed.isError).toBeFalsy();
    expect(tiddlerFiles(auth.dir).tiddlers.get('Confirmed over MCP')?.text).toBe('after a yes');
    await until('completed', () => tiddlerFiles(auth.dir).tiddlers.get(chat.title!)?.['agent-status'] === 'completed');

    // A denied one returns "denied" and changes nothing.
    const denied = client.callTool({ name: 'wiki-create', arguments: { title: 'Denied over MCP', text: 'no' } });
    await until('the second pending call', () => {
      pending = savedMessages(auth.dir, chat.title!).find((m) => m['tool-status'] === 'pending');
      return !!pending;
    });
    expect((await post(url, 'decide', { chat: chat.title, message: pending!.title, choice: 'deny' }, { ...CSRF, ...ALICE })).status).toBe(202);
    const no = await denied;
    expect(no.isError).toBe(true);
    expect(text(no)).toMatch(/denied/i);
    expect(tiddlerFiles(auth.dir).tiddlers.has('Denied over MCP')).toBe(false);

    // Roll back the session's turn: what the client wrote is gone.
    const rollback = await post(url, 'rollback', { chat: chat.title, message: opening.title }, { ...CSRF, ...ALICE });
    expect(rollback.status).toBe(200);
    expect((rollback.body.restored as string[]).sort()).toEqual(['Auto/Made over MCP', 'Confirmed over MCP']);
    await until('the rollback on disk', () => !tiddlerFiles(auth.dir).tiddlers.has('Auto/Made over MCP'));
  });

  test("a client writes only over the version it read: a user's edit that keeps modified, also while the write waits, is kept", async () => {
    const { url } = auth.server;
    const client = await connect(url, 'conflicted', ALICE);
    const [auto, confirmed, unread] = SHARED as [string, string, string];
    /** A browser saving the user's edit, the way `$timestamp="no"` leaves it: the same modified. */
    const userSaves = async (title: string, text: string) => {
      const current = await (await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent(title)}`, { headers: ALICE })).json();
      const put = await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent(title)}`, {
        method: 'PUT',
        headers: { ...CSRF, ...ALICE },
        body: JSON.stringify({ ...current, text }),
      });
      expect(put.status).toBe(204);
    };
    const update = (title: string, words: string) => client.callTool({ name: 'wiki-update', arguments: { title, modified: '20260101000000000', text: words } });

    // Never read in this session: refused.
    const blind = await update(unread, 'Blind words.');
    expect(blind.isError).toBe(true);
    expect(text(blind)).toContain(`You have not read "${unread}"`);

    // Read, then the user's edit, then the client's write: refused, the edit kept.
    for (const title of [auto, confirmed]) expect((await client.callTool({ name: 'wiki-read', arguments: { title } })).isError).toBeFalsy();
    await userSaves(auto, "The user's words.");
    const stale = await update(auto, "The client's words.");
    expect(stale.isError).toBe(true);
    expect(text(stale)).toContain(`"${auto}" changed since you read it`);
    expect((await getTiddler(url, auto, ALICE))!.text).toBe("The user's words.");

    // While a write waits for the user's approval, the user edits the note and then allows the write: refused.
    const waiting = update(confirmed, "The client's words.");
    const chat = `MCP: conflicted`;
    let pending: Fields | undefined;
    await until('the pending call', () => {
      pending = savedMessages(auth.dir, chat).find((m) => m['tool-status'] === 'pending');
      return !!pending;
    });
    await userSaves(confirmed, "The user's words.");
    expect((await post(url, 'decide', { chat, message: pending!.title, choice: 'once' }, { ...CSRF, ...ALICE })).status).toBe(202);
    const refused = await waiting;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`"${confirmed}" changed since you read it`);
    expect((await getTiddler(url, confirmed, ALICE))!.text).toBe("The user's words.");
    expect(
      savedMessages(auth.dir, chat)
        .filter((m) => m['tool-name'] === 'wiki-update')
        .map((m) => m['tool-status']),
    ).toEqual(['error', 'error', 'error']);

    // Read again: the write lands on the version the client has seen.
    expect((await client.callTool({ name: 'wiki-read', arguments: { title: auto } })).isError).toBeFalsy();
    expect((await update(auto, "The client's words, after reading.")).isError).toBeFalsy();
    expect((await getTiddler(url, auto, ALICE))!.text).toBe("The client's words, after reading.");
  });

  test('a confirmation nobody answers times out: the client gets "timed out", nothing lands, the chat is usable again', async () => {
    const client = await connect(auth.server.url, 'patient', ALICE);
    const started = Date.now();
    const late = await client.callTool({ name: 'wiki-create', arguments: { title: 'Never confirmed', text: 'x' } });
    expect(late.isError).toBe(true);
    expect(text(late)).toMatch(/^Timed out/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    const files = tiddlerFiles(auth.dir).tiddlers;
    expect(files.has('Never confirmed')).toBe(false);
    const chat = [...files.values()].find((t) => t['agent-mcp-session'] === 'patient')!;
    await until('completed', () => tiddlerFiles(auth.dir).tiddlers.get(chat.title!)?.['agent-status'] === 'completed');
    expect(savedMessages(auth.dir, chat.title!).find((m) => m['tool-name'] === 'wiki-create')!['tool-status']).toBe('denied');
  });

  test('hidden tiddlers (chats, messages, $:/ai/*) do not exist over MCP', async () => {
    const client = await connect(auth.server.url, 'peeker', ALICE);
    const chat = [...tiddlerFiles(auth.dir).tiddlers.values()].find((t) => t['agent-mcp-session'] === 'test-client')!.title!;
    const absent = await client.callTool({ name: 'wiki-read', arguments: { title: chat } });
    // A title that never existed, as close to the note as the chat's is: the same answer, word for word.
    const missing = await client.callTool({ name: 'wiki-read', arguments: { title: 'MCP: test-clienx' } });
    expect(absent.isError).toBe(true);
    expect(text(absent).replace(chat, 'X')).toBe(text(missing).replace('MCP: test-clienx', 'X'));
    const journal = await client.callTool({ name: 'wiki-search', arguments: { filter: '[prefix[$:/ai/]]' } });
    const nothing = await client.callTool({ name: 'wiki-search', arguments: { filter: '[prefix[$:/no-such-prefix/]]' } });
    expect(text(journal)).toBe(text(nothing).replace('$:/no-such-prefix/', '$:/ai/'));
    const words = await client.callTool({ name: 'wiki-search', arguments: { query: 'MCP session started' } });
    expect(text(words)).not.toContain(chat);
    expect(text(await client.callTool({ name: 'wiki-search', arguments: { query: 'zebra-words' } }))).toContain(NOTE);
  });

  test('bad input: unknown tool, invalid arguments, bad session id, oversized body, no session', async () => {
    const { url } = auth.server;
    const client = await connect(url, 'clumsy', ALICE);
    await expect(client.callTool({ name: 'wiki-nonexistent', arguments: {} })).rejects.toThrow(/Unknown tool "wiki-nonexistent"/);
    await expect(client.callTool({ name: 'summary', arguments: { text: 'x' } })).rejects.toThrow(/Unknown tool "summary"/);
    const invalid = await client.callTool({ name: 'wiki-read', arguments: { title: 42 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/Invalid arguments for wiki-read/);

    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const badSession = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_ACCEPT, ...ALICE, 'Mcp-Session-Id': 'no-such-session' }, body: list });
    expect(badSession.status).toBe(404);
    expect(await badSession.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringMatching(/Session not found/) } });
    const noSession = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_ACCEPT, ...ALICE }, body: list });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as { error: { message: string } }).error.message).toMatch(/no valid session id/);
    const huge = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_ACCEPT, ...ALICE },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1_100_000) } }),
    });
    expect(huge.status).toBe(413);
    const crossSite = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_ACCEPT, ...ALICE, Origin: 'https://evil.example' }, body: list });
    expect(crossSite.status).toBe(403);
  });

  test('anonymous users are refused where they may not read; a reader gets the read tools only and writes nothing', async () => {
    const { url } = auth.server;
    await expect(connect(url, 'anonymous')).rejects.toThrow();
    const raw = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_ACCEPT, body: '{}' });
    expect(raw.status).toBe(401);
    const chats = () => [...tiddlerFiles(auth.dir).tiddlers.values()].filter((t) => t['agent-mcp-session']).length;
    const before = chats();
    const reader = await connect(url, 'reader-client', BOB);
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual(['wiki-read', 'wiki-search']);
    expect(text(await reader.callTool({ name: 'wiki-read', arguments: { title: NOTE } }))).toContain('hello from the wiki');
    const refused = await reader.callTool({ name: 'wiki-create', arguments: { title: 'Auto/By a reader', text: 'x' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/only users the server lets write/);
    expect(tiddlerFiles(auth.dir).tiddlers.has('Auto/By a reader')).toBe(false);
    expect(chats()).toBe(before);
    // The agent's deny rules hold for a reader's reads as for a writer's.
    for (const client of [reader, await connect(url, 'writer-client', ALICE)]) {
      const denied = await client.callTool({ name: 'wiki-read', arguments: { title: 'Private/Salary' } });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toMatch(/Not allowed/);
      expect(text(denied)).not.toContain('4711');
    }
  });

  test("one user cannot end another's sessions: each user's oldest session ends only when that user opens too many", async () => {
    const { url } = auth.server;
    const bob = await connect(url, 'bob-keeps-this', BOB);
    const alice: Client[] = [];
    for (let i = 0; i < 40; i++) alice.push(await connect(url, `alice-${i}`, ALICE));
    expect((await bob.listTools()).tools.length).toBeGreaterThan(0);
    await expect(alice[0]!.listTools()).rejects.toThrow(/Session not found|404/);
    expect((await alice[39]!.listTools()).tools.length).toBeGreaterThan(0);
  });

  test('where anonymous users may read: an anonymous client reads but may not write; the writer by header may', async () => {
    const { url } = anon.server;
    const anonymous = await connect(url, 'anonymous-client');
    expect((await anonymous.listTools()).tools.map((t) => t.name).sort()).toEqual(['wiki-read', 'wiki-search']);
    expect(text(await anonymous.callTool({ name: 'wiki-read', arguments: { title: NOTE } }))).toContain('hello from the wiki');
    const refused = await anonymous.callTool({ name: 'wiki-create', arguments: { title: 'Auto/Anonymous', text: 'x' } });
    expect(refused.isError).toBe(true);
    expect([...tiddlerFiles(anon.dir).tiddlers.values()].some((t) => t['agent-mcp-session'] || t.title === 'Auto/Anonymous')).toBe(false);
    const writer = await connect(url, 'header-writer', { 'X-Remote-User': 'alice' });
    expect((await writer.callTool({ name: 'wiki-create', arguments: { title: 'Auto/By alice', text: 'y' } })).isError).toBeFalsy();
    expect(tiddlerFiles(anon.dir).tiddlers.get('Auto/By alice')?.text).toBe('y');
  });
});
