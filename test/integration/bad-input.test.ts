// Every way a turn can go wrong (HTTP errors, broken streams, Stop, bad config, queueing, reloads) ends in a defined status with a clear message in the chat.
import net from 'node:net';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const { startMockLlm, defaultReply } = require('../../scripts/mock-llm.cjs');

const PROVIDER = 'Bad input: provider';
const AGENT = 'Bad input: agent';
const MISSING_KEY = 'TIDDLYAGENT_TEST_KEY_THAT_IS_NOT_SET';
const SLOW = 20_000; // retryable failures (429, 5xx, network) back off and retry before they fail

let $tw: TW;
let mock: any;
let closedPort = 0;
let chatCount = 0;

const provider = (title: string, fields: Record<string, string>) => ({
  title,
  tags: '$:/tags/AI/Provider',
  api: 'openai-chat',
  'default-model': 'mock-model',
  ...fields,
});
const agent = (title: string, fields: Record<string, string>) => ({ title, tags: '$:/tags/AI/Agent', text: 'You are a test agent.', ...fields });

beforeAll(async () => {
  delete process.env[MISSING_KEY];
  mock = await startMockLlm({ delayMs: 1 });
  // The owner lets this process use the key (so its missing variable is the problem), and reach loopback.
  process.env.TIDDLYAGENT_CONFIG = JSON.stringify({ keys: { [MISSING_KEY]: { origins: [new URL(mock.url).origin] } }, allowHosts: ['127.0.0.1'] });
  closedPort = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  $tw = await bootWiki([
    provider(PROVIDER, { 'base-url': mock.url }),
    provider('Closed port provider', { 'base-url': `http://127.0.0.1:${closedPort}/v1` }),
    provider('Impatient provider', { 'base-url': mock.url, timeout: '1' }),
    provider('Nonsense api provider', { 'base-url': mock.url, api: 'nonsense' }),
    provider('Bad url provider', { 'base-url': 'not a url' }),
    provider('Keyed provider', { 'base-url': mock.url, 'api-key-name': MISSING_KEY }),
    agent(AGENT, { 'agent-provider': PROVIDER }),
    agent('Unknown model agent', { 'agent-provider': PROVIDER, 'agent-model': 'no-such-model-xyz' }),
    agent('Closed port agent', { 'agent-provider': 'Closed port provider' }),
    agent('Impatient agent', { 'agent-provider': 'Impatient provider' }),
    agent('Bad rounds agent', { 'agent-provider': PROVIDER, 'agent-max-rounds': 'abc' }),
    agent('No provider agent', {}),
    agent('Nonsense api agent', { 'agent-provider': 'Nonsense api provider' }),
    agent('Bad url agent', { 'agent-provider': 'Bad url provider' }),
    agent('Keyed agent', { 'agent-provider': 'Keyed provider' }),
  ]);
});

