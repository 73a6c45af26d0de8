// Model facts and money in real turns: a real TiddlyWiki in Node, the mock LLM over HTTP
// scripting the usage figures. The window comes from the model's facts (preset, then the
// profile's `model-facts`); a money budget stops a turn with a clear message; a budget
// that cannot be priced, and a bad `model-facts` entry, fail the turn clearly before any
// request, keeping the user's message.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

let $tw: TW;
let mock: any;
let count = 0;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1, models: ['mock-model', 'gpt-4o-mini', 'gpt-4.1'] });
  $tw = await bootWiki([]);
});

afterAll(async () => {
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();
const fields = (title: string) => ($tw.wiki.getTiddler(title)?.getFieldStrings() ?? {}) as Record<string, string>;

/** A provider profile on the mock, an agent on it and a new chat; returns the chat and profile titles. */
function setup(profile: Record<string, string>, agent: Record<string, string> = {}) {
  const n = ++count;
  const provider = `Cost provider ${n}`;
  $tw.wiki.addTiddler({ title: provider, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'gpt-4o-mini', ...profile });
  $tw.wiki.addTiddler({
    title: `Cost agent ${n}`,
    tags: '$:/tags/AI/Agent',
    'agent-provider': provider,
    'agent-tools': 'wiki-recent',
    text: 'You are a test agent.',
    ...agent,
  });
  const chat = `Cost chat ${n}`;
  $tw.wiki.addTiddler({ title: chat, agent: `Cost agent ${n}`, 'agent-status': 'idle', text: '' });
  return { chat, provider };
}

function messages(chat: string): Record<string, string>[] {
  return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[]).map(fields).sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}

const requestCount = () => mock.requests.length;
const usage = (prompt_tokens: number, completion_tokens: number) => ({ prompt_tokens, completion_tokens });
const toolRound = (u: ReturnType<typeof usage>) => ({ toolCalls: [{ name: 'wiki-recent', arguments: {} }], usage: u });

test('the window and the output reserve come from the model facts when nothing else sets them; only a limit the user set is sent', async () => {
  const { chat } = setup({});
  mock.queue({ text: 'ok', usage: usage(10, 1) });
  expect((await runner().submit({ kind: 'send', chat, text: 'hello' })).status).toBe('completed');
  expect(JSON.parse(fields(chat)['agent-context-usage']!).window).toBe(128_000); // gpt-4o-mini's preset
  expect(mock.requests.at(-1).body.max_tokens).toBeUndefined();

  const own = setup({ 'max-output': '500', 'model-facts': '{"gpt-4o-mini": {"context-window": 64000, "max-output": 700}}' });
  mock.queue({ text: 'ok', usage: usage(10, 1) });
  expect((await runner().submit({ kind: 'send', chat: own.chat, text: 'hello' })).status).toBe('completed');
  expect(JSON.parse(fields(own.chat)['agent-context-usage']!).window).toBe(64_000);
  expect(mock.requests.at(-1).body.max_tokens).toBe(700);

  // The agent's own window still wins.
  const agentWindow = setup({ 'model-facts': '{"gpt-4o-mini": {"context-window": 64000}}' }, { 'agent-context-window': '9000' });
  mock.queue({ text: 'ok', usage: usage(10, 1) });
  expect((await runner().submit({ kind: 'send', chat: agentWindow.chat, text: 'hello' })).status).toBe('completed');
  expect(JSON.parse(fields(agentWindow.chat)['agent-context-usage']!).window).toBe(9000);
});

test('a turn money budget stops the loop before the next model call, with a clear message', async () => {
  // gpt-4o-mini: $0.15 / $0.60 per million tokens. Round 1: 50,000 in + 5,000 out = $0.0105.
  const { chat } = setup({}, { 'agent-turn-cost-budget': '0.01' });
  mock.queue(toolRound(usage(50_000, 5_000)));
  const before = requestCount();
  const result = await runner().submit({ kind: 'send', chat, text: 'Look at what changed lately.' });
  expect(result.status).toBe('failed');
  expect(requestCount() - before).toBe(1);
  const list = messages(chat);
  expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'error']);
  expect(list[0]!.text).toBe('Look at what changed lately.');
  expect(list[2]!['tool-status']).toBe('ok');
  expect(list[3]!.text).toBe('Money budget reached: this turn cost $0.0105 of its $0.0100 ("agent-turn-cost-budget"). Send a message to continue.');
  expect(fields(chat)['agent-status']).toBe('failed');
});

