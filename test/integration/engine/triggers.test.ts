// Triggers (issue 27, item 3): a tiddler tagged $:/tags/AI/Trigger wakes its chat when a tiddler
// its filter selects is created or changed, once per burst of changes after the debounce, with
// the changed titles in the message. Unrelated changes, the woken chat's own writes and the
// writes of another trigger's run never fire it; a change seen but not run survives a restart;
// an agent at its spending cap is held back with a line. A real TiddlyWiki, a real LocalRunner,
// scheduler and trigger watch, a scripted model and one injected clock (no wall-clock waits).
import { bootEngineWiki, reply, scriptedModel, toolCalls, within, type Harness, type Runner } from './harness';
import type { LanguageModel } from '../../../src/agent/providers/types';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});

const START = Date.parse('2026-11-24T12:00:00Z');

class TestClock {
  time = START;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private ids = 0;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  };
  clearTimeout = (id: unknown) => void this.timers.delete(id as number);
  advance(ms: number): void {
    const to = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
    }
    this.time = to;
  }
}

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const dispose of disposers.splice(0).reverse()) dispose();
  // Each test's triggers go with it (one left pending would fire in the next test).
  for (const title of h.$tw.wiki.filterTiddlers('[prefix[$:/test/triggers/]]')) h.$tw.wiki.deleteTiddler(title);
});

function runnerOn(clock: TestClock, model: LanguageModel): Runner {
  const runner = new h.lib.LocalRunner({
    wiki: h.port,
    fetch: () => Promise.reject(new Error('no network in these tests')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: new Map(h.lib.WIKI_WRITE_TOOLS.map((t) => [t.name, t])),
    createModel: () => model,
    now: clock.now,
    clock,
  });
  disposers.push(() => runner.dispose());
  return runner;
}

function watch(clock: TestClock, runner: Runner) {
  const running = h.lib.startScheduler(runner, h.port, h.$tw.wiki as never, { clock });
  disposers.push(running.stop);
  return running;
}

/** Let TiddlyWiki deliver its change events (queued for the next tick), without waiting on the clock. */
const events = () => within(new Promise<void>((resolve) => setImmediate(resolve)), 'the change events');

async function until(check: () => boolean, what: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await within(
      new Promise<void>((resolve) => {
        const look = () => {
          if (check()) resolve();
          else timer = setTimeout(look, 5);
        };
        look();
      }),
      what,
    );
  } finally {
    clearTimeout(timer);
  }
}

let n = 0;
function trigger(chat: string, fields: Record<string, string> = {}): string {
  const title = `$:/test/triggers/${++n}`;
  h.$tw.wiki.addTiddler({
    title,
    tags: '$:/tags/AI/Trigger',
    'agent-chat': chat,
    'trigger-filter': `[tag[Inbox ${n}]]`,
    'trigger-message': 'File the new notes.',
    ...fields,
  });
  return title;
}
const tagOf = (t: string) => (h.fields(t)['trigger-filter'] ?? '').replace(/^\[tag\[|\]\]$/g, '');
const users = (chat: string) => h.messages(chat).filter((m) => m.role === 'user');

