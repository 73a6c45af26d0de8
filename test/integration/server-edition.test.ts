// The server edition over real HTTP on loopback: one `tiddlywiki <wiki> --listen` process
// with the server plugin on a copy of the demo wiki, the mock LLM, and push-channel clients
// (GET /agent/events, server-sent events read over raw HTTP). A turn runs on the server and
// streams to every page that shows its chat; a page that leaves mid-turn loses nothing; two
// sends to one chat queue; bad requests end in a clear error and change nothing; a page that
// never reads is dropped while the others go on; a page resumes from its Last-Event-ID.
import fs from 'node:fs';
import net from 'node:net';
import {
  defaultReply,
  folderBytes,
  getTiddler,
  operations,
  operationStatuses,
  post,
  rssMb,
  savedMessages,
  serverWikiFolder,
  type SseClient,
  startMockLlm,
  tiddlerFiles,
  startServer,
  until,
  watch,
  writeChat,
  writeFurnishedChat,
  type MockLlm,
  type SseEvent,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(30_000);

let mock: MockLlm;
let server: TwServer;
let url: string;
let dir: string;
const clients: SseClient[] = [];
/** Two chats whose titles nest, each with every part a chat can have on disk. */
let nest: string[];
let nestPrivate: string[];

const CHATS = [
  'Stream chat',
  'Leave chat',
  'Queue chat',
  'Stop chat',
  'Undo chat',
  'Bad chat',
  'Flood chat',
  'Resume chat',
  'Big chat',
  'Todo chat',
  'Branch chat',
];
/** 'Big chat' has a long history: 40 messages of 50 kB, 2 MB in all. */
const BIG = Array.from({ length: 40 }, (_, i) => ({
  title: `$:/ai/messages/Big chat/${String(i + 1).padStart(6, '0')}`,
  'agent-chat': 'Big chat',
  'agent-seq': String(i + 1),
  role: i % 2 ? 'assistant' : 'user',
  type: 'text/plain',
  text: `${i} ${'b'.repeat(50_000)}`,
}));

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 2 });
  dir = serverWikiFolder(mock.url);
  for (const chat of CHATS) writeChat(dir, chat);
  nest = writeFurnishedChat(dir, 'Nest');
  nestPrivate = writeFurnishedChat(dir, 'Nest/Private');
  for (const { text, ...fields } of BIG)
    fs.writeFileSync(
      `${dir}/tiddlers/big-${fields['agent-seq']}.tid`,
      `${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${text}`,
    );
  server = await startServer(dir);
  url = server.url;
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function open(chats: string[], options: Parameters<typeof watch>[2] = {}): Promise<SseClient> {
  const client = await watch(url, chats, options);
  clients.push(client);
  return client;
}

/** How many pages the server's push channel has (GET /agent/status). */
const pages = async () => ((await (await fetch(`${url}/agent/status`)).json()) as { pages: number }).pages;
const isStatus = (chat: string, status: string) => (e: SseEvent) =>
  e.event === 'agent' && e.data.chat === chat && e.data.type === 'status' && e.data.status === status;
const isReply = (chat: string) => (e: SseEvent) => e.event === 'tiddler' && e.data['agent-chat'] === chat && e.data.role === 'assistant';
const idSeq = (id: string | undefined) => Number(/-(\d+)$/.exec(id ?? '')?.[1]);

