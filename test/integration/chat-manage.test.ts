// Chat management in a real TiddlyWiki against the mock LLM: a rename moves everything keyed by
// the chat's title and waits for a running turn in the chat's queue (what was sent behind it runs
// under the new title); bad titles are refused; the automatic title after the first turn comes
// from the model in a side request, or from the first message when the model's answer is
// unusable or hostile; a chat in the bin takes no message and "delete forever" removes what it owns.
// The server edition's route (POST /agent/rename), a reader refused and the files on disk.
import fs from 'node:fs';
import path from 'node:path';
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import { post, serverWikiFolder, startServer, tiddlerFiles, until, WRITE_HEADERS, type MockLlm, type TwServer } from '../helpers/server';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

const AGENT = 'Manage test agent';
const PROVIDER = 'Manage test provider';

let $tw: TW;
let mock: MockLlm;
let count = 0;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  $tw = await bootWiki([
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
    { title: AGENT, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are the manage test agent.' },
    { title: 'Existing note', text: 'The user wrote this.' },
  ]);
});

afterAll(async () => {
  await mock?.close();
});

const lib = () => agentLib($tw);
const runner = () => lib().getLocalRunner();
const fields = (title: string): Record<string, string> | undefined => $tw.wiki.getTiddler(title)?.getFieldStrings();
const titles = (filter: string): string[] => $tw.wiki.filterTiddlers(filter);

function newChat(title = `Manage chat ${++count}`): string {
  $tw.wiki.addTiddler({ title, agent: AGENT, 'agent-status': 'idle', text: '' });
  return title;
}

/** A chat with one real turn plus, by hand, everything else a chat can own (as the runner writes them). */
async function furnishedChat(): Promise<{ chat: string; user: string; child: string }> {
  const chat = newChat();
  await runner().submit({ kind: 'send', chat, text: 'Hello, furnished chat' });
  const user = titles(`[field:agent-chat[${chat}]role[user]]`)[0]!;
  // Answered again: the first reply is parked as a version under $:/ai/branches/<chat>/.
  await runner().submit({ kind: 'retry', chat, message: user });
  const seq = user.slice(user.lastIndexOf('/') + 1);
  const image = `$:/ai/images/${chat}/1`;
  const child = `$:/ai/sub-agents/${chat}/1`;
  const add = (f: Record<string, string>) => $tw.wiki.addTiddler(f);
  add({
    title: `$:/ai/messages/${chat}/000009`,
    'agent-chat': chat,
    'agent-seq': '9',
    role: 'tool',
    text: 'result',
    attachments: `[[${image}]]`,
    'agent-child': child,
    'tool-name': 'spawn-agent',
  });
  add({ title: image, 'agent-image-chat': chat, type: 'image/png', text: 'iVBORw0KGgo=' });
  add({ title: `$:/ai/journal/${chat}/${seq}`, 'agent-chat-journal': chat, 'agent-turn': user, type: 'application/json', text: '{}' });
  add({ title: `$:/ai/todo/${chat}`, 'agent-chat-todo': chat, type: 'text/plain', text: '- [ ] one' });
  add({ title: `$:/ai/schedules/${chat}/abc`, tags: '$:/tags/AI/Schedule', 'agent-chat': chat, 'schedule-kind': 'interval', 'schedule-interval': '3600' });
  add({ title: `My schedule for ${chat}`, tags: '$:/tags/AI/Schedule', 'agent-chat': chat, 'schedule-kind': 'interval', 'schedule-interval': '3600' });
  add({ title: child, agent: AGENT, 'agent-parent': chat, 'agent-hidden': 'yes', 'agent-status': 'completed', text: '' });
  add({ title: `$:/ai/messages/${child}/000000`, 'agent-chat': child, 'agent-seq': '0', role: 'user', text: 'the sub-task' });
  return { chat, user, child };
}

