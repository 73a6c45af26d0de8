// Next-run computation on an injected clock: kinds, time zones, a DST change, active hours
// (overnight too), max runs, and every way a schedule tiddler can be invalid.
import { inActiveHours, nextRunAfter, parseActiveHours, parseSchedule, ScheduleError, type Schedule } from '../../../src/agent/schedules/schedule';

const t = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function schedule(fields: Record<string, string>): Schedule {
  return parseSchedule({ title: 'S', 'agent-chat': 'Chat', 'schedule-message': 'Wake up', ...fields });
}

describe('next run', () => {
  test('a one-off "at" runs once at its time, and never after it', () => {
    const s = schedule({ 'schedule-kind': 'at', 'schedule-at': '2026-12-01T09:00:00Z' });
    expect(iso(nextRunAfter(s, t('2026-11-30T00:00:00Z')))).toBe('2026-12-01T09:00:00.000Z');
    expect(nextRunAfter(s, t('2026-12-01T09:00:00Z'))).toBeUndefined();
  });

  test('a repeating "at" steps on from its first time, skipping the missed ones', () => {
    const s = schedule({ 'schedule-kind': 'at', 'schedule-at': '2026-12-01T09:00:00Z', 'schedule-interval': '3600' });
    expect(iso(nextRunAfter(s, t('2026-12-01T11:30:00Z')))).toBe('2026-12-01T12:00:00.000Z');
  });

  test('an interval counts from the last run, or from now when the last run is long gone', () => {
    const s = schedule({ 'schedule-kind': 'interval', 'schedule-interval': '600', 'schedule-last-run': '2026-12-01T09:00:00Z' });
    expect(iso(nextRunAfter(s, t('2026-12-01T09:01:00Z')))).toBe('2026-12-01T09:10:00.000Z');
    expect(iso(nextRunAfter(s, t('2026-12-02T00:00:00Z')))).toBe('2026-12-02T00:10:00.000Z');
  });

  test('cron runs in its own time zone', () => {
    const s = schedule({ 'schedule-kind': 'cron', 'schedule-cron': '0 9 * * *', 'schedule-timezone': 'Asia/Tokyo' });
    // 09:00 in Tokyo is 00:00 UTC.
    expect(iso(nextRunAfter(s, t('2026-12-01T01:00:00Z')))).toBe('2026-12-02T00:00:00.000Z');
  });

  test('cron keeps its local time across a DST change (Europe/Berlin, 2026-03-29)', () => {
    const s = schedule({ 'schedule-kind': 'cron', 'schedule-cron': '0 9 * * *', 'schedule-timezone': 'Europe/Berlin' });
    expect(iso(nextRunAfter(s, t('2026-03-28T09:00:00Z')))).toBe('2026-03-29T07:00:00.000Z'); // CEST: UTC+2
    expect(iso(nextRunAfter(s, t('2026-03-27T09:00:00Z')))).toBe('2026-03-28T08:00:00.000Z'); // CET: UTC+1
  });

  test('a cron run outside the active hours is skipped for the next one inside them', () => {
    const s = schedule({ 'schedule-kind': 'cron', 'schedule-cron': '0 * * * *', 'schedule-timezone': 'UTC', 'schedule-active-hours': '09:00-17:00' });
    expect(iso(nextRunAfter(s, t('2026-12-01T16:30:00Z')))).toBe('2026-12-02T09:00:00.000Z');
    expect(iso(nextRunAfter(s, t('2026-12-01T10:30:00Z')))).toBe('2026-12-01T11:00:00.000Z');
  });

  test('an interval that leaves overnight active hours resumes when they open again', () => {
    const s = schedule({ 'schedule-kind': 'interval', 'schedule-interval': '3600', 'schedule-timezone': 'UTC', 'schedule-active-hours': '22:00-06:00' });
    expect(iso(nextRunAfter(s, t('2026-12-01T23:10:00Z')))).toBe('2026-12-02T00:10:00.000Z');
    expect(iso(nextRunAfter(s, t('2026-12-02T05:30:00Z')))).toBe('2026-12-02T22:00:00.000Z');
  });

  test('active hours are read in the schedule time zone', () => {
    const hours = { activeHours: parseActiveHours('09:00-17:00'), timezone: 'America/New_York' };
    expect(inActiveHours(hours, t('2026-12-01T15:00:00Z'))).toBe(true); // 10:00 in New York
    expect(inActiveHours(hours, t('2026-12-01T23:00:00Z'))).toBe(false); // 18:00 in New York
  });

  test('max runs end the schedule', () => {
    const s = schedule({ 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-max-runs': '3', 'schedule-run-count': '3' });
    expect(nextRunAfter(s, t('2026-12-01T00:00:00Z'))).toBeUndefined();
    expect(nextRunAfter({ ...s, runCount: 2 }, t('2026-12-01T00:00:00Z'))).toBe(t('2026-12-01T00:01:00Z'));
  });
});

describe('an invalid schedule says what to fix', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['an invalid cron expression', { 'schedule-kind': 'cron', 'schedule-cron': '61 * * * *' }, /not a valid cron expression/],
    ['an unknown time zone', { 'schedule-kind': 'cron', 'schedule-cron': '0 9 * * *', 'schedule-timezone': 'Mars/Olympus' }, /not a known time zone/],
    ['an interval under 60 s', { 'schedule-kind': 'interval', 'schedule-interval': '30' }, /at least 60/],
    ['active hours that do not parse', { 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-active-hours': '9 to 5' }, /do not parse/],
    ['active hours out of range', { 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-active-hours': '25:00-26:00' }, /do not parse/],
    ['an "at" without a zone', { 'schedule-kind': 'at', 'schedule-at': '2026-12-01T09:00' }, /ISO 8601/],
    ['an unknown kind', { 'schedule-kind': 'weekly' }, /schedule-kind/],
    ['a bad enabled flag', { 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-enabled': 'maybe' }, /yes or no/],
  ];
  test.each(cases)('%s', (_name, fields, message) => {
    expect(() => schedule(fields)).toThrow(ScheduleError);
    expect(() => schedule(fields)).toThrow(message);
  });

  test('no chat, no message', () => {
    expect(() => parseSchedule({ title: 'S', 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-message': 'x' })).toThrow(/agent-chat/);
    expect(() => parseSchedule({ title: 'S', 'agent-chat': 'C', 'schedule-kind': 'interval', 'schedule-interval': '60' })).toThrow(/schedule-message/);
  });
});

test('a cron expression that runs more often than once a minute is refused', () => {
  expect(() => schedule({ 'schedule-kind': 'cron', 'schedule-cron': '*/10 * * * * *' })).toThrow(/more often than once a minute/);
  expect(() => schedule({ 'schedule-kind': 'cron', 'schedule-cron': '* 9 * * *' })).not.toThrow();
});