test('a send over HTTP streams to two pages watching the chat: every delta in order, the finished reply tiddler, and the operation queued -> running -> done on disk', async () => {
  const chat = 'Stream chat';
  const [a, b] = [await open([chat]), await open([chat])];
  const text = 'Hello to both pages';
  const sent = await post(url, 'send', { chat, text });
  expect(sent.status).toBe(202);
  const op = sent.body.operation as { id: string; status: string };
  expect(op.id).toEqual(expect.any(String));
  expect(['queued', 'running']).toContain(op.status);

  const expected = defaultReply(text);
  for (const client of [a, b]) {
    const reply = await client.waitFor('the reply tiddler', isReply(chat));
    await client.waitFor('completed', isStatus(chat, 'completed'));
    expect(reply.data.text).toBe(expected);
    // Each tiddler event carries the server's revision (TiddlyWiki's change count), so the page's syncer is in step.
    expect(reply.data.revision).toMatch(/^\d+$/);
    expect(reply.data.title).toMatch(new RegExp(`^\\$:/ai/messages/${chat}/`));
    // The deltas, in order, are the reply; the reply tiddler comes after the last delta.
    const deltas = client.deltas(chat);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(expected);
    const lastDelta = client.events.map((e) => e.event === 'agent' && e.data.type === 'text-delta').lastIndexOf(true);
    expect(client.events.indexOf(reply)).toBeGreaterThan(lastDelta);
    // The user's message reached the page as a tiddler too.
    expect(client.events.some((e) => e.event === 'tiddler' && e.data['agent-chat'] === chat && e.data.role === 'user' && e.data.text === text)).toBe(true);
    // Event ids are one sequence of this server, increasing.
    const seqs = client.events.map((e) => idSeq(e.id));
    expect(seqs.every((s, i) => i === 0 || s >= seqs[i - 1]!)).toBe(true);
    expect(new Set(client.events.map((e) => e.id!.split('-')[0])).size).toBe(1);
  }
  expect(a.deltas(chat)).toEqual(b.deltas(chat));
  expect(a.agentEvents(chat, 'status').map((e) => e.status)).toEqual(['working', 'completed']);
  expect(b.agentEvents(chat, 'reply-finished')).toHaveLength(1);

  // On disk: the operation's life, and the messages (announced only once written).
  expect(operationStatuses(dir, op.id)).toEqual(['queued', 'running', 'done']);
  expect(savedMessages(dir, chat).map((m) => [m.role, m.text])).toEqual([
    ['user', text],
    ['assistant', expected],
  ]);
});

test('a page that closes mid-turn: the reply is still written, on disk and over a new connection (resumed, or resynced from scratch)', async () => {
  const chat = 'Leave chat';
  const pagesBefore = await pages();
  const a = await open([chat]);
  const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
  mock.queue({ text: `Long reply: ${words}`, delayMs: 15 });
  const sent = await post(url, 'send', { chat, text: 'Write while I am away' });
  expect(sent.status).toBe(202);
  await a.waitFor('a few deltas', () => a.deltas(chat).length >= 3);
  const lastSeen = a.lastId!;
  a.close();
  await until('the server to see the page gone', async () => (await pages()) === pagesBefore);
  expect(a.events.some(isReply(chat))).toBe(false);

  // The turn goes on without anyone watching.
  await until('the reply on disk', () => savedMessages(dir, chat).some((m) => m.role === 'assistant'), 10_000);
  expect(savedMessages(dir, chat).map((m) => [m.role, m.text])).toEqual([
    ['user', 'Write while I am away'],
    ['assistant', `Long reply: ${words}`],
  ]);
  expect(operationStatuses(dir, (sent.body.operation as { id: string }).id)).toEqual(['queued', 'running', 'done']);

  // The page comes back with its Last-Event-ID: it gets the reply tiddler it missed, and a snapshot that says completed.
  const resumed = await open([chat], { lastEventId: lastSeen });
  expect(resumed.events.some((e) => e.event === 'stale')).toBe(false);
  expect(resumed.events.find(isReply(chat))?.data.text).toBe(`Long reply: ${words}`);
  expect(resumed.agentEvents(chat, 'snapshot').at(-1)!.state.status).toBe('completed');
  // A page with no id at all is told it is stale and gets the chat whole.
  const fresh = await open([chat]);
  expect(fresh.events[1]!.event).toBe('stale');
  const sync = fresh.events.find((e) => e.event === 'chat-sync')!;
  expect(sync.data.chat).toBe(chat);
  expect(sync.data.titles).toContain(chat);
  expect(fresh.events.find(isReply(chat))?.data.text).toBe(`Long reply: ${words}`);
});