test('rename moves the chat and everything keyed by its title, and leaves nothing behind', async () => {
  const { chat, user } = await furnishedChat();
  const to = `${chat} renamed`;
  const before = titles(`[field:agent-chat[${chat}]has[agent-seq]]`).length;
  await runner().submit({ kind: 'rename', chat, to });
  expect(fields(chat)).toBeUndefined();
  expect(fields(to)).toMatchObject({ agent: AGENT, 'agent-renamed-from': chat });
  // Nothing keyed by the old title is left, under any prefix or field.
  expect(titles(`[prefix[$:/ai/]search:title:literal[${chat}/]]`)).toEqual([]);
  for (const field of ['agent-chat', 'agent-chat-journal', 'agent-image-chat', 'agent-chat-todo', 'agent-parent', 'agent-branch-chat'])
    expect(titles(`[field:${field}[${chat}]]`)).toEqual([]);
  const moved = titles(`[field:agent-chat[${to}]has[agent-seq]]`);
  expect(moved).toHaveLength(before);
  expect(moved.every((t) => t.startsWith(`$:/ai/messages/${to}/`))).toBe(true);
  const newUser = `$:/ai/messages/${to}/${user.slice(user.lastIndexOf('/') + 1)}`;
  expect(fields(newUser)?.text).toBe('Hello, furnished chat');
  const tool = fields(`$:/ai/messages/${to}/000009`)!;
  expect(tool.attachments).toBe(`[[$:/ai/images/${to}/1]]`);
  expect(tool['agent-child']).toBe(`$:/ai/sub-agents/${to}/1`);
  expect(fields(`$:/ai/images/${to}/1`)?.['agent-image-chat']).toBe(to);
  expect(fields(`$:/ai/journal/${to}/${newUser.slice(newUser.lastIndexOf('/') + 1)}`)).toMatchObject({ 'agent-chat-journal': to, 'agent-turn': newUser });
  expect(fields(`$:/ai/todo/${to}`)).toMatchObject({ 'agent-chat-todo': to, text: '- [ ] one' });
  expect(fields(`$:/ai/schedules/${to}/abc`)?.['agent-chat']).toBe(to);
  // The user's own schedule keeps its title and now names the new chat.
  expect(fields(`My schedule for ${chat}`)?.['agent-chat']).toBe(to);
  expect(fields(`$:/ai/sub-agents/${to}/1`)?.['agent-parent']).toBe(to);
  const parked = titles(`[field:agent-branch-chat[${to}]]`);
  expect(parked.length).toBeGreaterThan(0);
  expect(parked.every((t) => t.startsWith(`$:/ai/branches/${to}/`))).toBe(true);
  expect(fields(`$:/ai/messages/$:/ai/sub-agents/${to}/1/000000`)?.['agent-chat']).toBe(`$:/ai/sub-agents/${to}/1`);
  // The renamed chat works: a turn sees its history.
  const requests = mock.requests.length;
  await runner().submit({ kind: 'send', chat: to, text: 'and after the rename' });
  const sent = mock.requests
    .slice(requests)
    .at(-1)!
    .body.messages.map((m: { content: unknown }) => m.content);
  expect(sent).toContain('Hello, furnished chat');
});

test('a rename waits for the running turn; a message sent behind it runs under the new title', async () => {
  const chat = newChat();
  let release!: () => void;
  mock.queue({ text: 'the held reply', hold: new Promise<void>((r) => (release = r)) });
  const first = runner().submit({ kind: 'send', chat, text: 'held turn' });
  await until('the held request', () =>
    mock.requests.some((r: { body: { messages: { content: unknown }[] } }) => r.body.messages.at(-1)?.content === 'held turn'),
  );
  const to = `${chat} while busy`;
  const renamed = runner().submit({ kind: 'rename', chat, to });
  const second = runner().submit({ kind: 'send', chat, text: 'queued behind the rename' });
  // Still the old chat while its turn runs.
  await new Promise((resolve) => setImmediate(resolve));
  expect(fields(chat)).toBeDefined();
  expect(fields(to)).toBeUndefined();
  release();
  expect((await first).status).toBe('completed');
  await renamed;
  expect((await second).status).toBe('completed');
  expect(fields(chat)).toBeUndefined();
  const texts = runner()
    .store.listMessages(to)
    .map((m) => `${m.role}: ${m.text}`);
  expect(texts[0]).toBe('user: held turn');
  expect(texts[1]).toBe('assistant: the held reply');
  expect(texts[2]).toBe('user: queued behind the rename');
  expect(texts).toHaveLength(4);
});

test('a blank, system, unsafe or existing title is refused, and nothing moves', async () => {
  const chat = newChat();
  const cases: [string, RegExp][] = [
    ['', /blank/],
    ['   ', /blank/],
    ['$:/core/ui/PageTemplate', /system title/],
    ['$:/ai/messages/x', /system title/],
    ['Evil [[link]]', /characters a title cannot/],
    ['Two\nlines', /characters a title cannot/],
    ['a | b', /characters a title cannot/],
    ['Existing note', /already exists/],
    [AGENT, /already exists/],
  ];
  for (const [to, why] of cases) {
    await expect(runner().submit({ kind: 'rename', chat, to })).rejects.toThrow(why);
  }
  expect(fields(chat)).toBeDefined();
  expect(fields('Existing note')?.text).toBe('The user wrote this.');
  expect(fields(AGENT)?.tags).toBe('$:/tags/AI/Agent');
  await expect(runner().submit({ kind: 'rename', chat: 'No such chat', to: 'Anything' })).rejects.toThrow(/does not exist/);
});

