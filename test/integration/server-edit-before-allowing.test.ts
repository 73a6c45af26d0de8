// Edit before allowing in the server edition (issue 24): POST /agent/decide carries the writer's
// own version of the call's text (`text`). A reader's decision is refused by TiddlyWiki before
// any of it runs; a `text` that is not a string is a 400; a version the write gate refuses is a
// 400 with the gate's reason, and the call still waits; an accepted version lands on the server
// through the gate and the turn's journal (Roll back restores the original), and the model is
// told what the user changed.
import fs from 'node:fs';
import path from 'node:path';
import {
  folderBytes,
  getTiddler,
  operations,
  post,
  putTiddler,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  until,
  watch,
  type MockLlm,
  type SseClient,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(60_000);

const CHAT = 'Demo chat';
const NOTE = 'Server edited note';
const M = '20260101000000000';
const ORIGINAL = 'First line.\n\nSecond line.\n\nLast line.';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const WRITER = { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki', ...basic('alice', 'wonderland') };
const READER = { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki', ...basic('bob', 'builder') };

let mock: MockLlm;
let server: TwServer;
let dir: string;
let page: SseClient;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
  server = await startServer(dir, ['credentials=users.csv', 'readers=alice,bob', 'writers=alice']);
  page = await watch(server.url, [CHAT], { headers: basic('alice', 'wonderland') });
  expect(await putTiddler(server.url, { title: NOTE, text: ORIGINAL, tags: 'Notes', created: M, modified: M }, WRITER)).toBe(204);
});

afterAll(async () => {
  page?.close();
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("a reader cannot decide with a text; a bad or refused text changes nothing; the writer's version lands, journaled, and the model is told", async () => {
  mock.queue([
    { toolCalls: [{ name: 'wiki-read', arguments: { title: NOTE } }] },
    { toolCalls: [{ name: 'wiki-edit', arguments: { title: NOTE, modified: M, edits: [{ find: 'Last line.', replace: "The agent's last line." }] } }] },
    { text: 'Done.' },
  ]);
  expect((await post(server.url, 'send', { chat: CHAT, text: 'Change the last line.' }, WRITER)).status).toBe(202);
  const pending = (await page.waitFor('the card', (e) => e.event === 'agent' && e.data.type === 'waiting')).data.message as string;
  await page.waitFor('input-required', (e) => e.event === 'agent' && e.data.type === 'status' && e.data.status === 'input-required');
  expect(savedMessages(dir, CHAT).find((m) => m.title === pending)!['approval-edit']).toBe(NOTE);

  const mine = "First line.\n\nSecond line.\n\nThe writer's last line.";
  const before = { files: folderBytes(dir), log: JSON.stringify(operations(dir)), requests: mock.requests.length };
  const refusals: [Record<string, string>, Record<string, unknown>, number, RegExp | undefined][] = [
    [READER, { chat: CHAT, message: pending, choice: 'once', text: mine }, 401, undefined],
    [WRITER, { chat: CHAT, message: pending, choice: 'once', text: 42 }, 400, /"text" must be a string/],
    [WRITER, { chat: CHAT, message: pending, choice: 'deny', text: mine }, 400, /denied call has no text/],
    [WRITER, { chat: CHAT, message: pending, choice: 'once', text: `${mine}\n<img src=x onerror=alert(1)>` }, 400, /^Refused: .*(event handler|onerror)/],
  ];
  for (const [headers, body, status, error] of refusals) {
    const answer = await post(server.url, 'decide', body, headers);
    expect({ body, status: answer.status }).toEqual({ body, status });
    if (error) expect(String(answer.body.error)).toMatch(error);
  }
  // Nothing changed: no file, no operation, no model request; the call still waits.
  expect(folderBytes(dir)).toEqual(before.files);
  expect(JSON.stringify(operations(dir))).toBe(before.log);
  expect(mock.requests.length).toBe(before.requests);

  const decided = await post(server.url, 'decide', { chat: CHAT, message: pending, choice: 'once', text: mine }, WRITER);
  expect(decided.status).toBe(202);
  await page.waitFor('completed', (e) => e.event === 'agent' && e.data.type === 'status' && e.data.status === 'completed');
  expect((await getTiddler(server.url, NOTE, basic('alice', 'wonderland')))!.text).toBe(mine);
  const told = mock.requests.at(-1)!.body.messages.at(-1);
  expect(told).toMatchObject({ role: 'tool', content: expect.stringContaining('The user edited your proposed text before allowing it') });
  expect(told.content).toContain("- The agent's last line.\n+ The writer's last line.");

  // Roll back restores the original, from the turn's journal.
  const user = savedMessages(dir, CHAT)
    .filter((m) => m.role === 'user')
    .at(-1)!.title!;
  const rolled = await post(server.url, 'rollback', { chat: CHAT, message: user }, WRITER);
  expect(rolled).toMatchObject({ status: 200, body: { conflicts: [], restored: [NOTE] } });
  await until('the original on the server', async () => (await getTiddler(server.url, NOTE, basic('alice', 'wonderland')))?.text === ORIGINAL);
});