test('a page that shows chat Nest gets it whole (messages, journal, image, todo list, parked version, schedule) and not one tiddler of chat Nest/Private', async () => {
  const page = await open(['Nest']);
  const sync = page.events.find((e) => e.event === 'chat-sync')!;
  expect(sync.data.chat).toBe('Nest');
  expect([...sync.data.titles].sort()).toEqual([...nest].sort());
  const pushed = page.events.filter((e) => e.event === 'tiddler').map((e) => e.data);
  expect(pushed.map((t) => t.title).sort()).toEqual([...nest].sort());
  expect(pushed.filter((t) => nestPrivate.includes(t.title) || Object.values(t).includes('Nest/Private'))).toEqual([]);
});

test('the todo list the model writes on the server reaches the page that shows the chat, is saved, and comes with the chat to a page that resyncs', async () => {
  const chat = 'Todo chat';
  const title = `$:/ai/todo/${chat}`;
  const list = '- [x] Look around\n- [ ] Write it up';
  const page = await open([chat]);
  mock.queue({ toolCalls: [{ name: 'manage-todo', arguments: { operation: 'write', text: list } }] });
  expect((await post(url, 'send', { chat, text: 'Make a plan' })).status).toBe(202);
  const pushed = await page.waitFor('the todo tiddler', (e) => e.event === 'tiddler' && e.data.title === title);
  expect(pushed.data).toMatchObject({ 'agent-chat-todo': chat, text: list });
  await page.waitFor('completed', isStatus(chat, 'completed'));
  expect(tiddlerFiles(dir).tiddlers.get(title)?.text).toBe(list);
  // A fresh page (no event id) is stale: the chat comes whole, its todo list with it.
  const fresh = await open([chat]);
  const sync = fresh.events.find((e) => e.event === 'chat-sync')!;
  expect(sync.data.titles).toContain(title);
  expect(fresh.events.find((e) => e.event === 'tiddler' && e.data.title === title)?.data.text).toBe(list);
});