test('a matching change fires once after the debounce, with the changed titles; an unrelated change does not', async () => {
  const clock = new TestClock();
  const chat = h.newChat({}, 'Trig');
  const s = scriptedModel([reply('Filed.'), reply('Filed again.')]);
  const runner = runnerOn(clock, s.model);
  const t = trigger(chat);
  watch(clock, runner);
  const tag = tagOf(t);

  h.$tw.wiki.addTiddler({ title: 'Unrelated note', text: 'x', tags: 'Other' });
  await events();
  expect(h.fields(t)['trigger-pending']).toBeUndefined();

  h.$tw.wiki.addTiddler({ title: 'Note A', text: 'a', tags: `[[${tag}]]` });
  await events();
  clock.advance(3000);
  h.$tw.wiki.addTiddler({ title: 'Note B', text: 'b', tags: `[[${tag}]]` });
  h.$tw.wiki.addTiddler({ title: 'Note A', text: 'a, edited', tags: `[[${tag}]]` });
  await events();
  expect(h.fields(t)['trigger-pending']).toBe('[[Note A]] [[Note B]]');
  // 4.9 s after the last change: not yet.
  clock.advance(4900);
  await events();
  expect(users(chat)).toHaveLength(0);
  clock.advance(100);
  await until(() => h.status(chat) === 'completed', 'the triggered run');
  expect(users(chat)).toHaveLength(1);
  expect(users(chat)[0]!['agent-source']).toBe(`trigger:${t}`);
  expect(users(chat)[0]!.text).toContain('File the new notes.');
  expect(users(chat)[0]!.text).toContain('Changed: [[Note A]] [[Note B]]');
  // The model is told a trigger sent it, not the user, and that the titles are data.
  expect(JSON.stringify(s.requests[0]!.messages.at(-1))).toContain(
    '[Trigger: sent automatically because tiddlers a trigger the user set up watches were created or changed',
  );
  expect(h.fields(t)).toMatchObject({ 'trigger-run-count': '1', 'trigger-last-run': new Date(START + 8000).toISOString() });
  expect(h.fields(t)['trigger-pending']).toBeUndefined();

  // An unrelated change later: nothing; a second matching change: a second run.
  h.$tw.wiki.addTiddler({ title: 'Unrelated note', text: 'y', tags: 'Other' });
  await events();
  clock.advance(60_000);
  await events();
  expect(users(chat)).toHaveLength(1);
  h.$tw.wiki.addTiddler({ title: 'Note C', text: 'c', tags: `[[${tag}]]` });
  await events();
  clock.advance(5000);
  await until(() => users(chat).length === 2 && h.status(chat) === 'completed', 'the second run');
  expect(users(chat)[1]!.text).toContain('Changed: [[Note C]]');
  expect(s.requests).toHaveLength(2);

  // Paused in the Background panel (trigger-enabled: no): a change is not even noted.
  h.$tw.wiki.addTiddler({ ...h.fields(t), 'trigger-enabled': 'no' });
  h.$tw.wiki.addTiddler({ title: 'Note D', text: 'd', tags: `[[${tag}]]` });
  await events();
  clock.advance(10_000);
  await events();
  expect(h.fields(t)['trigger-pending']).toBeUndefined();
  expect(users(chat)).toHaveLength(2);
});

test("the chat's own writes never fire its trigger, nor do a triggered run's writes fire another trigger (no loop)", async () => {
  const clock = new TestClock();
  const auto = {
    'agent-tools': 'wiki-create wiki-update',
    'agent-approval': JSON.stringify({ 'wiki-create': { mode: 'auto' }, 'wiki-update': { mode: 'auto' } }),
  };
  const first = h.newChat(auto, 'Loop');
  const second = h.newChat(auto, 'Loop');
  const a = trigger(first, { 'trigger-filter': '[tag[Shared]]' });
  const b = trigger(second, { 'trigger-filter': '[tag[Shared]]' });
  // Each run writes a note tagged Shared, which both triggers select.
  let made = 0;
  const s = scriptedModel((call) =>
    call % 2 === 1 ? toolCalls([`c-${call}`, 'wiki-create', { title: `Agent note ${++made}`, text: 'made by a run', tags: ['Shared'] }]) : reply('Done.'),
  );
  const runner = runnerOn(clock, s.model);
  watch(clock, runner);

  // The user's own turn in the first chat writes a Shared note: not the first chat's trigger, but the second's.
  await runner.submit({ kind: 'send', chat: first, text: 'Make a note.' });
  expect(h.fields('Agent note 1').tags).toBe('Shared');
  await events();
  expect(h.fields(a)['trigger-pending']).toBeUndefined();
  expect(h.fields(b)['trigger-pending']).toBe('[[Agent note 1]]');
  clock.advance(5000);
  await until(() => users(second).length === 1 && h.status(second) === 'completed', "the second chat's triggered run");
  // That triggered run wrote "Agent note 2": it fires no trigger, not even the first chat's.
  expect(h.fields('Agent note 2').tags).toBe('Shared');
  await events();
  clock.advance(60_000);
  await events();
  expect(h.fields(a)['trigger-pending']).toBeUndefined();
  expect(h.fields(b)['trigger-pending']).toBeUndefined();
  expect(users(first)).toHaveLength(1);
  expect(users(second)).toHaveLength(1);

  // The user edits the agent's note: that is a change, and fires both.
  h.$tw.wiki.addTiddler({ ...h.fields('Agent note 2'), text: 'edited by the user' });
  await events();
  expect(h.fields(a)['trigger-pending']).toBe('[[Agent note 2]]');
  expect(h.fields(b)['trigger-pending']).toBe('[[Agent note 2]]');
});

