// Triggers' bounds (issue 27, item 3): a tiddler hidden from the woken agent is never noted and
// never named in the run's message (DESIGN 8: hidden means absent), and a tiddler that keeps
// changing faster than the debounce still fires after the maximum wait. A real TiddlyWiki, a real
// LocalRunner, scheduler and trigger watch, a scripted model and one injected clock.
import { bootEngineWiki, reply, scriptedModel, within, type Harness, type Runner } from './harness';
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
  for (const title of h.$tw.wiki.filterTiddlers('[prefix[$:/test/bounds/]]')) h.$tw.wiki.deleteTiddler(title);
});

function start(clock: TestClock, model: LanguageModel): Runner {
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
  const running = h.lib.startScheduler(runner, h.port, h.$tw.wiki as never, { clock });
  disposers.push(running.stop);
  return runner;
}

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
function trigger(chat: string, tag: string, fields: Record<string, string> = {}): string {
  const title = `$:/test/bounds/${++n}`;
  h.$tw.wiki.addTiddler({ title, tags: '$:/tags/AI/Trigger', 'agent-chat': chat, 'trigger-filter': `[tag[${tag}]]`, 'trigger-message': 'Look.', ...fields });
  return title;
}
const users = (chat: string) => h.messages(chat).filter((m) => m.role === 'user');
const chatText = (chat: string) =>
  h
    .messages(chat)
    .map((m) => JSON.stringify(m))
    .join('\n');

test('a tiddler hidden from the agent never wakes it and is never named; a visible one in the same window is', async () => {
  const clock = new TestClock();
  const chat = h.newChat({}, 'Hidden');
  const s = scriptedModel([reply('Seen.'), reply('Seen again.')]);
  start(clock, s.model);
  const t = trigger(chat, 'Watched');

  // Only hidden tiddlers change: an HTTP request (its JSON carries keys) and the password flag.
  h.$tw.wiki.addTiddler({ title: 'Request log', text: 'Authorization: Bearer sk-secret', tags: 'Watched $:/tags/HttpRequest' });
  h.$tw.wiki.addTiddler({ title: '$:/isEncrypted', text: 'yes', tags: 'Watched' });
  await events();
  expect(h.fields(t)['trigger-pending']).toBeUndefined();
  clock.advance(60_000);
  await events();
  expect(users(chat)).toHaveLength(0);
  expect(s.requests).toHaveLength(0);

  // A hidden and a visible one in the same window: the run names only the visible one.
  h.$tw.wiki.addTiddler({ title: 'Request log', text: 'Authorization: Bearer sk-other', tags: 'Watched $:/tags/HttpRequest' });
  h.$tw.wiki.addTiddler({ title: 'Plain note', text: 'x', tags: 'Watched' });
  await events();
  expect(h.fields(t)['trigger-pending']).toBe('[[Plain note]]');
  clock.advance(5000);
  await until(() => h.status(chat) === 'completed', 'the run');
  expect(users(chat)).toHaveLength(1);
  expect(users(chat)[0]!.text).toContain('[[Plain note]]');
  expect(chatText(chat)).not.toContain('Request log');
  expect(chatText(chat)).not.toContain('isEncrypted');
  expect(JSON.stringify(s.requests)).not.toContain('Request log');

  // Noted while visible, hidden before the run (it became an HTTP request): not named, and no run for nothing.
  h.$tw.wiki.addTiddler({ title: 'Turncoat', text: 'x', tags: 'Watched' });
  await events();
  expect(h.fields(t)['trigger-pending']).toBe('Turncoat');
  h.$tw.wiki.addTiddler({ title: 'Turncoat', text: 'headers', tags: 'Watched $:/tags/HttpRequest' });
  await events();
  clock.advance(5000);
  await events();
  expect(h.fields(t)['trigger-pending']).toBeUndefined();
  expect(h.fields(t)['trigger-run-count']).toBe('1');
  expect(users(chat)).toHaveLength(1);
  expect(chatText(chat)).not.toContain('Turncoat');
});

test('a tiddler that keeps changing faster than the debounce still fires at the maximum wait (default 60 s for 5 s)', async () => {
  const clock = new TestClock();
  const chat = h.newChat({}, 'Busy');
  const s = scriptedModel([reply('One.'), reply('Two.'), reply('Three.')]);
  start(clock, s.model);
  const t = trigger(chat, 'Busy');
  const edit = async (i: number) => {
    h.$tw.wiki.addTiddler({ title: 'Live log', text: `line ${i}`, tags: 'Busy' });
    await events();
  };
  // A change every 2 s, from 0 to 58 s: the debounce (5 s) alone would never end.
  for (let i = 0; i < 30; i++) {
    await edit(i);
    expect(h.fields(t)['trigger-pending-since']).toBe(new Date(START).toISOString());
    clock.advance(i === 29 ? 1900 : 2000);
  }
  await events();
  expect(users(chat)).toHaveLength(0); // 59.9 s
  clock.advance(100);
  await until(() => users(chat).length === 1 && h.status(chat) === 'completed', 'the run at the maximum wait');
  expect(h.fields(t)['trigger-last-run']).toBe(new Date(START + 60_000).toISOString());
  expect(users(chat)[0]!.text).toContain('[[Live log]]');
  expect(h.fields(t)['trigger-pending-since']).toBeUndefined();

  // The next burst counts from its own first change; a trigger-max-wait field sets the bound.
  h.$tw.wiki.addTiddler({ ...h.fields(t), 'trigger-max-wait': '20' });
  const burst = clock.now();
  for (let i = 0; i < 10; i++) {
    await edit(100 + i);
    clock.advance(2000);
  }
  await until(() => users(chat).length === 2 && h.status(chat) === 'completed', 'the run at the set maximum wait');
  expect(h.fields(t)['trigger-last-run']).toBe(new Date(burst + 20_000).toISOString());
});

test('a trigger-max-wait shorter than the debounce is a problem the Background panel shows', () => {
  const chat = h.newChat({}, 'Bad');
  const t = trigger(chat, 'Bad', { 'trigger-debounce': '30', 'trigger-max-wait': '10' });
  expect(h.lib.triggerEntry(h.port, t).problem).toContain('"trigger-max-wait"');
});