test("a chat money budget counts earlier turns, priced by the profile's model-facts", async () => {
  // The profile prices the mock model: $1 / $2 per million tokens. Turn 1: 10,000 in + 1,000 out = $0.012.
  const { chat } = setup(
    { 'default-model': 'mock-model', 'model-facts': '{"mock-model": {"price-input": 1, "price-output": 2}}' },
    { 'agent-chat-cost-budget': '0.02' },
  );
  mock.queue({ text: 'first', usage: usage(10_000, 1_000) });
  expect((await runner().submit({ kind: 'send', chat, text: 'one' })).status).toBe('completed');
  mock.queue({ text: 'second', usage: usage(10_000, 1_000) });
  expect((await runner().submit({ kind: 'send', chat, text: 'two' })).status).toBe('completed');
  const before = requestCount();
  const third = await runner().submit({ kind: 'send', chat, text: 'three' });
  expect(third.status).toBe('failed');
  expect(requestCount()).toBe(before);
  expect(messages(chat).at(-1)!.text).toBe(
    'Money budget reached: this chat cost $0.0240 of its $0.0200 ("agent-chat-cost-budget"). Start a new chat or raise the budget.',
  );
  expect(messages(chat).at(-2)).toMatchObject({ role: 'user', text: 'three' });
});

test('a money budget with a model of unknown price fails clearly before any request', async () => {
  const { chat, provider } = setup({ 'default-model': 'mock-model' }, { 'agent-chat-cost-budget': '5' });
  const before = requestCount();
  const result = await runner().submit({ kind: 'send', chat, text: 'hello' });
  expect(result.status).toBe('failed');
  expect(requestCount()).toBe(before);
  expect(result.error).toBe(
    `The money budget ("agent-chat-cost-budget" of "Cost agent ${count}") cannot be enforced: no price is known for the model "mock-model". Set "price-input" and "price-output" for it in the "model-facts" field of the provider profile "${provider}", or clear the budget.`,
  );
  expect(messages(chat).map((m) => [m.role, m.text])).toEqual([
    ['user', 'hello'],
    ['error', result.error],
  ]);
});

test('a bad model-facts entry fails the turn with the profile, the model and the key; nothing is lost, and a fix lets the next turn run', async () => {
  const { chat, provider } = setup({ 'model-facts': '{"gpt-4o-mini": {"price-input": -0.15, "price-output": 0.6}}' });
  const before = requestCount();
  const result = await runner().submit({ kind: 'send', chat, text: 'keep these words' });
  expect(result.status).toBe('failed');
  expect(requestCount()).toBe(before);
  expect(result.error).toContain(
    `Provider profile "${provider}": the field "model-facts" has "price-input": -0.15 for "gpt-4o-mini"; it must be US dollars per million input tokens, a number of at least 0`,
  );
  expect(messages(chat)[0]).toMatchObject({ role: 'user', text: 'keep these words' });

  for (const bad of ['{"gpt-4o-mini": {"price": 1}}', '{"gpt-4o-mini": {"images": "no"}}', 'not json']) {
    $tw.wiki.addTiddler({ ...fields(provider), 'model-facts': bad });
    const again = await runner().submit({ kind: 'send', chat, text: 'again' });
    expect(again.status).toBe('failed');
    expect(again.error).toContain(`Provider profile "${provider}": the field "model-facts"`);
  }
  expect(requestCount()).toBe(before);

  $tw.wiki.addTiddler({ ...fields(provider), 'model-facts': '{"gpt-4o-mini": {"price-input": 0.15, "price-output": 0.6}}' });
  mock.queue({ text: 'fixed', usage: usage(10, 1) });
  expect((await runner().submit({ kind: 'send', chat, text: 'now' })).status).toBe('completed');
  expect(
    messages(chat)
      .filter((m) => m.role === 'user')
      .map((m) => m.text),
  ).toEqual(['keep these words', 'again', 'again', 'again', 'now']);
});

test("a model that rewrites its profile's prices to escape the budget is refused, and the budget holds", async () => {
  // The attacker is the model: it tries to price itself at $0. Writes to a provider profile
  // are refused by the write gate (a `$:/tags/AI/…` tag), so the next check still sees $0.0105.
  const { chat, provider } = setup(
    {},
    { 'agent-tools': 'wiki-update', 'agent-approval': '{"wiki-update": {"mode": "auto"}}', 'agent-turn-cost-budget': '0.01' },
  );
  const facts = { 'model-facts': '{"*": {"price-input": 0, "price-output": 0}}' };
  mock.queue({
    toolCalls: [{ name: 'wiki-update', arguments: { title: provider, modified: fields(provider).modified ?? '', fields: facts } }],
    usage: usage(50_000, 5_000),
  });
  const result = await runner().submit({ kind: 'send', chat, text: 'Go on as long as you like.' });
  expect(result.status).toBe('failed');
  const list = messages(chat);
  expect(list[2]).toMatchObject({ role: 'tool', 'tool-status': 'error' });
  expect(list[2]!.text).toMatch(/^Refused.*\$:\/tags\/AI\/Provider/s);
  expect(fields(provider)['model-facts']).toBeUndefined();
  expect(result.error).toMatch(/^Money budget reached: this turn cost \$0\.0105/);
});