describe('automatic title after the first turn', () => {
  /** A chat with the New chat button's default title. */
  function defaultChat(): string {
    let title = 'Chat';
    for (let n = 1; $tw.wiki.tiddlerExists(title); n++) title = `Chat ${n}`;
    return newChat(title);
  }
  const titleRequests = () =>
    mock.requests.filter((r: { body: { messages: { role: string; content: unknown }[] } }) =>
      String(r.body.messages[0]?.content).startsWith('Name this chat:'),
    );

  test("the model's title, asked in a side request that is no turn and shows nowhere in the chat", async () => {
    const chat = defaultChat();
    const asked = titleRequests().length;
    mock.queueTitles({ text: 'Garden plans for spring' });
    await runner().submit({ kind: 'send', chat, text: 'Help me plan my garden for spring' });
    expect(fields(chat)).toBeUndefined();
    expect(fields('Garden plans for spring')).toMatchObject({ agent: AGENT, 'agent-renamed-from': chat });
    const request = titleRequests().slice(asked);
    expect(request).toHaveLength(1);
    expect(request[0].body.tools).toBeUndefined();
    expect(request[0].body.messages[1].content).toContain('Help me plan my garden for spring');
    // Only the turn's two messages: the side request wrote nothing.
    expect(titles('[field:agent-chat[Garden plans for spring]has[agent-seq]]')).toHaveLength(2);
    // A second turn asks nothing more.
    await runner().submit({ kind: 'send', chat: 'Garden plans for spring', text: 'And in summer?' });
    expect(titleRequests().length).toBe(asked + 1);
    expect(fields('Garden plans for spring')).toBeDefined();
  });

  test.each([
    ['an HTTP error', { status: 500 }],
    ['an empty answer', { text: '   ' }],
    ['an answer too long for a title', { text: 'This is not a title at all but a whole sentence about things' }],
  ])('after %s the title comes from the first message', async (_what, script) => {
    const chat = defaultChat();
    const before = titles('[has[agent]]');
    mock.queueTitles(script);
    await runner().submit({ kind: 'send', chat, text: "What's in [[Existing note]]?\nPlease read {{Existing note}} carefully and summarise it for me today" });
    expect(fields(chat)).toBeUndefined();
    const renamed = titles('[has[agent]]').filter((t) => !before.includes(t));
    expect(renamed).toHaveLength(1);
    expect(renamed[0]).toMatch(/^What's in Existing note\? Please read/);
    expect(renamed[0]!.length).toBeLessThanOrEqual(48);
    expect(renamed[0]).not.toMatch(/[[\]{}|\n]/);
  });

  test.each([
    ['a system title', '$:/core/ui/PageTemplate', 'core/ui/PageTemplate'],
    ['wikitext and a second line', '[[Evil]] {{$:/core}} | <<x>>\nsecond line', 'Evil'],
    ['an existing tiddler', 'Existing note', 'Existing note 2'],
  ])('a hostile model title (%s) never becomes a system title, markup or another tiddler', async (_what, text, expected) => {
    const chat = defaultChat();
    mock.queueTitles({ text });
    await runner().submit({ kind: 'send', chat, text: 'Hello hostile title' });
    expect(fields(chat)).toBeUndefined();
    expect(fields(expected)).toMatchObject({ agent: AGENT, 'agent-renamed-from': chat });
    expect(fields('Existing note')?.text).toBe('The user wrote this.');
    expect($tw.wiki.tiddlerExists('$:/core/ui/PageTemplate')).toBe(false);
  });

  test("under zh-Hans the request is Chinese, a Chinese first turn gets a Chinese noun phrase, and the fallback is the message's first characters", async () => {
    $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
    try {
      const chat = newChat('对话');
      const asked = mock.requests.length;
      await runner().submit({ kind: 'send', chat, text: '你好，请帮我整理花园笔记。' });
      const request = mock.requests
        .slice(asked)
        .find((r: { body: { messages: { content: unknown }[] } }) => String(r.body.messages[0]?.content).startsWith('为这段对话命名：'));
      expect(request).toBeDefined();
      expect(String(request.body.messages[0].content)).toContain('不超过 12 个字');
      // The mock's title: the message's subject, no "Chat about".
      expect(fields('整理花园笔记')).toMatchObject({ agent: AGENT, 'agent-renamed-from': chat });
      // The model's answer unusable: the first sentence of the message, without its greeting, in characters.
      const second = newChat('对话');
      mock.queueTitles({ text: '这是一段关于如何在春天规划花园并安排浇水时间以及购买工具的对话' });
      await runner().submit({ kind: 'send', chat: second, text: '你好！请把我所有关于花园和阳台种植的笔记都按照季节重新分类整理成清单' });
      expect(fields('请把我所有关于花园和阳台种植的笔…')).toMatchObject({ agent: AGENT, 'agent-renamed-from': second });
      expect(titles('[has[agent]prefix[Chat about]]')).toEqual([]);
    } finally {
      $tw.wiki.deleteTiddler('$:/language');
    }
  });

  test('no automatic title for a chat the user named, or with the setting off', async () => {
    const named = newChat('My own chat name');
    await runner().submit({ kind: 'send', chat: named, text: 'hello there' });
    expect(fields('My own chat name')).toBeDefined();
    $tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/auto-title', text: 'no' });
    const chat = defaultChat();
    await runner().submit({ kind: 'send', chat, text: 'hello there' });
    expect(fields(chat)).toBeDefined();
    $tw.wiki.deleteTiddler('$:/config/tiddlyagent/auto-title');
  });
});

test("a chat in the bin takes no message; delete forever removes the chat and all it owns, not the user's schedule", async () => {
  const { chat } = await furnishedChat();
  await expect(runner().submit({ kind: 'delete-chat', chat })).rejects.toThrow(/not in the bin/);
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler(chat), { 'agent-deleted': '20260101000000000' }));
  await expect(runner().submit({ kind: 'send', chat, text: 'hello?' })).rejects.toThrow(/in the bin/);
  expect(runner().isFree(chat)).toBe(false);
  await runner().submit({ kind: 'delete-chat', chat });
  expect(fields(chat)).toBeUndefined();
  expect(titles(`[prefix[$:/ai/]search:title:literal[${chat}/]]`)).toEqual([]);
  expect(titles(`[prefix[$:/ai/todo/${chat}]]`)).toEqual([]);
  expect(fields(`My schedule for ${chat}`)).toBeDefined();
});

