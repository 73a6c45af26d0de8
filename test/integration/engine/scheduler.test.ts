// The scheduler over a real TiddlyWiki, on an injected clock (no waiting): due runs wake the
// chat once, a run is recorded before the wake, missed runs never pile up, disabled, deleted
// and broken schedules never fire, a hand edit gets a fresh next run, heartbeats wake only
// opted-in chats of their agent inside active hours; a due run waits while its chat is busy or
// waiting for the user (still due, not recorded) and runs once the chat is free; fired one-off
// alarms go; and a real runner says when a chat is free and refuses to wake a busy one.
import { bootEngineWiki, deferred, disposeRunners, hangingStep, reply, scriptedModel, scriptedRunner, within, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});
afterAll(() => disposeRunners());

const START = Date.parse('2026-11-24T12:00:00Z');

/** A clock the test moves: timers run when their time comes. */
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
  /** Move to `time`, running every timer due on the way (and the timers they set). */
  advanceTo(time: number): void {
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= time).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
    }
    this.time = time;
  }
  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }
}

function setup() {
  const clock = new TestClock();
  const wakes: { chat: string; text: string; source: string; at: number }[] = [];
  const busy = new Set<string>();
  const scheduler = new h.lib.Scheduler({
    wiki: h.port,
    clock,
    isFree: (chat) => !busy.has(chat),
    wake: (chat, text, source) => void wakes.push({ chat, text, source, at: clock.time }),
  });
  return { clock, wakes, scheduler, busy };
}

let n = 0;
function schedule(chat: string, fields: Record<string, string>): string {
  const title = `$:/ai/schedules/test/${++n}`;
  h.$tw.wiki.addTiddler({ title, tags: '$:/tags/AI/Schedule', 'agent-chat': chat, 'schedule-message': `Message ${n}`, ...fields });
  return title;
}
const iso = (ms: number) => new Date(ms).toISOString();

test('an interval runs when due, records each run first, and stops at max runs', () => {
  const chat = h.newChat();
  const title = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '600', 'schedule-max-runs': '2' });
  const { clock, wakes, scheduler } = setup();
  scheduler.start();
  expect(h.fields(title)['schedule-next-run']).toBe(iso(START + 600_000));
  clock.advance(599_000);
  expect(wakes).toEqual([]);
  clock.advance(1_000);
  expect(wakes).toEqual([{ chat, text: expect.stringMatching(/^Message/), source: `schedule:${title}`, at: START + 600_000 }]);
  expect(h.fields(title)).toMatchObject({ 'schedule-run-count': '1', 'schedule-last-run': iso(START + 600_000), 'schedule-next-run': iso(START + 1_200_000) });
  clock.advance(600_000);
  expect(wakes).toHaveLength(2);
  expect(h.fields(title)).toMatchObject({ 'schedule-run-count': '2', 'schedule-enabled': 'no' });
  expect(h.fields(title)['schedule-next-run']).toBeUndefined();
  clock.advance(3_600_000);
  expect(wakes).toHaveLength(2);
  scheduler.stop();
  h.$tw.wiki.deleteTiddler(title);
});

test('missed runs do not pile up: a clock far past the next run fires once, then goes on from now', () => {
  const chat = h.newChat();
  const title = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-next-run': iso(START - 10 * 3_600_000) });
  const { wakes, scheduler } = setup();
  scheduler.start();
  expect(wakes).toHaveLength(1);
  expect(h.fields(title)).toMatchObject({ 'schedule-run-count': '1', 'schedule-next-run': iso(START + 60_000) });
  scheduler.stop();
  h.$tw.wiki.deleteTiddler(title);
});

