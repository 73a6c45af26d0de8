/*\
A schedule (DESIGN 4): a tiddler tagged `$:/tags/AI/Schedule` that wakes a chat with a
message. This module reads one from its fields (or says exactly what is wrong with it) and
works out when it runs next. Kinds:
- `at`: once at `schedule-at`; with `schedule-interval`, again every that many seconds;
- `interval`: every `schedule-interval` seconds (at least 60) after the last run;
- `cron`: a cron expression (croner, seconds optional) in `schedule-timezone` (IANA).
`schedule-active-hours` (`HH:MM-HH:MM`, in the schedule's time zone, overnight ranges such
as 22:00-06:00 too) limits repeating runs; a one-off `at` runs when it was set for.
Pure: time is always passed in (milliseconds since 1970), never read here.
\*/
import { Cron } from 'croner';
import { MIN_HEARTBEAT_SECONDS, parseActiveHours as parseHours } from '../store/schemas';
import { SCHEDULE_TAG } from '../store/tags';
import { parseTitleList, type TiddlerFields } from '../store/wiki-port';

export { SCHEDULE_TAG };
export const SCHEDULE_KINDS = ['at', 'interval', 'cron'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
/** Schedules and heartbeats run at most once a minute. */
export const MIN_INTERVAL_SECONDS = MIN_HEARTBEAT_SECONDS;
const MAX_MESSAGE_CHARS = 10_000;

export interface ActiveHours {
  /** Minutes after midnight, in the schedule's time zone. */
  start: number;
  end: number;
  text: string;
}

export interface Schedule {
  title: string;
  chat: string;
  kind: ScheduleKind;
  /** `at`: when (ms). */
  at?: number;
  /** Seconds: `interval`, or the repeat of an `at`. */
  interval?: number;
  cron?: string;
  /** IANA name; absent: the host's own time zone. */
  timezone?: string;
  activeHours?: ActiveHours;
  message: string;
  maxRuns?: number;
  runCount: number;
  lastRun?: number;
  nextRun?: number;
  enabled: boolean;
}

/**
 * A schedule that cannot run, with a message that says how to fix it. `reason` names the rule
 * it breaks (the Add schedule form says it in the user's language: Schedule/Error/<reason>),
 * `values` what fills the message in.
 */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
  constructor(
    message: string,
    readonly reason = 'other',
    readonly values: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function isScheduleTiddler(fields: TiddlerFields | undefined): boolean {
  return !!fields && parseTitleList(fields.tags).includes(SCHEDULE_TAG);
}

/** Read a schedule from its tiddler's fields; throws a ScheduleError naming the field to fix. */
export function parseSchedule(fields: TiddlerFields): Schedule {
  const get = (name: string) => fields[name]?.trim() || undefined;
  const chat = get('agent-chat');
  if (!chat) throw new ScheduleError('"agent-chat" must name the chat this schedule wakes.', 'chat');
  const kind = get('schedule-kind');
  if (!kind || !(SCHEDULE_KINDS as readonly string[]).includes(kind))
    throw new ScheduleError(`"schedule-kind" must be one of: ${SCHEDULE_KINDS.join(', ')} (it is "${kind ?? ''}").`, 'kind');
  const message = get('schedule-message');
  if (!message) throw new ScheduleError('"schedule-message" must say what the schedule sends to the chat.', 'message');
  if (message.length > MAX_MESSAGE_CHARS)
    throw new ScheduleError(`"schedule-message" is longer than ${MAX_MESSAGE_CHARS} characters.`, 'message-long', { max: String(MAX_MESSAGE_CHARS) });
  const enabled = (get('schedule-enabled') ?? 'yes').toLowerCase();
  if (enabled !== 'yes' && enabled !== 'no') throw new ScheduleError(`"schedule-enabled" must be yes or no (it is "${enabled}").`);
  const timezone = get('schedule-timezone');
  if (timezone) checkTimeZone(timezone);
  const schedule: Schedule = {
    title: fields.title ?? '',
    chat,
    kind: kind as ScheduleKind,
    message,
    timezone,
    enabled: enabled === 'yes',
    runCount: wholeNumber(fields, 'schedule-run-count', 0) ?? 0,
    maxRuns: wholeNumber(fields, 'schedule-max-runs', 1),
    lastRun: instant(fields, 'schedule-last-run'),
    nextRun: instant(fields, 'schedule-next-run'),
    activeHours: get('schedule-active-hours') ? parseActiveHours(get('schedule-active-hours')!) : undefined,
  };
  const interval = wholeNumber(fields, 'schedule-interval', MIN_INTERVAL_SECONDS);
  if (schedule.kind === 'at') {
    schedule.at = instant(fields, 'schedule-at');
    if (schedule.at === undefined) throw new ScheduleError('"schedule-at" must be a date and time in ISO 8601, such as 2026-12-01T09:00:00Z.', 'at');
    schedule.interval = interval;
  } else if (schedule.kind === 'interval') {
    if (interval === undefined)
      throw new ScheduleError(`"schedule-interval" must be a number of seconds, at least ${MIN_INTERVAL_SECONDS}.`, 'interval', {
        min: String(MIN_INTERVAL_SECONDS),
      });
    schedule.interval = interval;
  } else {
    const cron = get('schedule-cron');
    if (!cron) throw new ScheduleError('"schedule-cron" must hold a cron expression, such as "0 9 * * 1-5" (09:00 on weekdays).', 'cron');
    schedule.cron = cron;
    cronOf(schedule);
  }
  return schedule;
}

/** Whether the schedule repeats (active hours apply only to repeating runs). */
export function repeats(schedule: Schedule): boolean {
  return schedule.kind !== 'at' || schedule.interval !== undefined;
}

/** Whether it has run as often as it may. */
export function finished(schedule: Schedule): boolean {
  return schedule.maxRuns !== undefined && schedule.runCount >= schedule.maxRuns;
}

/**
 * When the schedule runs next after `after` (ms), or undefined when it never runs again.
 * `interval` counts from the last run when there was one (from `after` otherwise); every
 * repeating run falls inside the active hours.
 */
export function nextRunAfter(schedule: Schedule, after: number): number | undefined {
  if (finished(schedule)) return undefined;
  if (schedule.kind === 'at') {
    const at = schedule.at!;
    if (schedule.interval === undefined) return at > after ? at : undefined;
    const step = schedule.interval * 1000;
    const first = at > after ? at : at + Math.ceil((after - at + 1) / step) * step;
    return intoActiveHours(schedule, first, (t) => t + step);
  }
  if (schedule.kind === 'interval') {
    const step = schedule.interval! * 1000;
    const from = schedule.lastRun !== undefined && schedule.lastRun + step > after ? schedule.lastRun : after;
    return intoActiveHours(schedule, from + step, (t) => t + step);
  }
  const cron = cronOf(schedule);
  const next = (t: number) => cron.nextRun(new Date(t))?.getTime();
  const first = next(after);
  return first === undefined ? undefined : intoActiveHours(schedule, first, next);
}

/** Whether a moment is inside the schedule's active hours (always, without them). */
export function inActiveHours(schedule: Pick<Schedule, 'activeHours' | 'timezone'>, time: number): boolean {
  const hours = schedule.activeHours;
  if (!hours) return true;
  const minute = minuteOfDay(time, schedule.timezone);
  return hours.start < hours.end ? minute >= hours.start && minute < hours.end : minute >= hours.start || minute < hours.end;
}

/** `HH:MM-HH:MM` (store/schemas.ts); the end is exclusive; a start after the end runs overnight. */
export function parseActiveHours(text: string): ActiveHours {
  const hours = parseHours(text);
  if (!hours)
    throw new ScheduleError(
      `The active hours "${text}" do not parse: write them as HH:MM-HH:MM with different start and end, such as 09:00-17:00 or 22:00-06:00.`,
      'hours',
      { value: text },
    );
  return { ...hours, text: text.trim() };
}

/** Zones already checked: a schedule is read again on every wiki change. */
const knownZones = new Set<string>();

/** Throws a ScheduleError unless `zone` is an IANA time zone this host knows. */
export function checkTimeZone(zone: string): void {
  if (knownZones.has(zone)) return;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
  } catch {
    throw new ScheduleError(`"${zone}" is not a known time zone: use an IANA name such as Europe/Berlin, America/New_York or UTC.`, 'timezone', {
      value: zone,
    });
  }
  knownZones.add(zone);
}

/** A date and time in ISO 8601 (as the schedule fields store them). */
export function isoTime(time: number): string {
  return new Date(time).toISOString();
}

/** ISO 8601 with a zone designator (Z or ±HH:MM); a bare local time would depend on the host. */
export function parseIsoTime(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim())) return undefined;
  const time = Date.parse(text.trim());
  return Number.isFinite(time) ? time : undefined;
}

