// The server edition keeps its ranked text index beside the wiki (agent-state/text-index.bin):
// a real `tiddlywiki --listen` builds it at start and saves it; after a restart it is loaded and
// checked against the tiddler files (one edited, one deleted, one added while the server was
// down), and the agent's first wiki-search is ranked at once with what the files hold now. A
// file that is not an index is logged and the index built again, without a crash.
import fs from 'node:fs';
import path from 'node:path';
import { chatStatus, post, serverWikiFolder, startMockLlm, startServer, until, type MockLlm, type TwServer } from '../helpers/server';

jest.setTimeout(90_000);

const CHAT = 'Search chat';
const INDEX_FILE = path.join('agent-state', 'text-index.bin');
const UNRANKED = 'The search index is still being built';

let mock: MockLlm;
const servers: TwServer[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(async () => {
  await mock.close();
});

function note(dir: string, title: string, text: string): void {
  fs.writeFileSync(path.join(dir, 'tiddlers', `${title}.tid`), `title: ${title}\n\n${text}`);
}

function folder(): string {
  const dir = serverWikiFolder(mock.url);
  fs.writeFileSync(path.join(dir, 'tiddlers', `${CHAT}.tid`), `title: ${CHAT}\nagent: $:/demo/agents/offline-demo\nagent-status: idle\n\n`);
  note(dir, 'Alpha note', 'The quokkaxylo lives here, quokkaxylo and quokkaxylo again.');
  note(dir, 'Gamma note', 'One quokkaxylo in passing.');
  return dir;
}

async function serve(dir: string): Promise<TwServer> {
  const server = await startServer(dir, [], { TIDDLYAGENT_CONFIG: JSON.stringify({ allowHosts: ['127.0.0.1'] }) });
  servers.push(server);
  return server;
}

/** A turn whose model calls wiki-search for `query`: the tool result the model got back. */
async function agentSearch(server: TwServer, query: string): Promise<string> {
  mock.queue({ toolCalls: [{ name: 'wiki-search', arguments: { query } }] });
  mock.queue({ text: 'Searched.' });
  const before = mock.requests.length;
  expect((await post(server.url, 'send', { chat: CHAT, text: `Search for ${query}` })).status).toBe(202);
  await until('the turn to end', async () => mock.requests.length >= before + 2 && (await chatStatus(server.url, CHAT)) === 'completed');
  // The last tool result sent to the model (a chat-title request may come after it).
  const sent = (mock.requests.slice(before) as { body?: { messages?: { role: string; content: unknown }[] } }[]).map((r) => r.body?.messages ?? []);
  const results = sent.flatMap((messages) => messages.filter((m) => m.role === 'tool'));
  return String(results.at(-1)?.content ?? '');
}

const lineOf = (server: TwServer, what: RegExp) => what.exec(server.output())?.[0];

test('the index built at start is saved; after a restart it is loaded, checked against the files (edited, deleted, added) and answers ranked at once', async () => {
  const dir = folder();
  let server = await serve(dir);
  await until('the index built and saved', () => !!lineOf(server, /the search index of \d+ tiddlers was built/) && fs.existsSync(path.join(dir, INDEX_FILE)));
  const first = await agentSearch(server, 'quokkaxylo');
  expect(first).not.toContain(UNRANKED);
  // Ranked: three occurrences before one.
  expect(first.indexOf('Alpha note')).toBeGreaterThanOrEqual(0);
  expect(first.indexOf('Alpha note')).toBeLessThan(first.indexOf('Gamma note'));
  await server.stop();
  servers.length = 0;

  // While the server is down: one note edited, one deleted, one added.
  note(dir, 'Alpha note', 'Now about the zebrafinch only.');
  fs.rmSync(path.join(dir, 'tiddlers', 'Gamma note.tid'));
  note(dir, 'Delta note', 'A new quokkaxylo.');
  server = await serve(dir);
  const found = await agentSearch(server, 'quokkaxylo');
  expect(found).not.toContain(UNRANKED);
  expect(found).toContain('Delta note');
  expect(found).not.toContain('Alpha note');
  expect(found).not.toContain('Gamma note');
  expect(await agentSearch(server, 'zebrafinch')).toContain('Alpha note');
  await until('the loaded line', () => !!lineOf(server, /the search index of \d+ tiddlers was loaded/));
  expect(lineOf(server, /was loaded from agent-state\/text-index\.bin in [\d.]+ s \(1 re-indexed, 1 added, 1 removed\)/)).toBeDefined();
  expect(lineOf(server, /was built/)).toBeUndefined();
});

test('a saved index that cannot be read is logged and built again, not a crash', async () => {
  const dir = folder();
  fs.mkdirSync(path.join(dir, 'agent-state'), { recursive: true });
  // The right first bytes, then cut short; and the JSON an earlier version kept, which goes.
  fs.writeFileSync(path.join(dir, INDEX_FILE), Buffer.from([0x54, 0x58, 0x49, 2, 4, 3, 2, 1, 200, 0, 0, 0, 123]));
  fs.writeFileSync(path.join(dir, 'agent-state', 'text-index.json'), '{"format":1,"fingerprints":{},"index":{"documentCount":');
  const server = await serve(dir);
  await until('the index built again', () => !!lineOf(server, /the search index of \d+ tiddlers was built/));
  expect(lineOf(server, /the saved search index agent-state\/text-index\.bin could not be read \([^)]+\); building it again/)).toBeDefined();
  const found = await agentSearch(server, 'quokkaxylo');
  expect(found).not.toContain(UNRANKED);
  expect(found).toContain('Alpha note');
  // The file is a good index again, and the old one is gone.
  await until('the file rewritten', () => fs.readFileSync(path.join(dir, INDEX_FILE)).length > 100);
  expect(fs.existsSync(path.join(dir, 'agent-state', 'text-index.json'))).toBe(false);
});