test('disabled, deleted and broken schedules never fire; re-enabling and editing by hand give a fresh next run', () => {
  const chat = h.newChat();
  const paused = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-enabled': 'no', 'schedule-next-run': iso(START - 1000) });
  const deleted = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '120' });
  const broken = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '5', 'schedule-next-run': iso(START - 1000) });
  const edited = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '3600' });
  const { clock, wakes, scheduler } = setup();
  scheduler.start();
  expect(wakes).toEqual([]);
  expect(h.fields(edited)['schedule-next-run']).toBe(iso(START + 3_600_000));
  h.$tw.wiki.deleteTiddler(deleted);
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(edited), { 'schedule-interval': '300' }));
  scheduler.changed([deleted, edited]);
  expect(h.fields(edited)['schedule-next-run']).toBe(iso(START + 300_000));
  clock.advance(200_000);
  expect(wakes).toEqual([]);
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(paused), { 'schedule-enabled': 'yes' }));
  scheduler.changed([paused]);
  expect(h.fields(paused)['schedule-next-run']).toBe(iso(clock.time + 60_000));
  clock.advance(100_000);
  expect(wakes.map((w) => w.source)).toEqual([`schedule:${paused}`, `schedule:${edited}`]);
  expect(h.fields(broken)['schedule-run-count']).toBeUndefined();
  scheduler.stop();
  for (const t of [paused, broken, edited]) h.$tw.wiki.deleteTiddler(t);
});

test('a cron run that falls outside the active hours is skipped, not sent', () => {
  const chat = h.newChat();
  // Due now (12:00 UTC) by its stored next run, but only active 20:00-06:00.
  const title = schedule(chat, {
    'schedule-kind': 'cron',
    'schedule-cron': '0 * * * *',
    'schedule-timezone': 'UTC',
    'schedule-active-hours': '20:00-06:00',
    'schedule-next-run': iso(START - 1000),
  });
  const { clock, wakes, scheduler } = setup();
  scheduler.start();
  expect(wakes).toEqual([]);
  expect(h.fields(title)).toMatchObject({ 'schedule-next-run': '2026-11-24T20:00:00.000Z' });
  expect(h.fields(title)['schedule-run-count'] ?? '0').toBe('0');
  clock.advanceTo(Date.parse('2026-11-24T21:00:00Z'));
  expect(wakes.map((w) => w.at).map(iso)).toEqual(['2026-11-24T20:00:00.000Z', '2026-11-24T21:00:00.000Z']);
  scheduler.stop();
  h.$tw.wiki.deleteTiddler(title);
});

test('heartbeats wake the opted-in, visible chats of their agent, inside the active hours, and note the next beat on the chat', () => {
  const chat = h.newChat({ 'agent-heartbeat-interval': '3600', 'agent-heartbeat-message': 'Any news?', 'agent-heartbeat-active-hours': '09:00-14:00' });
  const agent = h.agentOf(chat);
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(chat), { 'agent-heartbeat': 'yes' }));
  const quiet = 'Not opted in';
  h.$tw.wiki.addTiddler({ title: quiet, agent, 'agent-status': 'idle' });
  const hidden = h.store.createSubAgentChat(chat, agent, 'Sub-task');
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(hidden), { 'agent-heartbeat': 'yes' }));
  const { clock, wakes, scheduler } = setup();
  scheduler.start();
  expect(h.fields(chat)['agent-heartbeat-next']).toBeDefined();
  clock.advanceTo(START + 24 * 3_600_000);
  expect(new Set(wakes.map((w) => w.chat))).toEqual(new Set([chat]));
  expect(wakes.every((w) => w.text === 'Any news?' && w.source === `heartbeat:${agent}`)).toBe(true);
  // Hourly, only inside 09:00-14:00 host time: five beats a day at most, never outside the hours.
  const hostHour = (ms: number) => new Date(ms).getHours() * 60 + new Date(ms).getMinutes();
  expect(wakes.every((w) => hostHour(w.at) >= 9 * 60 && hostHour(w.at) < 14 * 60)).toBe(true);
  expect(wakes.length).toBeGreaterThanOrEqual(4);
  expect(wakes.length).toBeLessThanOrEqual(6);
  // Opting out stops it and clears the note.
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(chat), { 'agent-heartbeat': '' }));
  scheduler.changed([chat]);
  const count = wakes.length;
  clock.advance(48 * 3_600_000);
  expect(wakes).toHaveLength(count);
  expect(h.fields(chat)['agent-heartbeat-next']).toBeUndefined();
  scheduler.stop();
});