// ---- helpers ---------------------------------------------------------------------------------

/** Where the cron gap check starts looking (any fixed moment: a pattern's fastest pace shows from any start). */
const GAP_REFERENCE = Date.UTC(2026, 0, 5);

/** Searching for a run inside the active hours gives up after this many candidates (a year of hourly runs). */
const MAX_CANDIDATES = 10_000;

function intoActiveHours(schedule: Schedule, first: number, next: (t: number) => number | undefined): number | undefined {
  let candidate: number | undefined = first;
  for (let i = 0; candidate !== undefined && i < MAX_CANDIDATES; i++) {
    if (inActiveHours(schedule, candidate)) return candidate;
    // An interval that leaves the window resumes when the window opens again.
    candidate = schedule.kind === 'cron' ? next(candidate) : Math.max(next(candidate)!, windowOpensAfter(schedule, candidate));
  }
  return undefined;
}

/** The next moment the active hours begin after `time` (croner knows the time zone's DST rules). */
function windowOpensAfter(schedule: Schedule, time: number): number {
  const start = schedule.activeHours!.start;
  const opens = new Cron(`0 ${start % 60} ${Math.floor(start / 60)} * * *`, { timezone: schedule.timezone, paused: true }).nextRun(new Date(time));
  return opens ? opens.getTime() : time;
}

