// The server edition survives a SIGKILL: `tiddlywiki <wiki> --listen` with the server plugin
// is killed mid-stream, or while a turn waits for an approval, and started again on the same
// folder. The chat is usable (interrupted, not working; the user's words kept exactly once;
// every file whole, no temp file taken for a tiddler; the operations failed with "Interrupted
// by server restart"), a page that comes back with the old run's event id is resynced, and a
// pending approval decided after the restart runs its tool and finishes the turn, unless the
// user changed the tiddler meanwhile (keeping its `modified`): then it is refused as a
// conflict, since what the agent read is on disk with its messages.
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
  writeFurnishedChat,
  WRITE_HEADERS,
  type MockLlm,
  type SseClient,
  type SseEvent,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(30_000);

const RESTART_NOTE = 'Note edited while the server was down';
let mock: MockLlm;
let server: TwServer;
let dir: string;
const clients: SseClient[] = [];
let nest: string[];
let nestPrivate: string[];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 2 });
  dir = serverWikiFolder(mock.url);
  writeChat(dir, 'Approval chat');
  // An agent whose wiki-create runs without confirmation, for the kill-at-any-moment test.
  fs.writeFileSync(
    path.join(dir, 'tiddlers', 'auto-writer.tid'),
    'title: $:/demo/agents/auto-writer\ntags: $:/tags/AI/Agent\nagent-provider: $:/demo/providers/mock-llm\nagent-tools: wiki-create\nagent-approval: {"wiki-create":{"mode":"auto"}}\n\nYou write notes.',
  );
  writeChat(dir, 'Crash chat', { agent: '$:/demo/agents/auto-writer' });
  // Two chats whose titles nest; the inner one was left working (as a kill leaves a turn).
  nest = writeFurnishedChat(dir, 'Nest');
  nestPrivate = writeFurnishedChat(dir, 'Nest/Private', 'working');
  writeChat(dir, 'Restart conflict chat');
  fs.writeFileSync(path.join(dir, 'tiddlers', 'restart-note.tid'), `title: ${RESTART_NOTE}\nmodified: 20260101000000000\n\nThe original words.`);
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

const isStatus = (chat: string, status: string) => (e: SseEvent) =>
  e.event === 'agent' && e.data.chat === chat && e.data.type === 'status' && e.data.status === status;
const lastOf = (id: string) =>
  operations(dir)
    .filter((op) => op.id === id)
    .at(-1)!;

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
  // (The text index is saved there too, once built: agent-state/text-index.bin.)
  expect(fs.readdirSync(path.join(dir, 'agent-state')).filter((f) => f !== 'text-index.bin')).toEqual(['operations.jsonl']);

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

