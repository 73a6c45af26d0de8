/*\
The scheduler: the one system that wakes chats (schedules, alarms and heartbeats). It runs
where turns run for the user: in the server edition on the server, in a browser-only wiki
in the open page. It keeps one timer, for the earliest next run. A due run waits until its
chat is free (no turn running or queued, not waiting for the user's approval or answer):
a busy chat gets it when its turn is over, and a pending card is never pre-empted. Then the
scheduler records the run in the schedule tiddler (count, last run, next run; a finished one
is switched off, a fired one-off alarm the agent set is removed), makes that durable, and
only then hands the message to `wake`, which sends it as a user turn marked with its
source. So a run happens at most once, even across a crash, and a run that waits for its
chat is still due after a restart.

- A due run that was missed (the server or page was down) runs once, then the schedule goes
  on from now: missed runs never pile up. A past-due one-off `at` runs once.
- A repeating run that falls outside its active hours is skipped, never sent.
- A schedule edited by hand gets a fresh next run; one that does not parse, or whose chat
  is gone, never fires (the background panel shows why); a disabled or deleted one never fires.
Time comes from an injected clock, so tests drive it without waiting.
\*/
import { systemClock, type Clock } from '../clock';
import { ChatStore } from '../store/chat-store';
import type { TiddlerFields, WikiPort } from '../store/wiki-port';
import { CHAT_HEARTBEAT_NEXT, HEARTBEAT_SOURCE, heartbeats } from './heartbeat';
import { inActiveHours, isoTime, isScheduleTiddler, nextRunAfter, parseIsoTime, repeats, type Schedule } from './schedule';
import { ScheduleBook } from './schedule-book';
import { isPart } from '../store/chat-parts';

/** `schedule:<title>` or `heartbeat:<agent>`: what woke a chat (the user message's `agent-source`). */
export type WakeSource = string;
export const SCHEDULE_SOURCE = 'schedule:';

export interface SchedulerHost {
  /** The whole wiki (the scheduler writes schedule tiddlers' run fields and the heartbeat field of chats). */
  wiki: WikiPort;
  /** Whether the chat can take a woken turn now: no turn running or queued, not waiting for the user. */
  isFree(chat: string): boolean;
  /** Send `text` into the (free) chat as a user turn from `source`. */
  wake(chat: string, text: string, source: WakeSource): void;
  /** Make the writes so far durable before a chat is woken (the server's durable store). */
  persist?(): void;
  /**
   * Whether the agent `agent` may see `title` (runner/host passes the agent view's rule: schedules/
   * may not import tools/). A trigger never notes nor names a tiddler for which it says no; without it, none is named.
   */
  visible?(agent: string, title: string): boolean;
  clock?: Clock;
}