/** Checked cron patterns by time zone and expression (a schedule is read again on every wiki change). */
const cronCache = new Map<string, Cron>();

/** The schedule's cron pattern, checked: it parses, and two runs are at least a minute apart. */
function cronOf(schedule: Schedule): Cron {
  const key = `${schedule.timezone ?? ''}\u0000${schedule.cron}`;
  let cron = cronCache.get(key);
  if (!cron) {
    try {
      cron = new Cron(schedule.cron!, { timezone: schedule.timezone, paused: true });
    } catch (e) {
      throw new ScheduleError(
        `"${schedule.cron}" is not a valid cron expression (${e instanceof Error ? e.message : String(e)}); write e.g. "0 9 * * 1-5" for 09:00 on weekdays.`,
        'cron-invalid',
        { value: schedule.cron! },
      );
    }
    // No schedule runs more often than an interval may.
    const [first, second] = cron.nextRuns(2, new Date(GAP_REFERENCE));
    if (first && second && second.getTime() - first.getTime() < MIN_INTERVAL_SECONDS * 1000)
      throw new ScheduleError(`"${schedule.cron}" runs more often than once a minute; schedules run at most every ${MIN_INTERVAL_SECONDS} s.`, 'cron-often', {
        value: schedule.cron!,
        min: String(MIN_INTERVAL_SECONDS),
      });
    if (cronCache.size > 500) cronCache.clear();
    cronCache.set(key, cron);
  }
  return cron;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function minuteOfDay(time: number, zone: string | undefined): number {
  const key = zone ?? '';
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(key, format);
  }
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(new Date(time))) {
    if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return hour * 60 + minute;
}

/** The reason a whole-number field names when it is wrong. */
const NUMBER_REASONS: Record<string, string> = { 'schedule-interval': 'interval', 'schedule-max-runs': 'max-runs' };

function wholeNumber(fields: TiddlerFields, name: string, min: number): number | undefined {
  const text = fields[name]?.trim();
  if (!text) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min)
    throw new ScheduleError(`"${name}" must be a whole number of at least ${min} (it is "${text}").`, NUMBER_REASONS[name] ?? 'number', {
      value: text,
      min: String(min),
    });
  return Number(text);
}

function instant(fields: TiddlerFields, name: string): number | undefined {
  const text = fields[name]?.trim();
  if (!text) return undefined;
  const time = parseIsoTime(text);
  if (time === undefined)
    throw new ScheduleError(
      `"${name}" must be a date and time in ISO 8601 with a time zone, such as 2026-12-01T09:00:00Z (it is "${text}").`,
      name === 'schedule-at' ? 'at' : 'other',
      {
        value: text,
      },
    );
  return time;
}
