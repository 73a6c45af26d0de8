/*\
The scheduler: the one system that wakes chats (schedules, alarms and heartbeats). It runs
where turns run for the user: in the server edition on the server, in a browser-only wiki
in the open page. It keeps one timer, for the earliest next run; when a run is due it first
records the run in the schedule tiddler (count, last run, next run; a finished one is
switched off), then hands the message to `wake`, which sends it as a user turn marked with
its source; a busy chat queues it. So a run is at most once, even across a crash.

- A due run that was missed (the server or page was down) runs once, then the schedule goes
  on from now: missed runs never pile up. A past-due one-off `at` runs once.
- A repeating run that falls outside its active hours is skipped, never sent.
- A schedule edited by hand gets a fresh next run; one that does not parse, or whose chat
  is gone, never fires (the background panel shows why); a disabled or deleted one never fires.
Time comes from an injected clock, so tests drive it without waiting.
\*/
import { ChatStore } from '../store/chat-store';
import { systemClock, type Clock } from './clock';
import type { TiddlerFields, WikiPort } from '../store/wiki-port';
import { CHAT_HEARTBEAT_NEXT, HEARTBEAT_SOURCE, heartbeats } from './heartbeat';
import { inActiveHours, isoTime, isScheduleTiddler, nextRunAfter, repeats, type Schedule } from './schedule';
import { ScheduleBook } from './schedule-book';


/** `schedule:<title>` or `heartbeat:<agent>`: what woke a chat (the user message's `agent-source`). */
export type WakeSource = string;
export const SCHEDULE_SOURCE = 'schedule:';

export interface SchedulerHost {
  /** The whole wiki (the scheduler writes schedule tiddlers' run fields and the heartbeat field of chats). */
  wiki: WikiPort;
  /** Send `text` into `chat` as a user turn from `source` (a busy chat queues it). */
  wake(chat: string, text: string, source: WakeSource): void;
  clock?: Clock;
}

/** A timer never waits longer than this before looking again (and setTimeout's limit is ~24 days). */
const MAX_WAIT_MS = 6 * 3600_000;
const TIMING_FIELDS = ['agent-chat', 'schedule-kind', 'schedule-at', 'schedule-interval', 'schedule-cron', 'schedule-timezone', 'schedule-active-hours', 'schedule-max-runs', 'schedule-enabled'];

export class Scheduler {
  private readonly clock: Clock;
  private readonly book: ScheduleBook;
  private readonly chats: ChatStore;
  /** Per schedule tiddler: its timing fields when its next run was last worked out. */
  private seen = new Map<string, string>();
  /** Per chat with a heartbeat: the heartbeat's timing and its next run. */
  private beats = new Map<string, { timing: string; next: number | undefined }>();
  /** Titles of the schedule tiddlers, kept up to date from change events (TiddlyWiki's tag index is rebuilt after every change). */
  private titles = new Set<string>();
  /** Agents whose heartbeat wakes some chat. */
  private beating = new Set<string>();
  private timer: unknown;
  private running = false;
  /** Set while a sync writes, so the change events of its own writes do not start another. */
  private syncing = false;

  constructor(private readonly host: SchedulerHost) {
    this.clock = host.clock ?? systemClock;
    this.book = new ScheduleBook(host.wiki);
    this.chats = new ChatStore(host.wiki);
  }

