// Test the connection resolves the key as a chat does (runner/api-key.ts), in a real TiddlyWiki
// against the mock LLM (which asks for no key): a profile that names a key with none set fails
// the test with the very words the chat then fails with, and calls nobody; a keyless profile
// (a local server) passes the test and chats; the page's unsaved choice (no key needed, or a
// key name) is what the test uses; once the key is set, both send it.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

const KEY_NAME = 'provider-key-test-key';
const KEY_VAR = 'PROVIDER_KEY_TEST_KEY';
const savedConfig = process.env.TIDDLYAGENT_CONFIG;
let $tw: TW;
let mock: any;
let chats = 0;

beforeAll(async () => {
  delete process.env[KEY_VAR];
  mock = await startMockLlm({ delayMs: 1 });
  // The owner lets this process use the key at the mock (so its missing value is the only problem).
  process.env.TIDDLYAGENT_CONFIG = JSON.stringify({ keys: { [KEY_NAME]: { env: KEY_VAR, origins: [new URL(mock.url).origin] } }, allowHosts: ['127.0.0.1'] });
  const provider = (title: string, fields: Record<string, string>) => ({
    title,
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': mock.url,
    'default-model': 'mock-model',
    ...fields,
  });
  $tw = await bootWiki([
    provider('Keyed server', { caption: 'Keyed server', 'api-key-name': KEY_NAME }),
    provider('Local server', { caption: 'Local server' }),
    { title: 'Keyed agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Keyed server', text: 'Test agent.' },
    { title: 'Local agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Local server', text: 'Test agent.' },
  ]);
});

afterAll(async () => {
  delete process.env[KEY_VAR];
  if (savedConfig === undefined) delete process.env.TIDDLYAGENT_CONFIG;
  else process.env.TIDDLYAGENT_CONFIG = savedConfig;
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();

/** A new chat with `agent`, one message sent; the chat's messages after the turn. */
async function chatWith(agent: string, text: string): Promise<Record<string, string>[]> {
  const chat = `Key chat ${++chats}`;
  $tw.wiki.addTiddler({ title: chat, agent, 'agent-status': 'idle', text: '' });
  await runner().submit({ kind: 'send', chat, text });
  return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[])
    .map((t) => $tw.wiki.getTiddler(t).getFieldStrings())
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}

test('a profile that needs a key and has none fails the test as the chat fails, and calls nobody', async () => {
  const before = mock.requests.length;
  const result = await runner().query({ kind: 'provider-test', profile: 'Keyed server' });
  expect(result).toMatchObject({ ok: false, problem: 'no-key' });
  expect(result.detail).toMatch(/^No API key is set for the provider "Keyed server"\./);
  const messages = await chatWith('Keyed agent', 'Hello with no key');
  const error = messages.find((m) => m.role === 'error')!;
  expect(error.text).toBe(result.detail);
  expect(error['error-kind']).toBe('config');
  // The chat's error names the profile at fault, so it can open that profile's settings.
  expect(error['error-tiddler']).toBe('Keyed server');
  expect(mock.requests.length).toBe(before);
});

test('a keyless profile passes the test and chats', async () => {
  expect(await runner().query({ kind: 'provider-test', profile: 'Local server' })).toMatchObject({ ok: true, models: ['mock-model', 'mock-model-large'] });
  const messages = await chatWith('Local agent', 'Hello from a local server');
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(mock.requests.at(-1).headers.authorization).toBeUndefined();
});

test('the unsaved choice in the page decides: no key needed passes, a key name without a key fails', async () => {
  expect(await runner().query({ kind: 'provider-test', profile: 'Keyed server', keyName: '' })).toMatchObject({ ok: true });
  expect(await runner().query({ kind: 'provider-test', profile: 'Local server', keyName: KEY_NAME })).toMatchObject({ ok: false, problem: 'no-key' });
});

test('once the key is set, the test and the chat both send it', async () => {
  process.env[KEY_VAR] = 'sk-provider-key-test';
  expect(await runner().query({ kind: 'provider-test', profile: 'Keyed server', model: 'mock-model' })).toMatchObject({ ok: true });
  const messages = await chatWith('Keyed agent', 'Hello with a key');
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(mock.requests.at(-1).headers.authorization).toBe('Bearer sk-provider-key-test');
});
