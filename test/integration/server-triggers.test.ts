// Triggers in the server edition (`tiddlywiki --listen` with the server plugin, the mock LLM on
// loopback): they run on the server. A change a browser saves (PUT) to a tiddler the filter
// selects wakes the chat once after the debounce, its reply written to disk; a change seen before
// the server stopped runs after the restart; a browser's stale copy of the trigger cannot put
// back an old run count.
import fs from 'node:fs';
import path from 'node:path';
import {
  getTiddler,
  putTiddler,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  until,
  writeChat,
  type Fields,
  type MockLlm,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(40_000);

let mock: MockLlm;
let server: TwServer;
let dir: string;

function writeTrigger(name: string, fields: Fields): void {
  const all: Fields = { title: `Trigger ${name}`, tags: '$:/tags/AI/Trigger', 'trigger-message': `Message of ${name}`, 'trigger-debounce': '1', ...fields };
  fs.writeFileSync(
    path.join(dir, 'tiddlers', `Trigger ${name}.tid`),
    `${Object.entries(all)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n`,
  );
}

const woken = (chat: string) => savedMessages(dir, chat).filter((m) => m.role === 'user' && m['agent-source']);

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  writeChat(dir, 'Inbox chat');
  writeChat(dir, 'Restart chat');
  writeTrigger('inbox', { 'agent-chat': 'Inbox chat', 'trigger-filter': '[tag[Inbox]]' });
  // Seen before the server stopped, due while it was down: runs once at start.
  writeTrigger('pending', {
    'agent-chat': 'Restart chat',
    'trigger-filter': '[tag[Journal]]',
    'trigger-pending': '[[Day 1]]',
    'trigger-due': new Date(Date.now() - 60_000).toISOString(),
  });
  server = await startServer(dir);
});

afterAll(async () => {
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a change seen before the server stopped runs once after the start', async () => {
  await until('the pending trigger to run', () => woken('Restart chat').length === 1 && savedMessages(dir, 'Restart chat').at(-1)?.role === 'assistant');
  expect(woken('Restart chat')[0]!.text).toBe('Message of pending\n\nChanged: [[Day 1]]');
  expect(woken('Restart chat')[0]!['agent-source']).toBe('trigger:Trigger pending');
  const trigger = (await getTiddler(server.url, 'Trigger pending'))!;
  expect(trigger['trigger-run-count']).toBe('1');
  expect(trigger['trigger-pending']).toBeUndefined();
});

test("a browser's save of a matching tiddler wakes the chat on the server once; a stale copy of the trigger keeps the server's count", async () => {
  expect(await putTiddler(server.url, { title: 'Idea', text: 'a pond', tags: 'Inbox' })).toBe(204);
  expect(await putTiddler(server.url, { title: 'Unrelated', text: 'x', tags: 'Other' })).toBe(204);
  await until('the trigger to run', () => woken('Inbox chat').length === 1 && savedMessages(dir, 'Inbox chat').at(-1)?.role === 'assistant');
  expect(woken('Inbox chat')[0]!.text).toBe('Message of inbox\n\nChanged: [[Idea]]');
  const stale = (await getTiddler(server.url, 'Trigger inbox'))!;
  expect(stale['trigger-run-count']).toBe('1');
  // A page that still has the trigger from before the run pauses it: the pause lands, the count stays.
  const { revision, bag, ...fields } = stale;
  void revision;
  void bag;
  expect(await putTiddler(server.url, { ...fields, 'trigger-run-count': '0', 'trigger-enabled': 'no' })).toBe(204);
  expect(await getTiddler(server.url, 'Trigger inbox')).toMatchObject({ 'trigger-run-count': '1', 'trigger-enabled': 'no' });
  expect(woken('Inbox chat')).toHaveLength(1);
});
