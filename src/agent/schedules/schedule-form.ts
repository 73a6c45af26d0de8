/*\
The Add schedule form's values (text, as the user typed them) made into a new schedule
tiddler's fields, by the same rules as every schedule (schedule-book.ts newScheduleFields,
schedule.ts parseSchedule): nothing is checked here that those do not check, except that the
text of a number or a date reads as one. A wrong value throws a ScheduleError whose reason
the form says in the user's language.
The date may be a wall-clock time without a zone (what a datetime-local field gives), read in
the schedule's time zone, else in `localZone` (the browser's).
Pure: time is passed in.
\*/
import type { TiddlerFields } from '../store/wiki-port';
import { ScheduleError, checkTimeZone, parseIsoTime, type ScheduleKind } from './schedule';
import { newScheduleFields } from './schedule-book';

export interface ScheduleForm {
  kind?: string;
  at?: string;
  interval?: string;
  cron?: string;
  timezone?: string;
  hours?: string;
  message?: string;
  maxRuns?: string;
  caption?: string;
}

/** The new schedule's fields (title `title`, waking `chat`); throws a ScheduleError when it could not run. */
export function scheduleFormFields(title: string, chat: string, form: ScheduleForm, now: number, localZone?: string): TiddlerFields {
  const text = (value: string | undefined) => value?.trim() || undefined;
  const kind = text(form.kind) ?? '';
  const timezone = text(form.timezone);
  if (timezone) checkTimeZone(timezone);
  const number = (value: string | undefined) => (text(value) === undefined ? undefined : Number(text(value)));
  let at: number | undefined;
  if (kind === 'at') {
    const when = text(form.at);
    at = when === undefined ? undefined : wallTime(when, timezone ?? localZone);
    if (at === undefined) throw new ScheduleError(`"${when ?? ''}" is not a date and time.`, 'at', { value: when ?? '' });
  }
  return newScheduleFields(
    title,
    chat,
    {
      kind: kind as ScheduleKind,
      message: form.message?.trim() ?? '',
      at,
      interval: kind === 'interval' ? number(form.interval) : undefined,
      cron: kind === 'cron' ? text(form.cron) : undefined,
      timezone,
      activeHours: text(form.hours),
      maxRuns: number(form.maxRuns),
      caption: text(form.caption),
    },
    now,
  );
}

/**
 * A date and time: ISO 8601 with a zone as it is, or a wall-clock time (`YYYY-MM-DDTHH:MM`,
 * seconds optional) in `zone` (the host's when undefined); undefined when it is neither.
 */
export function wallTime(value: string, zone: string | undefined): number | undefined {
  const exact = parseIsoTime(value);
  if (exact !== undefined) return exact;
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map((n) => Number(n ?? 0)) as [number, number, number, number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  // The zone's offset at the guessed instant, then again at the corrected one (a DST change between them).
  const first = wall - offsetAt(wall, zone);
  return wall - offsetAt(first, zone);
}

/** How far the wall clock of `zone` is ahead of UTC at `time` (ms). */
function offsetAt(time: number, zone: string | undefined): number {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(new Date(time))) if (p.type !== 'literal') part[p.type] = Number(p.value);
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(time / 1000) * 1000;
}
