// The server edition honours TiddlyWiki's own access control before any /agent/ route runs:
// anonymous users, reader-only users, and writers whose request lacks the
// `X-Requested-With: TiddlyWiki` header are refused (401/403) for every POST action, change
// nothing and reach no model; readers may watch a chat over GET /agent/events. Two servers:
// basic auth from a credentials file with readers=/writers=, and a trusted header
// (authenticated-user-header=) with anonymous readers.
import fs from 'node:fs';
import path from 'node:path';
import {
  folderBytes,
  operations,
  post,
  savedMessages,
  serverWikiFolder,
  SseClient,
  startMockLlm,
  startServer,
  watch,
  type MockLlm,
  type SseEvent,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(30_000);

const CHAT = 'Demo chat';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const JSON_TYPE = { 'Content-Type': 'application/json' };
const CSRF = { 'X-Requested-With': 'TiddlyWiki' };

interface Setup {
  name: string;
  args: string[];
  /** Headers of the writer, the reader, and an anonymous request. */
  writer: Record<string, string>;
  reader: Record<string, string>;
  /** Whether anonymous users may read (watch) in this setup. */
  anonymousReads: boolean;
}

const SETUPS: Setup[] = [
  {
    name: 'credentials= with readers= and writers=',
    args: ['credentials=users.csv', 'readers=alice,bob', 'writers=alice'],
    writer: basic('alice', 'wonderland'),
    reader: basic('bob', 'builder'),
    anonymousReads: false,
  },
  {
    name: 'authenticated-user-header= with anonymous readers',
    args: ['authenticated-user-header=x-remote-user', 'readers=(anon)', 'writers=alice'],
    writer: { 'X-Remote-User': 'alice' },
    reader: { 'X-Remote-User': 'bob' },
    anonymousReads: true,
  },
];

let mock: MockLlm;
const servers: { setup: Setup; server: TwServer; dir: string }[] = [];
const clients: SseClient[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 2 });
  for (const setup of SETUPS) {
    const dir = serverWikiFolder(mock.url);
    fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
    servers.push({ setup, dir, server: undefined as unknown as TwServer });
  }
  await Promise.all(servers.map(async (s) => (s.server = await startServer(s.dir, s.setup.args))));
});

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(servers.map((s) => s.server?.stop()));
  await mock?.close();
  for (const s of servers) fs.rmSync(s.dir, { recursive: true, force: true });
});

const isStatus = (status: string) => (e: SseEvent) => e.event === 'agent' && e.data.chat === CHAT && e.data.type === 'status' && e.data.status === status;

describe.each(SETUPS.map((setup, i) => [setup.name, i] as const))('%s', (_name, index) => {
  test('anonymous, reader-only and header-less requests are refused for every action, change nothing and reach no model; readers watch; the writer decides', async () => {
    const { setup, server, dir } = servers[index]!;
    const { url } = server;
    // The writer starts a turn that waits for an approval: a real pending call and a real turn to aim at.
    const writerPage = await watch(url, [CHAT], { headers: setup.writer });
    clients.push(writerPage);
    const started = await post(
      url,
      'send',
      { chat: CHAT, text: 'mock:tool=wiki-create {"title":"Written by a writer","text":"x"}' },
      { ...JSON_TYPE, ...CSRF, ...setup.writer },
    );
    expect(started.status).toBe(202);
    const waiting = await writerPage.waitFor('the approval', (e) => e.event === 'agent' && e.data.type === 'waiting');
    await writerPage.waitFor('input-required', isStatus('input-required'));
    const pending = waiting.data.message as string;
    const user = savedMessages(dir, CHAT).find((m) => m.role === 'user')!.title!;

    const before = { files: folderBytes(dir), log: JSON.stringify(operations(dir)), requests: mock.requests.length };
    const bodies: Record<string, unknown> = {
      send: { chat: CHAT, text: 'Hello from someone who may not write' },
      stop: { chat: CHAT },
      decide: { chat: CHAT, message: pending, choice: 'always', scope: { kind: 'tiddler' } },
      'revoke-rule': { chat: CHAT, message: pending },
      answer: { chat: CHAT, message: pending, answers: ['yes'] },
      retry: { chat: CHAT, message: user },
      'delete-turn': { chat: CHAT, message: user, keepChanges: true },
      rollback: { chat: CHAT, message: user, force: true },
    };
    const callers: [string, Record<string, string>, number][] = [
      ['anonymous', { ...JSON_TYPE, ...CSRF }, 401],
      ['reader', { ...JSON_TYPE, ...CSRF, ...setup.reader }, 401],
      ['writer without X-Requested-With', { ...JSON_TYPE, ...setup.writer }, 403],
      ['anonymous without X-Requested-With', JSON_TYPE, 403],
    ];
    const refused: string[] = [];
    for (const [action, body] of Object.entries(bodies)) {
      for (const [who, headers, status] of callers) {
        const answer = await post(url, action, body, headers);
        if (answer.status !== status) refused.push(`${who} ${action}: ${answer.status}`);
      }
    }
    expect(refused).toEqual([]);
    // Nothing changed: no file, no operation, no model request; the call still waits.
    expect(folderBytes(dir)).toEqual(before.files);
    expect(JSON.stringify(operations(dir))).toBe(before.log);
    expect(mock.requests.length).toBe(before.requests);
    expect(savedMessages(dir, CHAT).find((m) => m.title === pending)!['tool-status']).toBe('pending');

    // Watching: the reader may, and anonymous users only where they may read the wiki.
    const readerPage = await watch(url, [CHAT], { headers: setup.reader });
    clients.push(readerPage);
    expect(readerPage.agentEvents(CHAT, 'snapshot').at(-1)!.state.status).toBe('input-required');
    const anonymous = await SseClient.open(url, { chats: [CHAT] });
    clients.push(anonymous);
    expect(anonymous.status).toBe(setup.anonymousReads ? 200 : 401);
    const status = await fetch(`${url}/agent/status`);
    expect(status.status).toBe(setup.anonymousReads ? 200 : 401);

    // The writer's decision goes through, and the reader watches the turn finish.
    const decided = await post(url, 'decide', { chat: CHAT, message: pending, choice: 'once' }, { ...JSON_TYPE, ...CSRF, ...setup.writer });
    expect(decided.status).toBe(202);
    await readerPage.waitFor('the reply', (e) => e.event === 'tiddler' && e.data['agent-chat'] === CHAT && e.data.role === 'assistant');
    await readerPage.waitFor('completed', isStatus('completed'));
    expect(mock.requests.length).toBe(before.requests + 1);
    expect(
      savedMessages(dir, CHAT)
        .filter((m) => m.role === 'user')
        .map((m) => m.text),
    ).toEqual(['mock:tool=wiki-create {"title":"Written by a writer","text":"x"}']);
  });
});