describe('server edition', () => {
  let server: TwServer;
  let dir: string;
  const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

  beforeAll(async () => {
    dir = serverWikiFolder(mock.url);
    fs.writeFileSync(path.join(dir, 'users.csv'), 'username,password\nalice,wonderland\nbob,builder\n');
    server = await startServer(dir, ['credentials=users.csv', 'readers=alice,bob', 'writers=alice']);
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('POST /agent/rename moves the chat on disk; a reader is refused and nothing moves', async () => {
    const alice = { ...WRITE_HEADERS, ...basic('alice', 'wonderland') };
    const sent = await post(server.url, 'send', { chat: 'Demo chat', text: 'hello before the rename' }, alice);
    expect(sent.status).toBe(202);
    await until('the reply on disk', () => [...tiddlerFiles(dir).tiddlers.values()].some((t) => t['agent-chat'] === 'Demo chat' && t.role === 'assistant'));
    const refused = await post(server.url, 'rename', { chat: 'Demo chat', to: 'Taken by a reader' }, { ...WRITE_HEADERS, ...basic('bob', 'builder') });
    expect(refused.status).toBe(401);
    const system = await post(server.url, 'rename', { chat: 'Demo chat', to: '$:/evil' }, alice);
    expect(system.status).toBe(400);
    expect(tiddlerFiles(dir).tiddlers.has('Demo chat')).toBe(true);
    const renamed = await post(server.url, 'rename', { chat: 'Demo chat', to: 'Demo chat renamed' }, alice);
    expect(renamed.status).toBe(202);
    await until('the renamed chat on disk', () => tiddlerFiles(dir).tiddlers.has('Demo chat renamed') && !tiddlerFiles(dir).tiddlers.has('Demo chat'));
    const onDisk = [...tiddlerFiles(dir).tiddlers.values()];
    expect(onDisk.filter((t) => t['agent-chat'] === 'Demo chat')).toEqual([]);
    expect(onDisk.filter((t) => t['agent-chat'] === 'Demo chat renamed' && t['agent-seq'] !== undefined).length).toBeGreaterThanOrEqual(2);
    expect(tiddlerFiles(dir).tiddlers.has('Taken by a reader')).toBe(false);
  });
});