afterAll(async () => {
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();
const status = (chat: string) => $tw.wiki.getTiddler(chat).fields['agent-status'];

function newChat(agentTitle = AGENT, agentStatus = 'idle'): string {
  const title = `Bad input chat ${++chatCount}`;
  $tw.wiki.addTiddler({ title, agent: agentTitle, 'agent-status': agentStatus });
  return title;
}

function messages(chat: string): Record<string, string>[] {
  return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[])
    .map((title) => $tw.wiki.getTiddler(title).getFieldStrings() as Record<string, string>)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}

/** Poll until `check` returns a value (no fixed sleeps); fails after `ms`. */
async function waitFor<T>(what: string, check: () => T | undefined | false, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Send, then check the turn failed with the user's message kept and one clear error message last. */
async function expectFailure(chat: string, text: string, words: RegExp[], partial: boolean) {
  const result = await runner().submit({ kind: 'send', chat, text });
  expect(result.status).toBe('failed');
  expect(status(chat)).toBe('failed');
  const list = messages(chat);
  expect(list.map((m) => m.role)).toEqual(partial ? ['user', 'assistant', 'error'] : ['user', 'error']);
  expect(list[0]!.text).toBe(text);
  const error = list[list.length - 1]!;
  for (const word of words) expect(error.text).toMatch(word);
  expect(result.error).toBe(error.text);
  if (partial) {
    // The words that arrived are kept, marked as not a complete reply.
    expect(list[1]).toMatchObject({ 'agent-finish': 'error', model: 'mock-model' });
    expect(list[1]!.text).toMatch(/^''Mock reply''/);
    expect(error.text).toMatch(/incomplete/i);
  }
}

describe('provider failures end the turn as failed with a clear message', () => {
  // Key words are thunks: the closed port is only known once the tests run.
  // [name, agent, text, key words, partial reply kept, retries allowed (DESIGN 5: 429, 5xx, network only)]
  const cases: [string, string, string, () => RegExp[], boolean, boolean][] = [
    ['HTTP 401', AGENT, 'mock:401 please', () => [/401/, /API key/], false, false],
    ['HTTP 404 for an unknown model', 'Unknown model agent', 'hello unknown model', () => [/404/, /"no-such-model-xyz"/, /unknown/], false, false],
    ['HTTP 429', AGENT, 'mock:429 please', () => [/429/, /rate/i], false, true],
    ['HTTP 500', AGENT, 'mock:500 please', () => [/500/, /server error/i], false, true],
    [
      'connection refused',
      'Closed port agent',
      'anyone there?',
      () => [/Could not connect/, new RegExp(`127\\.0\\.0\\.1:${closedPort}\\b`), /refused/],
      false,
      true,
    ],
    ['a stream cut mid-reply', AGENT, 'mock:cut please', () => [/broke|ended/], true, false],
    ['a stream that never ends (timeout: 1)', 'Impatient agent', 'mock:stall please', () => [/No data arrived/, /1 s/], true, false],
    ['a JSON body instead of a stream', AGENT, 'mock:json please', () => [/Expected a stream of server-sent events/, /JSON/], false, false],
    ['a JSON error body instead of a stream', AGENT, 'mock:json-error please', () => [/This endpoint returns JSON, not a stream/], false, false],
    ['an error inside a 200 stream', AGENT, 'mock:error-in-stream please', () => [/Mock in-stream error/], true, false],
  ];
  test.each(cases)(
    '%s',
    async (_name, agentTitle, text, words, partial, retries) => {
      await expectFailure(newChat(agentTitle), text, words(), partial);
      // Never retried once words were shown, nor for errors a retry cannot fix.
      const sent = mock.requests.filter((r: any) => r.body?.messages?.at(-1)?.content === text).length;
      if (!retries) expect(sent).toBe(1);
    },
    SLOW,
  );
});

test('Stop during a slow reply ends canceled, keeps the partial reply, and aborts the request', async () => {
  const chat = newChat();
  const text = 'mock:slow stop me';
  const firstWord = new Promise<void>((resolve) => {
    const off = runner().bus.subscribe(chat, (e) => {
      if (e.type === 'text-delta') {
        off();
        resolve();
      }
    });
  });
  const done = runner().submit({ kind: 'send', chat, text });
  const request = await waitFor('the mock to receive the request', () => mock.requests.find((r: any) => r.body?.messages?.at(-1)?.content === text));
  await firstWord;
  runner().submit({ kind: 'stop', chat });
  const result = await done;

  expect(result.status).toBe('canceled');
  expect(status(chat)).toBe('canceled');
  const list = messages(chat);
  expect(list.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(list[1]!['agent-finish']).toBe('canceled');
  expect(list[1]!.text).toMatch(/^''Mock/); // the words that arrived before Stop
  expect(list[1]!.text).not.toContain('word200'); // stopped long before the end
  await waitFor('the mock to see the client go away', () => request.aborted);
  expect(request.completed).toBe(false);
});

describe('bad configuration is reported by tiddler and field, before any request', () => {
  const cases: [string, string, RegExp[]][] = [
    ['agent-max-rounds: abc', 'Bad rounds agent', [/Bad rounds agent/, /agent-max-rounds/, /abc/]],
    ['a missing agent-provider', 'No provider agent', [/No provider agent/, /agent-provider/, /missing/]],
    ['api: nonsense', 'Nonsense api agent', [/Nonsense api provider/, /"api"/, /nonsense/]],
    ['base-url: not a url', 'Bad url agent', [/Bad url provider/, /base-url/, /not a url/]],
    ['a missing agent tiddler', 'Agent that does not exist', [/Agent that does not exist/, /does not exist/]],
    ['an api-key-name whose env var is not set', 'Keyed agent', [new RegExp(MISSING_KEY), /environment variable/, /API key/]],
  ];
  test.each(cases)('%s', async (_name, agentTitle, words) => {
    const before = mock.requests.length;
    await expectFailure(newChat(agentTitle), `hello from ${agentTitle}`, words, false);
    expect(mock.requests.length).toBe(before);
  });
});

test('a second send during a turn is queued and runs after the first, in order', async () => {
  const chat = newChat();
  const first = runner().submit({ kind: 'send', chat, text: 'first message' });
  const second = runner().submit({ kind: 'send', chat, text: 'second message' });
  expect(runner().isActive(chat)).toBe(true);
  expect(runner().queued(chat)).toEqual(['second message']);
  expect(messages(chat).map((m) => m.text)).not.toContain('second message');

  expect((await first).status).toBe('completed');
  expect((await second).status).toBe('completed');
  expect(runner().queued(chat)).toEqual([]);
  expect(status(chat)).toBe('completed');
  expect(messages(chat).map((m) => [m['agent-seq'], m.role, m.text])).toEqual([
    ['0', 'user', 'first message'],
    ['1', 'assistant', defaultReply('first message')],
    ['2', 'user', 'second message'],
    ['3', 'assistant', defaultReply('second message')],
  ]);
});

test('restore() after a reload marks chats left working as interrupted and leaves the others alone', async () => {
  const stuck = newChat(AGENT, 'working');
  const finished = newChat(AGENT, 'completed');
  const idle = newChat(AGENT, 'idle');
  const before = [finished, idle].map((chat) => $tw.wiki.getTiddler(chat).fields);

  expect(runner().restore()).toEqual([stuck]);

  expect(status(stuck)).toBe('interrupted');
  const list = messages(stuck);
  expect(list.map((m) => m.role)).toEqual(['error']);
  expect(list[0]!.text).toMatch(/interrupted/);
  expect(list[0]!.text).toMatch(/again/);
  expect([finished, idle].map((chat) => $tw.wiki.getTiddler(chat).fields)).toEqual(before);
  expect(messages(finished)).toEqual([]);
  expect(messages(idle)).toEqual([]);
  // An interrupted chat can be used again.
  expect((await runner().submit({ kind: 'send', chat: stuck, text: 'retry' })).status).toBe('completed');
});