/** A timer never waits longer than this before looking again (and setTimeout's limit is ~24 days). */
const MAX_WAIT_MS = 6 * 3600_000;
const TIMING_FIELDS = [
  'agent-chat',
  'schedule-kind',
  'schedule-at',
  'schedule-interval',
  'schedule-cron',
  'schedule-timezone',
  'schedule-active-hours',
  'schedule-max-runs',
  'schedule-enabled',
];

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
  /** Titles whose change makes the scheduler look again: heartbeat agents, busy chats with a due run, chats a schedule waits to exist. */
  private watched = new Set<string>();
  private timer: unknown;
  private running = false;

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
   * The wiki changed (TiddlyWiki's change event, delivered after the writes): look again when
   * a schedule, a heartbeat agent or opted-in chat, or a watched chat changed. Messages, notes
   * and the rest cost a field lookup per title.
   */
  changed(titles: Iterable<string>): void {
    if (!this.running) return;
    let relevant = false;
    for (const title of titles) {
      const fields = this.host.wiki.getFields(title);
      const isSchedule = isScheduleTiddler(fields) && fields?.['draft.of'] === undefined;
      if (isSchedule || this.titles.has(title) || this.watched.has(title) || this.beats.has(title)) relevant = true;
      if (fields?.['agent-heartbeat'] === 'yes' || fields?.['agent-heartbeat-interval'] !== undefined) relevant = true;
      if (isSchedule) this.titles.add(title);
      else this.titles.delete(title);
    }
    if (relevant) this.sync();
  }

  /** Bring every next run up to date, run what is due, and set the timer for the earliest next run. */
  sync(): void {
    if (!this.running) return;
    const now = this.clock.now();
    let earliest = Infinity;
    this.watched = new Set();
    try {
      for (const title of [...this.titles]) {
        try {
          const next = this.syncSchedule(title, now);
          if (next !== undefined) earliest = Math.min(earliest, next);
        } catch (e) {
          // One broken schedule never stops the others (the panel shows its problem).
          console.warn(`TiddlyAgent: schedule "${title}": ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      for (const title of this.seen.keys()) if (!this.titles.has(title)) this.seen.delete(title);
      earliest = Math.min(earliest, this.syncHeartbeats(now));
    } finally {
      this.arm(earliest, now);
    }
  }

  /** One schedule: fresh next run when new or edited; run when due. Returns its next run. */
  private syncSchedule(title: string, now: number): number | undefined {
    const entry = this.book.entry(title);
    if (!entry.schedule) {
      this.seen.delete(title);
      // A schedule made before its chat: look again when the chat appears.
      const chat = this.host.wiki.getFields(title)?.['agent-chat'];
      if (chat) this.watched.add(chat);
      return undefined;
    }
    const schedule = entry.schedule;
    const fields = this.host.wiki.getFields(title)!;
    const timing = timingOf(fields);
    const known = this.seen.get(title);
    this.seen.set(title, timing);
    if (!schedule.enabled) return undefined;
    let next = schedule.nextRun;
    // A schedule seen for the first time keeps the next run it has (it was worked out before a restart).
    if (next === undefined || (known !== undefined && known !== timing)) {
      next = firstRun(schedule, now);
      this.writeSchedule(fields, {
        'schedule-next-run': next === undefined ? undefined : isoTime(next),
        'schedule-enabled': next === undefined ? 'no' : 'yes',
      });
    }
    if (next === undefined || next > now) return next;
    if (!this.host.isFree(schedule.chat)) {
      this.watched.add(schedule.chat);
      return undefined;
    }
    return this.run({ ...schedule, nextRun: next }, now);
  }

  /** A due schedule on a free chat: record the run, then wake the chat (a repeating run outside its active hours is skipped). */
  private run(schedule: Schedule, now: number): number | undefined {
    const runs = !repeats(schedule) || inActiveHours(schedule, now);
    const after: Schedule = runs ? { ...schedule, runCount: schedule.runCount + 1, lastRun: now } : schedule;
    const next = nextRunAfter(after, now);
    const fields = this.host.wiki.getFields(schedule.title)!;
    if (next === undefined && !repeats(schedule) && isPart('schedules', schedule.chat, schedule.title, fields)) {
      // A one-off alarm the agent set has done its work: it goes, so alarms do not pile up.
      this.host.wiki.deleteTiddler(schedule.title);
      this.titles.delete(schedule.title);
      this.seen.delete(schedule.title);
    } else {
      this.writeSchedule(fields, {
        'schedule-run-count': String(after.runCount),
        'schedule-last-run': after.lastRun === undefined ? undefined : isoTime(after.lastRun),
        'schedule-next-run': next === undefined ? undefined : isoTime(next),
        'schedule-enabled': next === undefined ? 'no' : 'yes',
      });
    }
    if (runs) this.wake(schedule.chat, schedule.message, `${SCHEDULE_SOURCE}${schedule.title}`);
    return next;
  }

  private syncHeartbeats(now: number): number {
    let earliest = Infinity;
    const live = new Set<string>();
    for (const entry of heartbeats(this.host.wiki)) {
      this.watched.add(entry.agent);
      if (!entry.schedule) continue;
      const { chat } = entry.schedule;
      live.add(chat);
      const timing = JSON.stringify([entry.agent, entry.schedule.interval, entry.schedule.activeHours?.text]);
      let beat = this.beats.get(chat);
      if (!beat || beat.timing !== timing) {
        // The next beat noted on the chat survives a restart or reload (a past one is due now, once).
        const noted = beat ? undefined : parseIsoTime(this.host.wiki.getFields(chat)?.[CHAT_HEARTBEAT_NEXT] ?? '');
        const fresh = nextRunAfter(entry.schedule, now);
        beat = { timing, next: noted !== undefined && fresh !== undefined && noted <= fresh ? noted : fresh };
        this.beats.set(chat, beat);
        this.noteHeartbeat(chat, beat.next);
      }
      if (beat.next !== undefined && beat.next <= now) {
        if (!this.host.isFree(chat)) {
          this.watched.add(chat);
          continue;
        }
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
      this.host.persist?.();
      this.host.wake(chat, text, source);
    } catch (e) {
      // The chat went away between the check and the wake: the run is recorded, the panel shows the problem.
      console.warn(`TiddlyAgent: could not wake "${chat}": ${e instanceof Error ? e.message : String(e)}`);
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
