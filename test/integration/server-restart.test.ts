// The server edition survives a SIGKILL: `tiddlywiki <wiki> --listen` with the server plugin
// is killed mid-stream, or while a turn waits for an approval, and started again on the same
// folder. The chat is usable (interrupted, not working; the user's words kept exactly once;
// every file whole, no temp file taken for a tiddler; the operations failed with "Interrupted
// by server restart"), a page that comes back with the old run's event id is resynced, and a
// pending approval decided after the restart runs its tool and finishes the turn.
import fs from 'node:fs';
import path from 'node:path';
import {
  chatStatus,
  defaultReply,
  getTiddler,
  operations,
  operationStatuses,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  tiddlerFiles,
  until,
  watch,
  writeChat,
  type MockLlm,
  type SseClient,
  type SseEvent,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(30_000);

let mock: MockLlm;
let server: TwServer;
let dir: string;
const clients: SseClient[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 2 });
  dir = serverWikiFolder(mock.url);
  writeChat(dir, 'Approval chat');
  server = await startServer(dir);
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function open(chats: string[], options: Parameters<typeof watch>[2] = {}): Promise<SseClient> {
  const client = await watch(server.url, chats, options);
  clients.push(client);
  return client;
}

const isStatus = (chat: string, status: string) => (e: SseEvent) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'status' && e.data.status === status;
const lastOf = (id: string) => operations(dir).filter((op) => op.id === id).at(-1)!;

test('SIGKILL mid-stream, restart on the same folder: the chat is interrupted (not working), its messages kept once, every file whole, the operations failed; an old page is resynced; a new send completes', async () => {
  const chat = 'Demo chat';
  const page = await open([chat]);
  const slow = 'Tell me slowly mock:slow';
  const sent = await post(server.url, 'send', { chat, text: slow });
  expect(sent.status).toBe(202);
  await page.waitFor('a few deltas', () => page.deltas(chat).length >= 5);
  // A second send waits in the queue behind the running turn.
  const queued = await post(server.url, 'send', { chat, text: 'And then this' });
  expect(queued.status).toBe(202);
  await page.waitFor('the queue', (e) => e.event === 'agent' && e.data.type === 'queue' && e.data.queue.length === 1);
  const [runningId, queuedId] = [sent, queued].map((a) => (a.body.operation as { id: string }).id) as [string, string];
  expect(lastOf(runningId).status).toBe('running');
  expect(lastOf(queuedId).status).toBe('queued');
  const oldId = page.lastId!;
  const streamed = page.deltas(chat).length;
  await server.kill();
  expect(page.deltas(chat).length).toBeLessThan(150);
  expect(streamed).toBeGreaterThanOrEqual(5);

  // What a kill can leave besides: a temp file of a write it cut off, and a cut-off last line of the log.
  const tiddlersDir = path.join(dir, 'tiddlers');
  fs.writeFileSync(path.join(tiddlersDir, '.Ghost.tid.4242.tiddlyagent.swp'), 'title: Ghost from a swap file\nagent-status: work');
  fs.appendFileSync(path.join(dir, 'agent-state', 'operations.jsonl'), `{"id":"cut-off","chat":"${chat}","kind":"send","status":"que`);

  server = await startServer(dir);
  const url = server.url;
  expect(await chatStatus(url, chat)).toBe('interrupted');
  // The user's words once each (the queued one too), then the error that says what happened; no half reply.
  const messages = savedMessages(dir, chat);
  expect(messages.map((m) => [m.role, m.role === 'error' ? m.text!.slice(0, 29) : m.text])).toEqual([
    ['user', slow],
    ['user', 'And then this'],
    ['error', 'Interrupted by server restart'],
  ]);
  expect(messages[2]!.text).toMatch(/^Interrupted by server restart: .*Your message is kept/);
  // The operations failed; the log holds no broken line (the cut-off one is gone) and nothing unfinished.
  expect(operationStatuses(dir, runningId)).toEqual(['running', 'failed']);
  expect(operationStatuses(dir, queuedId)).toEqual(['queued', 'failed']);
  for (const id of [runningId, queuedId]) expect(lastOf(id).error).toBe('Interrupted by server restart');
  expect(operations(dir).filter((op) => 'broken' in op || op.id === 'cut-off')).toEqual([]);
  // Every file parses (none truncated), the temp file is gone and was never loaded as a tiddler.
  const { tiddlers, hidden } = tiddlerFiles(dir);
  expect(hidden).toEqual([]);
  expect(tiddlers.get(chat)!['agent-status']).toBe('interrupted');
  expect(await getTiddler(url, 'Ghost from a swap file')).toBeUndefined();
  const listed = (await (await fetch(`${url}/recipes/default/tiddlers.json`)).json()) as { title: string }[];
  expect(listed.filter((t) => /swp|Ghost/.test(t.title))).toEqual([]);
  expect(fs.readdirSync(path.join(dir, 'agent-state'))).toEqual(['operations.jsonl']);

  // A page that comes back with an id of the killed run: stale, then the chat whole, then a snapshot that is not working.
  const back = await open([chat], { lastEventId: oldId });
  expect(back.events.map((e) => e.event).slice(0, 2)).toEqual(['hello', 'stale']);
  const sync = back.events.find((e) => e.event === 'chat-sync')!;
  expect(sync.data.titles).toEqual([chat, ...messages.map((m) => m.title)]);
  expect(back.events.filter((e) => e.event === 'tiddler').map((e) => e.data.title)).toEqual(sync.data.titles);
  expect(back.agentEvents(chat, 'snapshot').at(-1)!.state).toMatchObject({ status: 'interrupted', queue: [] });

  // The chat is usable.
  const again = await post(url, 'send', { chat, text: 'Are you back?' });
  expect(again.status).toBe(202);
  await back.waitFor('completed', isStatus(chat, 'completed'));
  expect(
    savedMessages(dir, chat)
      .slice(3)
      .map((m) => [m.role, m.text]),
  ).toEqual([
    ['user', 'Are you back?'],
    ['assistant', defaultReply('Are you back?')],
  ]);
  expect(operationStatuses(dir, (again.body.operation as { id: string }).id)).toEqual(['queued', 'running', 'done']);
  expect(await chatStatus(url, chat)).toBe('completed');
});