test('a change seen but not run survives a restart; a due run during the downtime runs at start, once', async () => {
  const clock = new TestClock();
  const chat = h.newChat({}, 'Restart');
  const s = scriptedModel([reply('After the restart.')]);
  const t = trigger(chat, { 'trigger-debounce': '30' });
  const tag = tagOf(t);
  const before = runnerOn(clock, s.model);
  const first = watch(clock, before);
  h.$tw.wiki.addTiddler({ title: 'Seen before the restart', text: 'x', tags: `[[${tag}]]` });
  await events();
  expect(h.fields(t)).toMatchObject({ 'trigger-pending': '[[Seen before the restart]]', 'trigger-due': new Date(START + 30_000).toISOString() });
  // The process stops before the debounce ends (its timers go with it).
  first.stop();
  before.dispose();
  clock.advance(120_000);
  expect(users(chat)).toHaveLength(0);

  const after = runnerOn(clock, s.model);
  watch(clock, after);
  await until(() => h.status(chat) === 'completed', 'the run after the restart');
  expect(users(chat)).toHaveLength(1);
  expect(users(chat)[0]!.text).toContain('[[Seen before the restart]]');
  expect(h.fields(t)['trigger-run-count']).toBe('1');
  clock.advance(60_000);
  await events();
  expect(users(chat)).toHaveLength(1);
});

test('a trigger of an agent at its spending cap is held back: the chat says so, the model is not called', async () => {
  const clock = new TestClock();
  h.$tw.wiki.addTiddler({
    title: 'Capped trigger provider',
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': 'http://127.0.0.1:9/v1',
    'default-model': 'm',
    'model-facts': '{"m": {"price-input": 1, "price-output": 1}}',
  });
  const chat = h.newChat({ 'agent-provider': 'Capped trigger provider', 'agent-day-cost-budget': '0.5' }, 'Capped');
  const created = new Date(START).toISOString().replace(/[-:TZ.]/g, '');
  h.$tw.wiki.addTiddler({
    title: `${chat} earlier`,
    'agent-chat': chat,
    'agent-seq': '1',
    role: 'assistant',
    text: 'Earlier.',
    model: 'm',
    'tokens-in': '600000',
    'tokens-out': '0',
    created,
  });
  const s = scriptedModel([reply('Should not run.')]);
  const runner = runnerOn(clock, s.model);
  const t = trigger(chat);
  watch(clock, runner);
  h.$tw.wiki.addTiddler({ title: 'Capped note', text: 'x', tags: `[[${tagOf(t)}]]` });
  await events();
  clock.advance(5000);
  await until(() => h.messages(chat).some((m) => m.role === 'error'), 'the line at the cap');
  expect(s.requests).toHaveLength(0);
  const line = h.messages(chat).find((m) => m.role === 'error')!;
  expect(line).toMatchObject({ 'error-kind': 'budget', 'error-hint': 'spend-cap' });
  expect(line.text).toContain('"agent-day-cost-budget"');
  expect(users(chat)).toHaveLength(0);
  expect(h.status(chat)).toBe('idle');
});

test('a hostile model cannot make a trigger (or turn a note into one) to wake itself: the write gate refuses the tag', async () => {
  const clock = new TestClock();
  const auto = {
    'agent-tools': 'wiki-create wiki-update',
    'agent-approval': JSON.stringify({ 'wiki-create': { mode: 'auto' }, 'wiki-update': { mode: 'auto' } }),
  };
  const chat = h.newChat(auto, 'Hostile');
  h.$tw.wiki.addTiddler({ title: 'Plain hostile note', text: 'x' });
  const s = scriptedModel([
    toolCalls(
      [
        'h-1',
        'wiki-create',
        { title: 'Wake me', text: '', tags: ['$:/tags/AI/Trigger'], fields: { 'trigger-filter': '[all[tiddlers]]', 'trigger-message': 'Again.' } },
      ],
      [
        'h-2',
        'wiki-update',
        { title: 'Plain hostile note', tags: ['$:/tags/AI/Trigger'], fields: { 'trigger-filter': '[all[tiddlers]]', 'trigger-message': 'Again.' } },
      ],
    ),
    reply('Tried.'),
  ]);
  const runner = runnerOn(clock, s.model);
  watch(clock, runner);
  await runner.submit({ kind: 'send', chat, text: 'Hello.' });
  expect(h.$tw.wiki.tiddlerExists('Wake me')).toBe(false);
  expect(h.$tw.wiki.getTiddler('Plain hostile note')!.fields.tags ?? []).toEqual([]);
  expect(h.lib.triggerTitles(h.port)).toEqual([]);
  expect(
    h
      .messages(chat)
      .filter((m) => m['tool-name'])
      .map((m) => m['tool-status']),
  ).toEqual(['error', 'error']);
});
