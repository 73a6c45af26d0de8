// Spending caps (issue 27, item 3): an agent's `agent-day-cost-budget` and
// `agent-month-cost-budget` hold back the runs no user started (a schedule's, a heartbeat's, a
// trigger's) once the agent's chats cost that much today / this month; the chat gets one clear
// line, the model is not called. A run the user starts is not held back. A real TiddlyWiki, a
// real LocalRunner and Scheduler, a scripted model, an injected clock.
import { bootEngineWiki, reply, scriptedModel, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
  h.$tw.wiki.addTiddler({
    title: PRICED,
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': 'http://127.0.0.1:9/v1',
    'default-model': 'm',
    'model-facts': '{"m": {"price-input": 1, "price-output": 4}}',
  });
});

const PRICED = 'Priced test provider';
// Mid-month, mid-day in UTC: the same local day and month in every time zone for the times below.
const NOW = Date.UTC(2026, 10, 15, 12, 0, 0);
const HOUR = 3600_000;

let clockTime = NOW;
const clock = { now: () => clockTime, setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (t: unknown) => clearTimeout(t as never) };
const runners: { dispose(): void }[] = [];
afterEach(() => {
  for (const r of runners.splice(0)) r.dispose();
});

function runnerWith(model: ReturnType<typeof scriptedModel>['model']) {
  const runner = new h.lib.LocalRunner({
    wiki: h.port,
    fetch: () => Promise.reject(new Error('no network in these tests')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: new Map(),
    createModel: () => model,
    now: clock.now,
    clock,
  });
  runners.push(runner);
  return runner;
}

/** TiddlyWiki's date field for `ms`. */
const twDate = (ms: number) => new Date(ms).toISOString().replace(/[-:TZ.]/g, '');

let seq = 100;
/** A reply of `chat` written at `at` that cost `usd` (input tokens at $1 a million). */
function spent(chat: string, usd: number, at: number): void {
  h.$tw.wiki.addTiddler({
    title: `${chat} reply ${++seq}`,
    'agent-chat': chat,
    'agent-seq': String(seq),
    role: 'assistant',
    text: 'Earlier reply.',
    model: 'm',
    'tokens-in': String(Math.round(usd * 1_000_000)),
    'tokens-out': '0',
    created: twDate(at),
  });
}

const errorsOf = (chat: string) => h.messages(chat).filter((m) => m.role === 'error');

test('a scheduled run of an agent at its day cap does not start: one clear line, no model call; the user can still send', async () => {
  // Now, as the Background panel's filter sees it (today's replies are written at this very time).
  const now = Date.now();
  clockTime = now;
  const chat = h.newChat({ 'agent-provider': PRICED, 'agent-day-cost-budget': '0.05' }, 'Capped');
  const other = `${chat} (second chat)`;
  h.$tw.wiki.addTiddler({ title: other, agent: h.agentOf(chat), 'agent-status': 'idle' });
  // Yesterday's big spend does not count today; today's two chats together reach the cap.
  spent(chat, 5, now - 48 * HOUR);
  spent(chat, 0.02, now);
  const s = scriptedModel([reply('Done.'), reply('Done again.')]);
  const runner = runnerWith(s.model);

  // Under the cap: the run goes ahead.
  await runner.submit({ kind: 'send', chat, text: 'Digest.', source: 'schedule:$:/s/1' });
  expect(s.requests).toHaveLength(1);

  spent(other, 0.03, now);
  const before = h.messages(chat).length;
  await runner.submit({ kind: 'send', chat, text: 'Digest.', source: 'schedule:$:/s/1' });
  expect(s.requests).toHaveLength(1);
  const [line] = errorsOf(chat);
  expect(line).toMatchObject({ 'error-kind': 'budget', 'error-hint': 'spend-cap', 'error-tiddler': h.agentOf(chat) });
  expect(line!.text).toContain('$0.05');
  expect(line!.text).toContain('"agent-day-cost-budget"');
  expect(line!.text).toContain('today');
  // No user message was written for the held-back run, and the chat is not left working.
  expect(h.messages(chat)).toHaveLength(before + 1);
  expect(h.status(chat)).not.toBe('working');

  // Held back again (a heartbeat this time): no second copy of the line.
  await runner.submit({ kind: 'send', chat, text: 'Beat.', source: `heartbeat:${h.agentOf(chat)}` });
  expect(errorsOf(chat)).toHaveLength(1);
  expect(s.requests).toHaveLength(1);

  // The user's own message is not held back.
  await runner.submit({ kind: 'send', chat, text: 'Please go on anyway.' });
  expect(s.requests).toHaveLength(2);
  expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Done again.' });

  // The Background panel's filter says the agent is paused at its cap.
  expect(h.$tw.wiki.filterTiddlers(`[[${chat}]aischedule[cap]]`)).toEqual([expect.stringContaining('spending cap')]);
});

test('the month cap counts every reply since the 1st; a cap whose model has no price holds the run back, saying why', async () => {
  clockTime = NOW;
  const chat = h.newChat({ 'agent-provider': PRICED, 'agent-month-cost-budget': '1' }, 'Monthly');
  spent(chat, 0.6, NOW - 10 * 24 * HOUR);
  spent(chat, 0.3, NOW - 3 * 24 * HOUR);
  spent(chat, 2, NOW - 20 * 24 * HOUR); // last month
  const s = scriptedModel([reply('Ran.')]);
  const runner = runnerWith(s.model);
  await runner.submit({ kind: 'send', chat, text: 'Check.', source: 'trigger:$:/t/1' });
  expect(s.requests).toHaveLength(1);
  expect(errorsOf(chat)).toHaveLength(0);

  spent(chat, 0.1, NOW - HOUR);
  await runner.submit({ kind: 'send', chat, text: 'Check.', source: 'trigger:$:/t/1' });
  expect(s.requests).toHaveLength(1);
  expect(errorsOf(chat)[0]!.text).toMatch(/cost \$1\.00 this month, which reaches its cap of \$1\.00 \("agent-month-cost-budget"\)/);

  // No price known (the test provider names none for "m"): the cap cannot be checked, so it holds.
  const unpriced = h.newChat({ 'agent-day-cost-budget': '10' }, 'Unpriced');
  spent(unpriced, 0.001, NOW - HOUR);
  await runner.submit({ kind: 'send', chat: unpriced, text: 'Check.', source: 'schedule:$:/s/2' });
  expect(s.requests).toHaveLength(1);
  expect(errorsOf(unpriced)[0]!.text).toContain('no price is known for the model "m"');
});

test('a token cap holds unattended runs for a model without prices: tokens in and out, today only', async () => {
  clockTime = NOW;
  // No price is known for "m" here: only tokens can be capped.
  const chat = h.newChat({ 'agent-day-token-budget': '50000' }, 'Token capped');
  spent(chat, 0.9, NOW - 48 * HOUR); // 900,000 tokens two days ago: not today
  spent(chat, 0.03, NOW - HOUR); // 30,000 tokens today
  const s = scriptedModel([reply('Ran.')]);
  const runner = runnerWith(s.model);
  await runner.submit({ kind: 'send', chat, text: 'Check.', source: 'trigger:$:/t/2' });
  expect(s.requests).toHaveLength(1);
  expect(errorsOf(chat)).toHaveLength(0);

  spent(chat, 0.02, NOW - HOUR / 2); // 20,000 more: 50,000 today (the reply just made reported no usage: estimated, a few more)
  await runner.submit({ kind: 'send', chat, text: 'Check.', source: 'trigger:$:/t/2' });
  expect(s.requests).toHaveLength(1);
  expect(errorsOf(chat)[0]!.text).toMatch(/used 50,\d{3} tokens today, which reaches its cap of 50,000 tokens \("agent-day-token-budget"\)/);
  expect(h.lib.agentSpend(h.store, h.port, h.agentOf(chat), NOW).monthTokens).toBeGreaterThanOrEqual(950_000);
});