test('two pages send to one chat at once: both 202, the second shows in the queue while the first runs, the turns run in order', async () => {
  const chat = 'Queue chat';
  const watcher = await open([chat]);
  const texts = ['First of two', 'Second of two'];
  const answers = await Promise.all(texts.map((text) => post(url, 'send', { chat, text })));
  expect(answers.map((a) => a.status)).toEqual([202, 202]);
  const ids = answers.map((a) => (a.body.operation as { id: string }).id);
  // Which one the server took first: the one that ran first.
  const log = operations(dir);
  const firstId = log.find((op) => ids.includes(op.id as string) && op.status === 'running')!.id;
  const [first, second] = firstId === ids[0] ? texts : [texts[1]!, texts[0]!];

  const queued = await watcher.waitFor(
    'the queue with the second send',
    (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'queue' && e.data.queue.length === 1,
  );
  expect(queued.data.queue[0].text).toBe(second);
  await watcher.waitFor('the second reply', (e) => isReply(chat)(e) && e.data.text === defaultReply(second!));
  await watcher.waitFor('completed after the second reply', isStatus(chat, 'completed'), {
    from: watcher.events.findIndex((e) => isReply(chat)(e) && e.data.text === defaultReply(second!)),
  });
  // The queue event came while the first turn ran (before its reply was finished), then emptied.
  const firstReply = watcher.events.findIndex((e) => isReply(chat)(e) && e.data.text === defaultReply(first!));
  expect(watcher.events.indexOf(queued)).toBeLessThan(firstReply);
  expect(watcher.agentEvents(chat, 'queue').at(-1)!.queue).toEqual([]);

  expect(savedMessages(dir, chat).map((m) => [m.role, m.text])).toEqual([
    ['user', first],
    ['assistant', defaultReply(first!)],
    ['user', second],
    ['assistant', defaultReply(second!)],
  ]);
  for (const id of ids) expect(operationStatuses(dir, id)).toEqual(['queued', 'running', 'done']);
  // One turn after the other: the second ran after the first was done.
  const lines = operations(dir)
    .map((op) => `${op.id === firstId ? 'first' : ids.includes(op.id as string) ? 'second' : 'other'} ${op.status}`)
    .filter((l) => !l.startsWith('other'));
  expect(lines).toEqual(['first queued', 'first running', 'second queued', 'first done', 'second running', 'second done']);
});

test('stop over HTTP aborts the running turn at once and cancels the send waiting behind it', async () => {
  const chat = 'Stop chat';
  const page = await open([chat]);
  const first = await post(url, 'send', { chat, text: 'Go on and on mock:slow' });
  expect(first.status).toBe(202);
  await page.waitFor('a few deltas', () => page.deltas(chat).length >= 3);
  const second = await post(url, 'send', { chat, text: 'Never mind' });
  expect(second.status).toBe(202);
  await page.waitFor('the queue', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'queue' && e.data.queue.length === 1);
  const modelRequest = mock.requests.at(-1)!;
  const requests = mock.requests.length;

  const stopped = await post(url, 'stop', { chat });
  expect(stopped.status).toBe(200);
  await page.waitFor('canceled', isStatus(chat, 'canceled'));
  // The model's stream was cut at once; the waiting send never ran.
  await until('the model request to be aborted', () => modelRequest.aborted === true, 5000);
  expect(mock.requests.length).toBe(requests);
  expect(page.agentEvents(chat, 'queue').at(-1)!.queue).toEqual([]);
  const [firstId, secondId] = [first, second].map((a) => (a.body.operation as { id: string }).id) as [string, string];
  await until('the operations to be canceled', () => operationStatuses(dir, firstId).at(-1) === 'canceled');
  expect(operationStatuses(dir, firstId)).toEqual(['queued', 'running', 'canceled']);
  expect(operationStatuses(dir, secondId)).toEqual(['queued', 'canceled']);
  expect(tiddlerFiles(dir).tiddlers.get(chat)!['agent-status']).toBe('canceled');
  expect(
    savedMessages(dir, chat)
      .filter((m) => m.role === 'user')
      .map((m) => m.text),
  ).toEqual(['Go on and on mock:slow']);
  expect((await post(url, 'stop', { chat })).status).toBe(409);
});

test('rollback, retry and delete-turn over HTTP: their changes and deletions reach the disk and the pages', async () => {
  const chat = 'Undo chat';
  const page = await open([chat]);
  const note = { title: 'Note to roll back', text: 'Written by the agent' };
  expect((await post(url, 'send', { chat, text: `mock:tool=wiki-create ${JSON.stringify(note)}` })).status).toBe(202);
  const waiting = await page.waitFor('the approval', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
  expect((await post(url, 'decide', { chat, message: waiting.data.message, choice: 'once' })).status).toBe(202);
  await page.waitFor('completed', isStatus(chat, 'completed'));
  const toolTurn = savedMessages(dir, chat)[0]!.title!;
  expect(tiddlerFiles(dir).tiddlers.get(note.title)).toMatchObject(note);

  // Rollback: the note goes, from the wiki, the disk and every page.
  const rolled = await post(url, 'rollback', { chat, message: toolTurn });
  expect(rolled).toEqual({ status: 200, body: { conflicts: [], restored: [note.title] } });
  await page.waitFor('the note deleted', (e) => e.event === 'deleted' && e.data.title === note.title);
  expect(tiddlerFiles(dir).tiddlers.has(note.title)).toBe(false);
  expect(await getTiddler(url, note.title)).toBeUndefined();
  const journal = [...tiddlerFiles(dir).tiddlers.values()].find((t) => t.title!.startsWith(`$:/ai/journal/${chat}/`))!;
  expect(journal['agent-rolled-back']).toBeTruthy();

  // Retry: the last turn's reply is replaced, on disk too.
  let mark = page.events.length;
  expect((await post(url, 'send', { chat, text: 'Plain question' })).status).toBe(202);
  await page.waitFor('completed', isStatus(chat, 'completed'), { from: mark });
  const question = savedMessages(dir, chat).find((m) => m.text === 'Plain question')!;
  const firstReply = savedMessages(dir, chat).at(-1)!;
  mark = page.events.length;
  expect((await post(url, 'retry', { chat, message: question.title })).status).toBe(202);
  await page.waitFor('completed again', isStatus(chat, 'completed'), { from: mark });
  expect(page.events.slice(mark).some((e) => e.event === 'deleted' && e.data.title === firstReply.title)).toBe(true);
  const afterRetry = savedMessages(dir, chat);
  expect(afterRetry.slice(afterRetry.indexOf(afterRetry.find((m) => m.title === question.title)!)).map((m) => [m.role, m.text])).toEqual([
    ['user', 'Plain question'],
    ['assistant', defaultReply('Plain question')],
  ]);

  // Delete the turn: its messages go from the disk and the pages.
  const turn = afterRetry.slice(afterRetry.findIndex((m) => m.title === question.title)).map((m) => m.title);
  expect(await post(url, 'delete-turn', { chat, message: question.title })).toEqual({ status: 200, body: {} });
  for (const title of turn) await page.waitFor(`${title} deleted`, (e) => e.event === 'deleted' && e.data.title === title);
  expect(savedMessages(dir, chat).filter((m) => turn.includes(m.title))).toEqual([]);
  expect(savedMessages(dir, chat).map((m) => m.title)).toContain(toolTurn);
});

test('edit and switch-branch over HTTP: the old branch is parked on disk and comes back; both are refused while a turn runs', async () => {
  const chat = 'Branch chat';
  const page = await open([chat]);
  expect((await post(url, 'send', { chat, text: 'First words' })).status).toBe(202);
  await page.waitFor('completed', isStatus(chat, 'completed'));
  const first = savedMessages(dir, chat)[0]!;
  const mark = page.events.length;
  expect((await post(url, 'edit', { chat, message: first.title, text: 'Edited words' })).status).toBe(202);
  await page.waitFor('the edited turn completed', isStatus(chat, 'completed'), { from: mark });
  const texts = () => savedMessages(dir, chat).map((m) => m.text);
  expect(texts()).toEqual(['Edited words', defaultReply('Edited words')]);
  const parked = () => [...tiddlerFiles(dir).tiddlers.values()].filter((t) => t.title!.startsWith(`$:/ai/branches/${chat}/`));
  expect(parked().map((t) => t.text)).toEqual(['First words', defaultReply('First words')]);
  expect(parked()[0]).toMatchObject({ 'agent-branch-chat': chat, 'agent-branch-at': '0', 'agent-version': '1' });

  expect((await post(url, 'switch-branch', { chat, at: 0, version: 1 })).status).toBe(202);
  await until('the first branch back on disk', () => texts()[0] === 'First words');
  expect(texts()).toEqual(['First words', defaultReply('First words')]);
  expect(parked().map((t) => t.text)).toEqual(['Edited words', defaultReply('Edited words')]);

  expect(await post(url, 'switch-branch', { chat, at: 0, version: 9 })).toMatchObject({ status: 404 });
  expect(await post(url, 'switch-branch', { chat, at: 'x', version: 1 })).toMatchObject({ status: 400 });
  expect(await post(url, 'edit', { chat, message: first.title, text: 42 })).toMatchObject({ status: 400 });
  // While a turn runs (a reply that stalls), both are refused and change nothing.
  const running = page.events.length;
  expect((await post(url, 'send', { chat, text: 'mock:stall' })).status).toBe(202);
  await page.waitFor('working', isStatus(chat, 'working'), { from: running });
  expect(await post(url, 'edit', { chat, message: first.title, text: 'Again' })).toMatchObject({ status: 409 });
  expect(await post(url, 'switch-branch', { chat, at: 0, version: 2 })).toMatchObject({ status: 409 });
  expect((await post(url, 'stop', { chat })).status).toBe(200);
  await page.waitFor('stopped', isStatus(chat, 'canceled'), { from: running });
  expect(texts().slice(0, 2)).toEqual(['First words', defaultReply('First words')]);
});

test('bad requests end in a clear error and change nothing', async () => {
  const chat = 'Bad chat';
  const before = { files: folderBytes(dir), log: fs.readFileSync(`${dir}/agent-state/operations.jsonl`, 'utf8'), requests: mock.requests.length };
  const cases: [string, unknown, number, RegExp][] = [
    ['send', '', 400, /not valid JSON/],
    ['send', '{"chat": "Bad chat", ', 400, /not valid JSON/],
    ['send', '[]', 400, /JSON object/],
    ['send', '"text"', 400, /JSON object/],
    ['send', {}, 400, /"text" must be a string/],
    ['send', { text: 'Hello' }, 400, /"chat" must be a non-empty string/],
    ['send', { chat, text: 42 }, 400, /"text"/],
    ['send', { chat, text: '   ' }, 400, /empty/],
    ['send', { chat, text: 'hi', attachments: 'Welcome to TiddlyAgent' }, 400, /attachments/],
    ['send', { chat, text: 'x'.repeat(1_100_000) }, 413, /larger than 1000000 bytes/],
    ['send', { chat: 'No such chat', text: 'Hello' }, 404, /does not exist/],
    ['send', { chat: 'Welcome to TiddlyAgent', text: 'Hello' }, 400, /is not a chat/],
    ['stop', { chat }, 409, /no turn to stop/],
    ['stop', { chat: 'No such chat' }, 404, /does not exist/],
    ['decide', { chat, message: `$:/ai/messages/${chat}/000001`, choice: 'once' }, 404, /is not a message of/],
    ['decide', { chat, message: 'x', choice: 'maybe' }, 400, /choice/],
    ['answer', { chat, message: 'x' }, 400, /"answers"/],
    ['answer', { chat, message: 'x', answers: [1] }, 400, /answers/],
    ['retry', { chat, message: 'x' }, 404, /not a user message/],
    ['delete-turn', { chat, message: 'x' }, 404, /not a user message/],
    ['rollback', { chat, message: 'x' }, 404, /nothing to roll back/],
    ['launch', { chat }, 404, /no action "launch"/],
  ];
  for (const [action, body, status, message] of cases) {
    const answer = await post(url, action, body);
    expect([action, JSON.stringify(body).slice(0, 60), answer.status]).toEqual([action, JSON.stringify(body).slice(0, 60), status]);
    expect(answer.body.error).toMatch(message);
  }
  expect(folderBytes(dir)).toEqual(before.files);
  expect(fs.readFileSync(`${dir}/agent-state/operations.jsonl`, 'utf8')).toBe(before.log);
  expect(mock.requests.length).toBe(before.requests);

  // A question, answered: answering it again, or deciding on it or on a user message, is a conflict.
  const watcher = await open([chat]);
  expect((await post(url, 'send', { chat, text: 'mock:tool=ask-question {"question":"Which colour?"}' })).status).toBe(202);
  const waiting = await watcher.waitFor('the question', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
  expect(waiting.data.reason).toBe('question');
  const question = waiting.data.message as string;
  await watcher.waitFor('input-required', isStatus(chat, 'input-required'));
  expect((await post(url, 'answer', { chat, message: question, answers: ['Blue'] })).status).toBe(202);
  await watcher.waitFor('completed', isStatus(chat, 'completed'));
  const user = savedMessages(dir, chat).find((m) => m.role === 'user')!.title!;
  const settled = { files: folderBytes(dir), log: fs.readFileSync(`${dir}/agent-state/operations.jsonl`, 'utf8'), requests: mock.requests.length };
  const conflicts: [string, unknown, RegExp][] = [
    ['answer', { chat, message: question, answers: ['Red'] }, /does not wait for an answer/],
    ['answer', { chat, message: question, answers: null }, /does not wait for an answer/],
    ['decide', { chat, message: question, choice: 'once' }, /does not wait for a decision/],
    ['decide', { chat, message: user, choice: 'once' }, /does not wait for a decision/],
    ['stop', { chat }, /no turn to stop/],
  ];
  for (const [action, body, message] of conflicts) {
    const answer = await post(url, action, body);
    expect([action, answer.status]).toEqual([action, 409]);
    expect(answer.body.error).toMatch(message);
  }
  // A refusal carries its language key, so a page says it in its user's language (ui/runner-error.ts).
  expect((await post(url, 'stop', { chat })).body.reason).toEqual({ key: 'Refused/nothing-to-stop', params: { chat } });
  expect(folderBytes(dir)).toEqual(settled.files);
  expect(fs.readFileSync(`${dir}/agent-state/operations.jsonl`, 'utf8')).toBe(settled.log);
  expect(mock.requests.length).toBe(settled.requests);
  const clarified = savedMessages(dir, chat).find((m) => m.title === question)!;
  expect(clarified['tool-status']).toBe('ok');
  expect(clarified.text).toContain('A: Blue');
});

test('a page that never reads is dropped while a long reply streams; the server stays responsive and the other page gets every delta', async () => {
  const chat = 'Flood chat';
  const reader = await open([chat]);
  const pagesBefore = await pages();
  // A raw socket that asks for the chat's events and then never reads a byte.
  const { port } = new URL(url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  let received = 0;
  let closed = false;
  socket.on('data', (d: Buffer) => (received += d.length));
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`GET /agent/events?chat=${encodeURIComponent(chat)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  socket.pause();
  await until('the raw page to connect', async () => (await pages()) === pagesBefore + 1);

  // A reply of ~12 MB in 16 kB deltas: far more than the kernel's socket buffers and the hub's 1 MB limit.
  const chunk = 'z'.repeat(16_000);
  const chunks = Array.from({ length: 750 }, (_, i) => `${i} ${chunk}\n`);
  mock.queue({ chunks, delayMs: 1 });
  const rssBefore = rssMb(server.child.pid!);
  let rssPeak = rssBefore;
  expect((await post(url, 'send', { chat, text: 'Flood me' })).status).toBe(202);
  const statusTimes: number[] = [];
  let dropped = false;
  await until(
    'the silent page to be dropped',
    async () => {
      const t = Date.now();
      const now = await pages();
      statusTimes.push(Date.now() - t);
      rssPeak = Math.max(rssPeak, rssMb(server.child.pid!));
      dropped = now === pagesBefore;
      return dropped || reader.events.some(isStatus(chat, 'completed'));
    },
    20_000,
  );
  // Dropped while the reply still streamed, not when it ended.
  expect(dropped).toBe(true);
  expect(reader.events.some(isReply(chat))).toBe(false);
  await reader.waitFor('the flood reply', isReply(chat), { ms: 20_000 });
  await reader.waitFor('completed', isStatus(chat, 'completed'));
  // The page that reads got everything, in order.
  const deltas = reader.deltas(chat);
  expect(deltas.join('')).toBe(chunks.join(''));
  // The server answered status requests promptly all along, and its memory stayed bounded (the
  // reply itself is held a few times over: text, tiddler, events, ring; not the 12 MB per dropped page).
  expect(Math.max(...statusTimes)).toBeLessThan(2000);
  rssPeak = Math.max(rssPeak, rssMb(server.child.pid!));
  expect(rssPeak - rssBefore).toBeLessThan(200);
  // The silent socket, read at last: its stream was cut off by the server, far short of the whole.
  socket.resume();
  await until('the dropped socket to close', () => closed, 10_000);
  expect(received).toBeLessThan(chunks.join('').length);
  // Still healthy: a new page connects and gets its snapshot.
  const after = await open([chat]);
  expect(after.agentEvents(chat, 'snapshot').at(-1)!.state.status).toBe('completed');
});

test("a page that reconnects with a Last-Event-ID of this run gets exactly the tiddler events it missed; the header wins over the page's cursor", async () => {
  const chat = 'Resume chat';
  const steady = await open([chat]);
  const leaving = await open([chat]);
  const left = leaving.lastId!;
  leaving.close();
  const mark = steady.events.length;
  expect((await post(url, 'send', { chat, text: 'While one page was away' })).status).toBe(202);
  await steady.waitFor('completed', isStatus(chat, 'completed'), { from: mark });
  await steady.waitFor('the reply', isReply(chat), { from: mark });
  // What the steady page got of the tiddler events after the id the other page left at.
  const missed = steady.events.filter((e) => (e.event === 'tiddler' || e.event === 'deleted') && idSeq(e.id) > idSeq(left));
  expect(missed.length).toBeGreaterThanOrEqual(3);

  for (const options of [{ lastEventId: left }, { cursor: left }, { lastEventId: left, cursor: 'old0run-1' }]) {
    const back = await open([chat], options);
    expect(back.events[0]!.event).toBe('hello');
    expect(back.events.some((e) => e.event === 'stale' || e.event === 'chat-sync')).toBe(false);
    const replayed = back.events.filter((e) => e.event === 'tiddler' || e.event === 'deleted');
    expect(replayed).toEqual(missed);
    expect(back.events.at(-1)!.data).toMatchObject({ type: 'snapshot', chat, state: { status: 'completed' } });
    back.close();
  }
  // An id the server cannot resume from (another run, or ahead of it): stale, then the chat whole.
  for (const bad of [`${left.split('-')[0]}-999999`, 'zzzzzz-3', 'garbage']) {
    const back = await open([chat], { lastEventId: bad });
    expect(back.events.map((e) => e.event).slice(0, 2)).toEqual(['hello', 'stale']);
    const sync = back.events.find((e) => e.event === 'chat-sync')!;
    expect(sync.data.titles).toEqual([chat, ...savedMessages(dir, chat).map((m) => m.title)]);
    const synced = back.events.filter((e) => e.event === 'tiddler').map((e) => e.data.title);
    expect(synced).toEqual(sync.data.titles);
    back.close();
  }
  // A page that asks for a chat whole (`sync`, after an earlier stale) gets it without being stale.
  const current = steady.lastId!;
  const whole = await open([chat], { lastEventId: current, sync: [chat, 'Stream chat'] });
  expect(whole.events.some((e) => e.event === 'stale')).toBe(false);
  // Only chats the page shows are synced.
  expect(whole.events.filter((e) => e.event === 'chat-sync').map((e) => e.data.chat)).toEqual([chat]);
  expect(whole.events.filter((e) => e.event === 'tiddler').map((e) => e.data.title)).toEqual([chat, ...savedMessages(dir, chat).map((m) => m.title)]);
});

test('a page that opens a chat with a long history (2 MB) gets it whole, and is not taken for a page that does not read', async () => {
  const chat = 'Big chat';
  for (const options of [{}, { lastEventId: 'zzzzzz-3' }]) {
    const page = await open([chat], options);
    const sync = page.events.find((e) => e.event === 'chat-sync')!;
    expect(sync.data.titles).toEqual([chat, ...BIG.map((m) => m.title)]);
    const texts = page.events.filter((e) => e.event === 'tiddler' && e.data['agent-chat'] === chat).map((e) => e.data.text);
    expect(texts).toEqual(BIG.map((m) => m.text));
    page.close();
  }
});

test("a writer cannot pass a message off as a schedule's: a send's \"source\" is set only in the server's process, and dropped over HTTP", async () => {
  const chat = 'Bad chat';
  const watcher = await open([chat]);
  const from = watcher.events.length;
  expect((await post(url, 'send', { chat, text: 'From me, not a schedule', source: 'schedule:Forged schedule' })).status).toBe(202);
  await watcher.waitFor('working', isStatus(chat, 'working'), { from });
  await watcher.waitFor('completed', isStatus(chat, 'completed'), { from });
  await until('the message on disk', () => savedMessages(dir, chat).some((m) => m.text === 'From me, not a schedule'));
  const sent = savedMessages(dir, chat).find((m) => m.text === 'From me, not a schedule')!;
  expect(sent.role).toBe('user');
  expect(sent['agent-source']).toBeUndefined();
});