test('a pending approval survives a SIGKILL; deciding it after the restart runs the tool (applied and journaled) and completes the turn', async () => {
  const chat = 'Approval chat';
  const note = { title: 'Approved after restart', text: 'Written by the agent after a restart' };
  const page = await open([chat]);
  const sent = await post(server.url, 'send', { chat, text: `mock:tool=wiki-create ${JSON.stringify(note)}` });
  expect(sent.status).toBe(202);
  const waiting = await page.waitFor('the approval', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
  expect(waiting.data.reason).toBe('approval');
  const message = waiting.data.message as string;
  await page.waitFor('input-required', isStatus(chat, 'input-required'));
  // The card is on disk before the page heard of it; the send operation is done (the turn waits for the user).
  expect(savedMessages(dir, chat).find((m) => m.title === message)!['tool-status']).toBe('pending');
  await until('the send operation to be done', () => lastOf((sent.body.operation as { id: string }).id).status === 'done');
  await server.kill();

  server = await startServer(dir);
  const url = server.url;
  expect(await chatStatus(url, chat)).toBe('input-required');
  expect((await getTiddler(url, message))!['tool-status']).toBe('pending');
  expect(await getTiddler(url, note.title)).toBeUndefined();
  expect(savedMessages(dir, chat).filter((m) => m.role === 'error')).toEqual([]);
  const back = await open([chat]);
  expect(back.agentEvents(chat, 'snapshot').at(-1)!.state.status).toBe('input-required');

  const requests = mock.requests.length;
  const decided = await post(url, 'decide', { chat, message, choice: 'once' });
  expect(decided.status).toBe(202);
  await back.waitFor('completed', isStatus(chat, 'completed'));
  expect(operationStatuses(dir, (decided.body.operation as { id: string }).id)).toEqual(['queued', 'running', 'done']);
  // The tool ran: the note is in the wiki and on disk, journaled for the turn.
  expect(await getTiddler(url, note.title)).toMatchObject(note);
  const { tiddlers } = tiddlerFiles(dir);
  expect(tiddlers.get(note.title)).toMatchObject(note);
  expect([...tiddlers.keys()].filter((t) => t.startsWith(`$:/ai/journal/${chat}/`))).toHaveLength(1);
  // The model saw the tool's result and replied once.
  expect(mock.requests.length).toBe(requests + 1);
  const after = savedMessages(dir, chat);
  expect(after.find((m) => m.title === message)!['tool-status']).toBe('ok');
  expect(after.at(-1)!.role).toBe('assistant');
  expect(after.at(-1)!.text).toMatch(/^''Mock reply'' from the offline test model \(not a real AI\)\. The tool returned: /);
  expect(await chatStatus(url, chat)).toBe('completed');
});