  start(): void {
    this.running = true;
    this.titles = new Set(this.book.titles());
    this.sync();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * The wiki changed (TiddlyWiki's change event): look again when a schedule, an agent with a
   * heartbeat, or a chat that has or had one changed. Messages, notes and the rest cost a
   * field lookup per title.
   */
  changed(titles: Iterable<string>): void {
    if (!this.running || this.syncing) return;
    let relevant = false;
    for (const title of titles) {
      const fields = this.host.wiki.getFields(title);
      const isSchedule = isScheduleTiddler(fields) && fields?.['draft.of'] === undefined;
      if (isSchedule || this.titles.has(title)) relevant = true;
      if (isSchedule) this.titles.add(title);
      else this.titles.delete(title);
      if (this.beats.has(title) || this.beating.has(title) || fields?.['agent-heartbeat'] === 'yes' || fields?.['agent-heartbeat-interval'] !== undefined) relevant = true;
    }
    if (relevant) this.sync();
  }

  /** When the heartbeat wakes a chat next (ms), if it has one. */
  heartbeatNext(chat: string): number | undefined {
    return this.beats.get(chat)?.next;
  }

  /** Bring every next run up to date, run what is due, and set the timer for the earliest next run. */
  sync(): void {
    if (!this.running) return;
    this.syncing = true;
    try {
      const now = this.clock.now();
      let earliest = Infinity;
      const live = new Set<string>();
      for (const entry of [...this.titles].map((title) => this.book.entry(title))) {
        live.add(entry.title);
        if (!entry.schedule) {
          this.seen.delete(entry.title);
          continue;
        }
        const next = this.syncSchedule(entry.schedule, now);
        if (next !== undefined) earliest = Math.min(earliest, next);
      }
      for (const title of this.seen.keys()) if (!live.has(title)) this.seen.delete(title);
      earliest = Math.min(earliest, this.syncHeartbeats(now));
      this.arm(earliest, now);
    } finally {
      this.syncing = false;
    }
  }

  /** One schedule: fresh next run when new or edited; run when due. Returns its next run. */
  private syncSchedule(schedule: Schedule, now: number): number | undefined {
    const fields = this.host.wiki.getFields(schedule.title)!;
    const timing = timingOf(fields);
    const known = this.seen.get(schedule.title);
    this.seen.set(schedule.title, timing);
    if (!schedule.enabled) return undefined;
    let next = schedule.nextRun;
    // A schedule seen for the first time keeps the next run it has (it was worked out before a restart).
    if (next === undefined || (known !== undefined && known !== timing)) {
      next = firstRun(schedule, now);
      this.writeSchedule(fields, { 'schedule-next-run': next === undefined ? undefined : isoTime(next), 'schedule-enabled': next === undefined ? 'no' : 'yes' });
    }
    if (next === undefined || next > now) return next;
    return this.run({ ...schedule, nextRun: next }, now);
  }

  /** A due schedule: record the run, then wake its chat (a repeating run outside its active hours is skipped). */
  private run(schedule: Schedule, now: number): number | undefined {
    const runs = !repeats(schedule) || inActiveHours(schedule, now);
    const after: Schedule = runs ? { ...schedule, runCount: schedule.runCount + 1, lastRun: now } : schedule;
    const next = nextRunAfter(after, now);
    const fields = this.host.wiki.getFields(schedule.title)!;
    this.writeSchedule(fields, {
      'schedule-run-count': String(after.runCount),
      'schedule-last-run': after.lastRun === undefined ? undefined : isoTime(after.lastRun),
      'schedule-next-run': next === undefined ? undefined : isoTime(next),
      'schedule-enabled': next === undefined ? 'no' : 'yes',
    });
    if (runs) this.wake(schedule.chat, schedule.message, `${SCHEDULE_SOURCE}${schedule.title}`);
    return next;
  }

  private syncHeartbeats(now: number): number {
    let earliest = Infinity;
    const live = new Set<string>();
    this.beating.clear();
    for (const entry of heartbeats(this.host.wiki)) {
      this.beating.add(entry.agent);
      if (!entry.schedule) continue;
      const { chat } = entry.schedule;
      live.add(chat);
      const timing = JSON.stringify([entry.agent, entry.schedule.interval, entry.schedule.activeHours?.text]);
      let beat = this.beats.get(chat);
      if (!beat || beat.timing !== timing) {
        beat = { timing, next: nextRunAfter(entry.schedule, now) };
        this.beats.set(chat, beat);
        this.noteHeartbeat(chat, beat.next);
      }
      if (beat.next !== undefined && beat.next <= now) {
        const runs = inActiveHours(entry.schedule, now);
        beat.next = nextRunAfter({ ...entry.schedule, lastRun: now }, now);
        this.noteHeartbeat(chat, beat.next);
        if (runs) this.wake(chat, entry.schedule.message, `${HEARTBEAT_SOURCE}${entry.agent}`);
      }
      if (beat.next !== undefined) earliest = Math.min(earliest, beat.next);
    }
    for (const chat of this.beats.keys()) {
      if (live.has(chat)) continue;
      this.beats.delete(chat);
      this.noteHeartbeat(chat, undefined);
    }
    return earliest;
  }

  private wake(chat: string, text: string, source: WakeSource): void {
    try {
      this.host.wake(chat, text, source);
    } catch {
      // The chat went away or cannot take a turn: the background panel shows the schedule's problem.
    }
  }

  private noteHeartbeat(chat: string, next: number | undefined): void {
    const value = next === undefined ? undefined : isoTime(next);
    const fields = this.host.wiki.getFields(chat);
    if (fields?.agent && fields[CHAT_HEARTBEAT_NEXT] !== value) this.chats.updateChat(chat, { [CHAT_HEARTBEAT_NEXT]: value });
  }

  private writeSchedule(fields: TiddlerFields, changes: Record<string, string | undefined>): void {
    const updated: TiddlerFields = { ...fields };
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined) delete updated[name];
      else updated[name] = value;
    }
    this.host.wiki.putTiddler(updated);
    this.seen.set(fields.title!, timingOf(updated));
  }

  private arm(earliest: number, now: number): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running || earliest === Infinity) return;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.sync();
      },
      Math.min(Math.max(0, earliest - now), MAX_WAIT_MS),
    );
  }
}

function timingOf(fields: TiddlerFields): string {
  return JSON.stringify(TIMING_FIELDS.map((name) => fields[name]?.trim() ?? ''));
}

/** The first run of a new or edited schedule: a one-off whose time has passed and that never ran is due now. */
function firstRun(schedule: Schedule, now: number): number | undefined {
  if (schedule.kind === 'at' && schedule.runCount === 0 && schedule.at! <= now) return schedule.at;
  return nextRunAfter(schedule, now);
}