test("a user's edit that keeps modified while a write waits for approval, then a SIGKILL: deciding after the restart refuses the write; the retry after the re-read lands", async () => {
  const chat = 'Restart conflict chat';
  const modified = '20260101000000000';
  const update = (text: string) => ({ toolCalls: [{ name: 'wiki-update', arguments: { title: RESTART_NOTE, modified, text } }] });
  mock.queue([{ toolCalls: [{ name: 'wiki-read', arguments: { title: RESTART_NOTE } }] }, update("The agent's words."), update("The agent's words, again.")]);
  const page = await open([chat]);
  expect((await post(server.url, 'send', { chat, text: 'Rewrite the note.' })).status).toBe(202);
  const first = (await page.waitFor('the approval', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting')).data.message as string;
  // The user's edit, saved as `<$action-setfield $timestamp="no"/>` leaves it: the same modified.
  const current = await (await fetch(`${server.url}/recipes/default/tiddlers/${encodeURIComponent(RESTART_NOTE)}`)).json();
  const put = await fetch(`${server.url}/recipes/default/tiddlers/${encodeURIComponent(RESTART_NOTE)}`, {
    method: 'PUT',
    headers: WRITE_HEADERS,
    body: JSON.stringify({ ...current, text: "The user's words.", tags: 'Checked' }),
  });
  expect(put.status).toBe(204);
  await until('the edit on disk', () => tiddlerFiles(dir).tiddlers.get(RESTART_NOTE)?.text === "The user's words.");
  await server.kill();

  server = await startServer(dir);
  const back = await open([chat]);
  expect((await post(server.url, 'decide', { chat, message: first, choice: 'once' })).status).toBe(202);
  const second = (
    await back.waitFor('the retried write', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting' && e.data.message !== first)
  ).data.message as string;
  expect(await getTiddler(server.url, RESTART_NOTE)).toMatchObject({ text: "The user's words.", tags: 'Checked', modified });
  const refused = savedMessages(dir, chat).find((m) => m.title === first)!;
  expect(refused['tool-status']).toBe('error');
  expect(refused.text).toContain(`"${RESTART_NOTE}" changed since you read it`);
  // The model was told, and shown the user's version; the write it makes from that version lands.
  const told = mock.requests.at(-1)!.body.messages as { role: string; content: string }[];
  expect(told.some((m) => m.role === 'tool' && m.content.includes('changed since you read it'))).toBe(true);
  expect(told.some((m) => m.role === 'system' && m.content.startsWith('Current tiddler') && m.content.includes("The user's words."))).toBe(true);
  expect((await post(server.url, 'decide', { chat, message: second, choice: 'once' })).status).toBe(202);
  await back.waitFor('completed', isStatus(chat, 'completed'));
  expect(await getTiddler(server.url, RESTART_NOTE)).toMatchObject({ text: "The agent's words, again.", tags: 'Checked' });
});

test('killed after a send saved its message but before the turn saved anything else: after the restart the chat says the turn was cut off', async () => {
  // The state such a kill leaves (the kill loop below hits it now and then): the operation
  // running in the log, the user's message saved with its operation id, the chat's status
  // still the one of its last finished turn.
  const chat = 'Cut chat';
  await server.kill();
  writeChat(dir, chat, { 'agent-status': 'completed' });
  const message = (seq: number, role: string, text: string, extra: Record<string, string> = {}) =>
    fs.writeFileSync(
      path.join(dir, 'tiddlers', `cut-${seq}.tid`),
      `${Object.entries({
        title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`,
        type: 'text/plain',
        'agent-chat': chat,
        'agent-seq': String(seq),
        role,
        ...extra,
      })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${text}`,
    );
  message(0, 'user', 'An earlier question');
  message(1, 'assistant', 'An earlier answer');
  message(2, 'user', 'The question that was cut off', { 'agent-operation': 'op-cut' });
  const op = { id: 'op-cut', chat, kind: 'send', text: 'The question that was cut off', attachments: [], created: Date.now() };
  fs.appendFileSync(
    path.join(dir, 'agent-state', 'operations.jsonl'),
    `${JSON.stringify({ ...op, status: 'queued' })}\n${JSON.stringify({ ...op, status: 'running' })}\n`,
  );
  server = await startServer(dir);

  expect(operationStatuses(dir, 'op-cut')).toEqual(['running', 'failed']);
  const messages = savedMessages(dir, chat);
  expect(messages.map((m) => [m.role, m.text!.slice(0, 29)])).toEqual([
    ['user', 'An earlier question'],
    ['assistant', 'An earlier answer'],
    ['user', 'The question that was cut off'],
    ['error', 'Interrupted by server restart'],
  ]);
  // The turn did start (its message is saved): it reads as cut off, like any interrupted turn.
  expect(await chatStatus(server.url, chat)).toBe('interrupted');
});

test('killed after a decision landed but before the turn went on: after the restart the chat is interrupted, not left waiting for a decision it already has', async () => {
  const chat = 'Decided chat';
  await server.kill();
  writeChat(dir, chat);
  server = await startServer(dir);
  const page = await open([chat]);
  const note = { title: 'Decided but never written', text: 'x' };
  expect((await post(server.url, 'send', { chat, text: `mock:tool=wiki-create ${JSON.stringify(note)}` })).status).toBe(202);
  const waiting = await page.waitFor('the approval', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
  await page.waitFor('input-required', isStatus(chat, 'input-required'));
  const message = waiting.data.message as string;
  await server.kill();
  // What a kill right after the decision's step leaves: the decision on the call, the chat
  // still input-required (the resumed turn had not saved `working` yet), the operation running.
  const file = fs
    .readdirSync(path.join(dir, 'tiddlers'))
    .map((f) => path.join(dir, 'tiddlers', f))
    .find((f) => (f.endsWith('.tid') || f.endsWith('.meta')) && fs.readFileSync(f, 'utf8').split('\n').includes(`title: ${message}`))!;
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`title: ${message}\n`, `title: ${message}\napproval: once\n`));
  const op = { id: 'op-decided', chat, kind: 'decide', message, choice: 'once', created: Date.now() };
  fs.appendFileSync(
    path.join(dir, 'agent-state', 'operations.jsonl'),
    `${JSON.stringify({ ...op, status: 'queued' })}\n${JSON.stringify({ ...op, status: 'running' })}\n`,
  );
  server = await startServer(dir);
  const url = server.url;

  expect(operationStatuses(dir, 'op-decided')).toEqual(['running', 'failed']);
  expect(await chatStatus(url, chat)).toBe('interrupted');
  expect(savedMessages(dir, chat).at(-1)!.text).toMatch(/^Interrupted by server restart/);
  expect(await getTiddler(url, note.title)).toBeUndefined();
  // The chat is usable: a new message goes through (and closes the call that never ran).
  const back = await open([chat]);
  expect((await post(url, 'send', { chat, text: 'Try again later' })).status).toBe(202);
  await back.waitFor('completed', isStatus(chat, 'completed'));
  expect((await getTiddler(url, message))!['tool-status']).toBe('denied');
});

test('killed after a decision was accepted (logged, answered 202) but before it ran: after the restart the card waits again and the chat says the decision was not applied; deciding again runs the tool', async () => {
  const chat = 'Accepted chat';
  await server.kill();
  writeChat(dir, chat);
  server = await startServer(dir);
  const page = await open([chat]);
  const note = { title: 'Decided again after restart', text: 'y' };
  expect((await post(server.url, 'send', { chat, text: `mock:tool=wiki-create ${JSON.stringify(note)}` })).status).toBe(202);
  const waiting = await page.waitFor('the approval', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
  await page.waitFor('input-required', isStatus(chat, 'input-required'));
  const message = waiting.data.message as string;
  await server.kill();
  // What a kill right after the 202 of "allow" leaves: the decision in the log, queued; nothing of it in the wiki.
  const op = { id: 'op-accepted', chat, kind: 'decide', message, choice: 'once', created: Date.now() };
  fs.appendFileSync(path.join(dir, 'agent-state', 'operations.jsonl'), `${JSON.stringify({ ...op, status: 'queued' })}\n`);
  server = await startServer(dir);
  const url = server.url;

  expect(operationStatuses(dir, 'op-accepted')).toEqual(['queued', 'failed']);
  expect(await chatStatus(url, chat)).toBe('input-required');
  const messages = savedMessages(dir, chat);
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'error']);
  expect(messages[2]!['tool-status']).toBe('pending');
  expect(messages[3]!.text).toMatch(/^Interrupted by server restart: your decision was received but not applied .* decide again/);
  expect(await getTiddler(url, note.title)).toBeUndefined();
  // The card still works.
  const back = await open([chat]);
  expect((await post(url, 'decide', { chat, message, choice: 'once' })).status).toBe(202);
  await back.waitFor('completed', isStatus(chat, 'completed'));
  expect(await getTiddler(url, note.title)).toMatchObject(note);
  expect(savedMessages(dir, chat).at(-1)).toMatchObject({ role: 'assistant', text: expect.stringMatching(/The tool returned/) });
});

test("after a restart, recovery touches only the chat it concerns, and a page that shows chat Nest is resynced with Nest's tiddlers, none of Nest/Private's", async () => {
  // The first start recovered Nest/Private (left working): interrupted, with the message that says so; Nest is as it was.
  expect(await chatStatus(server.url, 'Nest/Private')).toBe('interrupted');
  expect(savedMessages(dir, 'Nest/Private').at(-1)!.text).toMatch(/^Interrupted by server restart/);
  expect(await chatStatus(server.url, 'Nest')).toBe('idle');
  expect(savedMessages(dir, 'Nest').map((m) => m.title)).toEqual(nest.filter((t) => t.startsWith('$:/ai/messages/')));
  const page = await open(['Nest']);
  const oldId = page.lastId!;
  page.close();
  await server.stop();
  server = await startServer(dir);
  const back = await open(['Nest'], { lastEventId: oldId });
  expect(back.events.map((e) => e.event).slice(0, 2)).toEqual(['hello', 'stale']);
  const sync = back.events.find((e) => e.event === 'chat-sync')!;
  expect([...sync.data.titles].sort()).toEqual([...nest].sort());
  const pushed = back.events.filter((e) => e.event === 'tiddler').map((e) => e.data);
  expect(pushed.filter((t) => nestPrivate.includes(t.title) || Object.values(t).includes('Nest/Private'))).toEqual([]);
});

test('killed at many moments of a turn whose tool writes a note, the folder is consistent after every restart: no chat working, every file whole, the user message once, the note written and journaled or neither, no reply twice', async () => {
  const chat = 'Crash chat';
  // Kill once the page has seen this many events of the turn (the kill lands a little later):
  // from right after the 202 to after the turn completed.
  const moments = [0, 1, 2, 3, 4, 5, 6, 8, 10, 13, 17, 24, 40, Infinity];
  const seen: string[] = [];
  for (const [i, moment] of moments.entries()) {
    const page = await open([chat]);
    const from = page.events.length;
    const note = { title: `Crash note ${i}`, text: `Note number ${i}` };
    const text = `mock:tool=wiki-create ${JSON.stringify(note)}`;
    const sent = await post(server.url, 'send', { chat, text });
    expect(sent.status).toBe(202);
    await page.waitFor(`event ${moment} of turn ${i}`, () => page.events.length - from >= moment || page.events.slice(from).some(isStatus(chat, 'completed')));
    const before = page.events.slice(from, from + moment);
    const saw = (type: string) => before.some((e) => e.event === 'agent' && e.data.type === type);
    seen.push(
      before.some(isStatus(chat, 'completed'))
        ? 'completed'
        : saw('text-delta')
          ? 'streaming'
          : saw('tool-finished')
            ? 'after the tool'
            : saw('status')
              ? 'before the tool'
              : 'the 202',
    );
    await server.kill();
    page.close();
    server = await startServer(dir);

    const status = (await chatStatus(server.url, chat))!;
    // Never working: interrupted, or completed when the kill came after the turn.
    expect(['interrupted', 'completed']).toContain(status);
    const { tiddlers, hidden } = tiddlerFiles(dir);
    expect(hidden).toEqual([]);
    expect(tiddlers.get(chat)!['agent-status']).toBe(status);
    const messages = savedMessages(dir, chat);
    const users = messages.filter((m) => m.role === 'user' && m.text === text);
    expect(users).toHaveLength(1);
    // The note and its journal entry: both or neither.
    const journal = users[0] && tiddlers.get(`$:/ai/journal/${chat}/${users[0].title!.split('/').at(-1)}`);
    const journaled = journal ? (JSON.parse(journal.text!) as Record<string, { after: unknown }>)[note.title]?.after : undefined;
    expect([i, !!tiddlers.get(note.title), !!journaled]).toEqual([i, !!journaled, !!journaled]);
    if (tiddlers.get(note.title)) expect(tiddlers.get(note.title)).toMatchObject(note);
    // No reply twice, and every operation finished.
    // (An assistant message that only carries tool calls has no text.)
    const replies = messages.filter((m) => m.role === 'assistant' && m.text).map((m) => m.text);
    expect(new Set(replies).size).toBe(replies.length);
    const open_ = new Map<string, string>();
    for (const op of operations(dir)) open_.set(op.id as string, op.status as string);
    expect([...open_.values()].filter((st) => st === 'queued' || st === 'running')).toEqual([]);
    // The turn completed with its reply last, or the error that says it was cut off is last.
    const lastMessage = messages.at(-1)!;
    if (lastMessage.role === 'error') expect(lastMessage.text).toMatch(/^Interrupted by server restart/);
    else expect([status, lastMessage.role, lastMessage.text]).toEqual(['completed', 'assistant', expect.stringMatching(/The tool returned/)]);
  }
  // The kill moments spread over the turn: before the tool ran, around it, and while the reply streamed.
  expect(new Set(seen)).toEqual(new Set(['the 202', 'before the tool', 'after the tool', 'streaming', 'completed']));
  // After all that, the chat still works.
  const page = await open([chat]);
  const last = await post(server.url, 'send', { chat, text: 'Still there?' });
  expect(last.status).toBe(202);
  await page.waitFor('completed', isStatus(chat, 'completed'));
  expect(savedMessages(dir, chat).at(-1)).toMatchObject({ role: 'assistant', text: defaultReply('Still there?') });
  // Fifteen server starts: more than the file's 30 s on a busy 2-core machine.
}, 90_000);
