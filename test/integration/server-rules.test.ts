// Shortcuts that say what they do, over the server edition's HTTP routes (issue 24.3): decide
// "always" carries a scope the server checks against the call (400 and nothing written when it
// is missing or does not cover the call), the scoped rule lands in the agent on the server and
// on disk, the next write it allows records it and runs without asking, revoke-rule removes it
// (the next such write asks again), and delete-turn refuses (409) a turn whose changes stand
// unless the body says keepChanges: true. Who may call these is walked in
// server-routes-access.test.ts and server-auth.test.ts.
import fs from 'node:fs';
import {
  getTiddler,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  watch,
  writeChat,
  type MockLlm,
  type SseClient,
  type SseEvent,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(30_000);

const CHAT = 'Rules chat';
const AGENT = '$:/demo/agents/offline-demo';
let mock: MockLlm;
let server: TwServer;
let url: string;
let dir: string;
let page: SseClient;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  writeChat(dir, CHAT);
  server = await startServer(dir);
  url = server.url;
  page = await watch(url, [CHAT]);
});

afterAll(async () => {
  page?.close();
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const isStatus = (status: string) => (e: SseEvent) => e.event === 'agent' && e.data.chat === CHAT && e.data.type === 'status' && e.data.status === status;

/** Send a wiki-create of `title` and wait until the turn waits for approval or completes; returns which. */
async function create(title: string): Promise<{ waiting?: string; status: string }> {
  const mark = page.events.length;
  expect((await post(url, 'send', { chat: CHAT, text: `mock:tool=wiki-create ${JSON.stringify({ title, text: `Text of ${title}` })}` })).status).toBe(202);
  const end = await page.waitFor(`the turn creating ${title}`, (e) => isStatus('input-required')(e) || isStatus('completed')(e), { from: mark });
  const waiting = page.events.slice(mark).find((e) => e.event === 'agent' && e.data.chat === CHAT && e.data.type === 'waiting');
  return { waiting: waiting?.data.message as string | undefined, status: end.data.status as string };
}

const approval = async () => JSON.parse((await getTiddler(url, AGENT))!['agent-approval']!);
const callOf = (title: string) =>
  savedMessages(dir, CHAT)
    .filter((m) => m['tool-name'] === 'wiki-create' && JSON.parse(m['tool-args'] ?? '{}').title === title)
    .at(-1)!;
const userOf = (title: string) => savedMessages(dir, CHAT).find((m) => m.role === 'user' && m.text!.includes(JSON.stringify(title)))!.title!;

test('decide "always" with a scope over HTTP: a missing or wrong scope is refused and changes nothing; the prefix rule lands; the next write it allows records it; revoke-rule removes it', async () => {
  const before = await approval();
  const first = await create('Notes/one');
  expect(first.status).toBe('input-required');
  const message = first.waiting!;

  for (const [body, status, error] of [
    [{ choice: 'always' }, 400, /needs a scope/],
    [{ choice: 'always', scope: 'tiddler' }, 400, /The scope must be/],
    [{ choice: 'always', scope: { kind: 'prefix', prefix: 'Other/' } }, 400, /must start with the prefix/],
    [{ choice: 'once', scope: { kind: 'tool' } }, 400, /only with the choice "always"/],
  ] as const) {
    const answer = await post(url, 'decide', { chat: CHAT, message, ...body });
    expect({ body, status: answer.status }).toEqual({ body, status });
    expect(answer.body.error).toMatch(error);
  }
  expect(await approval()).toEqual(before);

  const mark = page.events.length;
  expect((await post(url, 'decide', { chat: CHAT, message, choice: 'always', scope: { kind: 'prefix', prefix: 'Notes/' } })).status).toBe(202);
  await page.waitFor('completed', isStatus('completed'), { from: mark });
  expect((await approval())['wiki-create']).toEqual({ mode: 'confirm', allow: ['^Notes/'] });
  expect(fs.readFileSync(`${dir}/tiddlers/$__demo_agents_offline-demo.tid`, 'utf8')).toContain('"allow":["^Notes/"]');

  expect(await create('Notes/two')).toEqual({ status: 'completed', waiting: undefined });
  const allowed = callOf('Notes/two');
  expect(allowed['tool-status']).toBe('ok');
  expect(JSON.parse(allowed['approval-rule']!)).toEqual({ kind: 'allow', tool: 'wiki-create', patterns: ['^Notes/'], on: 'titles', agent: AGENT });
  expect((await create('Elsewhere')).status).toBe('input-required');
  const stop = page.events.length;
  expect((await post(url, 'stop', { chat: CHAT })).status).toBe(200);
  await page.waitFor('canceled', isStatus('canceled'), { from: stop });

  expect(await post(url, 'revoke-rule', { chat: CHAT, message: allowed.title })).toEqual({ status: 200, body: { revoked: true } });
  expect((await approval())['wiki-create']).toEqual({ mode: 'confirm' });
  expect(await post(url, 'revoke-rule', { chat: CHAT, message: allowed.title })).toEqual({ status: 200, body: { revoked: false } });
  expect((await post(url, 'revoke-rule', { chat: CHAT, message: callOf('Notes/one').title })).status).toBe(409); // allowed on its card, by no rule
  expect((await post(url, 'revoke-rule', { chat: CHAT, message: 'No such message' })).status).toBe(404);
  expect((await create('Notes/three')).status).toBe('input-required');
  const again = page.events.length;
  expect((await post(url, 'stop', { chat: CHAT })).status).toBe(200);
  await page.waitFor('canceled', isStatus('canceled'), { from: again });
});

test('delete-turn over HTTP: a turn whose changes stand is refused without keepChanges: true (409, nothing deleted); with it the turn goes and the note stays', async () => {
  const user = userOf('Notes/two');
  const journal = `$:/ai/journal/${CHAT}/${user.slice(-6)}`;
  expect(await getTiddler(url, journal)).toBeDefined();

  const refused = await post(url, 'delete-turn', { chat: CHAT, message: user });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatch(/changed 1 tiddler \(Notes\/two\): roll it back first/);
  expect((await post(url, 'delete-turn', { chat: CHAT, message: user, keepChanges: 'yes' })).status).toBe(400);
  expect(savedMessages(dir, CHAT).some((m) => m.title === user)).toBe(true);
  expect(await getTiddler(url, journal)).toBeDefined();

  expect(await post(url, 'delete-turn', { chat: CHAT, message: user, keepChanges: true })).toEqual({ status: 200, body: {} });
  expect(savedMessages(dir, CHAT).some((m) => m.title === user)).toBe(false);
  expect(await getTiddler(url, journal)).toBeUndefined();
  expect((await getTiddler(url, 'Notes/two'))!.text).toBe('Text of Notes/two');

  // A turn that changed nothing (its call was stopped) deletes at once.
  expect((await post(url, 'delete-turn', { chat: CHAT, message: userOf('Notes/three') })).status).toBe(200);
});