test('a due run waits while its chat is busy or waiting for the user, and runs once when the chat is free', () => {
  const chat = h.newChat();
  const title = schedule(chat, { 'schedule-kind': 'interval', 'schedule-interval': '60' });
  const { clock, wakes, scheduler, busy } = setup();
  scheduler.start();
  busy.add(chat);
  clock.advance(10 * 60_000);
  // Still due, not recorded: a restart now would find it due.
  expect(wakes).toEqual([]);
  expect(h.fields(title)['schedule-run-count']).toBe(undefined);
  expect(Date.parse(h.fields(title)['schedule-next-run']!)).toBeLessThan(clock.time);
  // A change of some other tiddler does not matter; the chat's own change (its turn ended) does.
  busy.delete(chat);
  scheduler.changed(['Some note']);
  expect(wakes).toEqual([]);
  scheduler.changed([chat]);
  expect(wakes).toHaveLength(1);
  expect(h.fields(title)['schedule-run-count']).toBe('1');
  scheduler.stop();
  h.$tw.wiki.deleteTiddler(title);
});

test('a fired one-off alarm the agent set is removed; one made by hand stays, switched off', () => {
  const chat = h.newChat();
  const alarm = `$:/ai/schedules/${chat}/alarm`;
  h.$tw.wiki.addTiddler({
    title: alarm,
    tags: '$:/tags/AI/Schedule',
    'agent-chat': chat,
    'schedule-kind': 'at',
    'schedule-at': new Date(START + 60_000).toISOString(),
    'schedule-message': 'ring',
  });
  const byHand = 'Alarm made by hand';
  h.$tw.wiki.addTiddler({
    title: byHand,
    tags: '$:/tags/AI/Schedule',
    'agent-chat': chat,
    'schedule-kind': 'at',
    'schedule-at': new Date(START + 60_000).toISOString(),
    'schedule-message': 'ring',
  });
  const { clock, wakes, scheduler } = setup();
  scheduler.start();
  clock.advance(60_000);
  expect(wakes).toHaveLength(2);
  expect(h.$tw.wiki.tiddlerExists(alarm)).toBe(false);
  expect(h.fields(byHand)).toMatchObject({ 'schedule-enabled': 'no', 'schedule-run-count': '1' });
  scheduler.stop();
  h.$tw.wiki.deleteTiddler(byHand);
});

test('a schedule whose chat appears later runs once the chat exists', () => {
  const title = schedule('Chat made later', { 'schedule-kind': 'at', 'schedule-at': new Date(START - 1000).toISOString() });
  const { wakes, scheduler } = setup();
  scheduler.start();
  expect(wakes).toEqual([]);
  const chat = h.newChat();
  h.$tw.wiki.addTiddler({ title: 'Chat made later', agent: h.agentOf(chat), 'agent-status': 'idle' });
  scheduler.changed(['Chat made later']);
  expect(wakes.map((w) => w.chat)).toEqual(['Chat made later']);
  scheduler.stop();
  h.$tw.wiki.deleteTiddler(title);
});

test('on a real runner, a chat is free only with no turn running or queued and nothing waiting for the user; waking a busy chat is refused', async () => {
  const started = deferred();
  const { model } = scriptedModel((call) => (call === 1 ? hangingStep(started) : reply(`reply ${call}`)));
  const runner = scriptedRunner(h, model, []);
  const chat = h.newChat();
  expect(runner.isFree(chat)).toBe(true);
  const turn = runner.submit({ kind: 'send', chat, text: 'long task' });
  await within(started.promise, 'the first turn to start');
  expect(runner.isFree(chat)).toBe(false);
  expect(() => runner.wake(chat, 'Wake A', 'schedule:A')).toThrow(/busy or waiting/);
  await runner.submit({ kind: 'stop', chat });
  await within(turn, 'the stopped turn');
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(chat), { 'agent-status': 'input-required' }));
  expect(runner.isFree(chat)).toBe(false);
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(chat), { 'agent-status': 'canceled' }));
  expect(runner.isFree(chat)).toBe(true);
  runner.wake(chat, 'Wake B', 'schedule:B');
  await within(
    new Promise<void>((resolve) => {
      const check = () => (h.status(chat) === 'completed' ? resolve() : setTimeout(check, 5));
      check();
    }),
    'the woken turn',
  );
  expect(
    h
      .messages(chat)
      .filter((m) => m.role === 'user')
      .map((m) => [m.text, m['agent-source']]),
  ).toEqual([
    ['long task', undefined],
    ['Wake B', 'schedule:B'],
  ]);
});
