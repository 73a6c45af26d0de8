// A normal chat turn in a real TiddlyWiki against the mock LLM: message tiddlers, one write per reply, prompt and history on the wire, no Recent/search noise.
import { agentLib, bootWiki, recordChanges, type TW } from '../helpers/tw';

const { startMockLlm, defaultReply } = require('../../scripts/mock-llm.cjs');

const AGENT = 'Turn test agent';
const PROVIDER = 'Turn test provider';
const PERSONA = 'Turn test persona';
const CHAT_MODIFIED = '20250101000000000';
const KEY_VAR = 'TIDDLYAGENT_TURN_TEST_KEY';

let $tw: TW;
let mock: any;
let chatCount = 0;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  $tw = await bootWiki([
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
    { title: PERSONA, text: 'Your favourite fruit is the pomegranate.' },
    { title: AGENT, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are the turn test agent. {{Turn test persona}}' },
    { title: 'Keyed provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model', 'api-key-name': KEY_VAR },
    { title: 'Keyed agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Keyed provider' },
  ]);
});

afterAll(async () => {
  delete process.env[KEY_VAR];
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();

function newChat(agent = AGENT): string {
  const title = `Turn chat ${++chatCount}`;
  $tw.wiki.addTiddler({ title, agent, 'agent-status': 'idle', created: CHAT_MODIFIED, modified: CHAT_MODIFIED, text: '' });
  return title;
}

/** The chat's message tiddlers, in agent-seq order, as plain field objects. */
function messages(chat: string): Record<string, string>[] {
  return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[])
    .map((title) => $tw.wiki.getTiddler(title).getFieldStrings() as Record<string, string>)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}

/** The requests the mock received whose last user message is exactly `text`. */
function requestsFor(text: string) {
  return mock.requests.filter((r: any) => {
    const users = (r.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user');
    return users.length > 0 && users[users.length - 1].content === text;
  });
}

/** Let TiddlyWiki dispatch its batched change events (they fire on the next tick). */
const flushChanges = () => new Promise((resolve) => setImmediate(resolve));

test('a send writes the user message and the reply as two message tiddlers with the DESIGN 4 fields', async () => {
  const chat = newChat();
  const text = 'Hello there, how are you?';
  const result = await runner().submit({ kind: 'send', chat, text });

  expect(result.status).toBe('completed');
  expect($tw.wiki.getTiddler(chat).fields['agent-status']).toBe('completed');
  const [user, reply, ...rest] = messages(chat);
  expect(rest).toEqual([]);
  expect(user).toMatchObject({ 'agent-chat': chat, 'agent-seq': '0', role: 'user', text });
  expect(user!.created).toMatch(/^\d{17}$/);
  expect(reply).toMatchObject({
    'agent-chat': chat,
    'agent-seq': '1',
    role: 'assistant',
    type: 'text/vnd.tiddlyagent.reply',
    model: 'mock-model',
    'agent-finish': 'stop',
    text: defaultReply(text),
  });
  expect(reply!.created).toMatch(/^\d{17}$/);
  expect(Number(reply!.created)).toBeGreaterThanOrEqual(Number(user!.created));

  // The usage the mock reported (its own estimate of the request and reply) is stored as sent.
  const [request] = requestsFor(text);
  const estimate = (s: string) => Math.max(1, Math.ceil(s.length / 4));
  expect(reply!['tokens-in']).toBe(String(estimate(JSON.stringify(request.body.messages))));
  expect(reply!['tokens-out']).toBe(String(estimate(defaultReply(text))));
});

test('the reply tiddler is written exactly once, however long the streamed reply', async () => {
  const chat = newChat();
  const changes = recordChanges($tw);
  const writes = new Map<string, number>();
  const originalAddTiddler = $tw.wiki.addTiddler;
  $tw.wiki.addTiddler = function (this: unknown, tiddler: { fields?: { title?: string }; title?: string }, ...args: unknown[]) {
    const title = tiddler?.fields?.title ?? tiddler?.title;
    if (title) writes.set(title, (writes.get(title) ?? 0) + 1);
    return originalAddTiddler.call(this, tiddler, ...args);
  };
  try {
    expect((await runner().submit({ kind: 'send', chat, text: 'Please write me a reply of several words.' })).status).toBe('completed');
    await flushChanges();
  } finally {
    $tw.wiki.addTiddler = originalAddTiddler;
    changes.stop();
  }
  const [user, reply] = messages(chat);
  const replyTitle = reply!.title!;
  expect(reply!.role).toBe('assistant');
  // The mock streams the reply one word per chunk: about 30 deltas, still one write.
  expect(defaultReply('x').split(' ').length).toBeGreaterThan(10);
  expect(writes.get(replyTitle)).toBe(1);
  expect(changes.counts.get(replyTitle)).toBe(1);
  // The user's message is also written once; only the chat's status changes more than once.
  expect(writes.get(user!.title!)).toBe(1);
});

test('the request carries the rendered system prompt, and a second send carries the history', async () => {
  const chat = newChat();
  const first = 'What is your favourite fruit?';
  const second = 'And why is that?';
  await runner().submit({ kind: 'send', chat, text: first });
  const result = await runner().submit({ kind: 'send', chat, text: second });
  expect(result.status).toBe('completed');

  const [firstRequest] = requestsFor(first);
  const system = firstRequest.body.messages[0];
  expect(system.role).toBe('system');
  expect(system.content).toContain('You are the turn test agent.');
  expect(system.content).toContain('Your favourite fruit is the pomegranate.');
  expect(system.content).not.toContain('{{');
  expect(firstRequest.body.model).toBe('mock-model');
  expect(firstRequest.body.stream).toBe(true);

  const [secondRequest] = requestsFor(second);
  expect(secondRequest.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
    ['system', system.content],
    ['user', first],
    ['assistant', defaultReply(first)],
    ['user', second],
  ]);
  expect(messages(chat).map((m) => [m['agent-seq'], m.role])).toEqual([
    ['0', 'user'],
    ['1', 'assistant'],
    ['2', 'user'],
    ['3', 'assistant'],
  ]);
});

test('messages are system tiddlers: absent from search and Recent, while the chat keeps its modified date', async () => {
  const chat = newChat();
  const word = 'zanzibarquux';
  await runner().submit({ kind: 'send', chat, text: `Tell me about ${word}` });
  const titles = messages(chat).map((m) => m.title);
  expect(titles).toHaveLength(2);

  // Both messages contain the word (the reply quotes it), so a search that included them would find them.
  expect($tw.wiki.filterTiddlers(`[all[tiddlers]search[${word}]]`)).toEqual(expect.arrayContaining(titles));
  for (const title of titles) expect($tw.wiki.isSystemTiddler(title)).toBe(true);
  expect($tw.wiki.filterTiddlers(`[!is[system]search[${word}]]`)).toEqual([]);

  const recent: string[] = $tw.wiki.filterTiddlers('[!is[system]has[modified]!sort[modified]limit[100]]');
  for (const title of titles) expect(recent).not.toContain(title);
  expect(recent).toContain(chat);
  expect($tw.wiki.getTiddler(chat).getFieldString('modified')).toBe(CHAT_MODIFIED);
});

test("under Node the key named by the provider's api-key-name comes from the environment and is sent as a Bearer token", async () => {
  process.env[KEY_VAR] = 'sk-test-from-env';
  // The owner lists the key for the mock's origin (runner/host/owner-policy.ts).
  process.env.TIDDLYAGENT_CONFIG = JSON.stringify({ keys: { [KEY_VAR]: { origins: [new URL(mock.url).origin] } }, allowHosts: ['127.0.0.1'] });
  const chat = newChat('Keyed agent');
  const text = 'Does my key arrive?';
  expect((await runner().submit({ kind: 'send', chat, text })).status).toBe('completed');
  const [request] = requestsFor(text);
  expect(request.headers.authorization).toBe('Bearer sk-test-from-env');
  // The key never lands in a tiddler.
  expect($tw.wiki.filterTiddlers('[all[tiddlers]search[sk-test-from-env]]')).toEqual([]);
  // Without an api-key-name, no Authorization header is sent at all.
  await runner().submit({ kind: 'send', chat: newChat(), text: 'No key here' });
  expect(requestsFor('No key here')[0].headers.authorization).toBeUndefined();
});
