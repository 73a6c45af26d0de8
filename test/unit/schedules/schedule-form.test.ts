// The Add schedule form's values made into a schedule tiddler: by the rules every schedule
// follows, each wrong value named by its reason (the form says it in the user's language),
// and a wall-clock time read in the schedule's time zone.
import { scheduleFormFields, wallTime } from '../../../src/agent/schedules/schedule-form';
import { ScheduleError } from '../../../src/agent/schedules/schedule';

const NOW = Date.UTC(2026, 10, 27, 10, 0, 0);
const make = (form: Record<string, string>) =>
  scheduleFormFields('$:/tiddlyagent/schedules/Chat/1', 'Chat', { message: 'Water the plants', ...form }, NOW, 'UTC');
const reason = (form: Record<string, string>) => {
  try {
    make(form);
  } catch (e) {
    if (e instanceof ScheduleError) return { reason: e.reason, values: e.values };
    throw e;
  }
  return undefined;
};

test('an interval schedule: the fields every schedule has, its first run ahead', () => {
  const fields = make({ kind: 'interval', interval: '3600', hours: '09:00-17:00', maxRuns: '5', caption: 'Plants' });
  expect(fields).toMatchObject({
    title: '$:/tiddlyagent/schedules/Chat/1',
    tags: '$:/tags/AI/Schedule',
    caption: 'Plants',
    'agent-chat': 'Chat',
    'schedule-kind': 'interval',
    'schedule-interval': '3600',
    'schedule-active-hours': '09:00-17:00',
    'schedule-max-runs': '5',
    'schedule-enabled': 'yes',
    'schedule-next-run': '2026-11-27T11:00:00.000Z',
  });
});

test('a time without a zone is read in the schedule time zone', () => {
  expect(make({ kind: 'at', at: '2026-12-01T09:00', timezone: 'Europe/Berlin' })['schedule-at']).toBe('2026-12-01T08:00:00.000Z');
  // Summer time in Berlin: two hours ahead of UTC.
  expect(wallTime('2027-07-01T09:00', 'Europe/Berlin')).toBe(Date.UTC(2027, 6, 1, 7, 0));
  expect(wallTime('2026-12-01T09:00:30', 'Asia/Shanghai')).toBe(Date.UTC(2026, 11, 1, 1, 0, 30));
  expect(wallTime('2026-12-01T09:00:00Z', 'Asia/Shanghai')).toBe(Date.UTC(2026, 11, 1, 9, 0));
  expect(wallTime('2026-02-30T09:00', 'UTC')).toBeUndefined();
  expect(wallTime('tomorrow', 'UTC')).toBeUndefined();
});

test('each wrong value is refused with its reason', () => {
  expect(reason({ kind: 'interval', interval: '30' })).toEqual({ reason: 'interval', values: { value: '30', min: '60' } });
  expect(reason({ kind: 'interval', interval: '' })?.reason).toBe('interval');
  expect(reason({ kind: 'cron', cron: 'every morning' })).toMatchObject({ reason: 'cron-invalid', values: { value: 'every morning' } });
  expect(reason({ kind: 'cron', cron: '*/10 * * * * *' })?.reason).toBe('cron-often');
  expect(reason({ kind: 'cron', cron: '' })?.reason).toBe('cron');
  expect(reason({ kind: 'at', at: '2026-11-27T09:59' })).toEqual({ reason: 'past', values: { value: '2026-11-27T09:59:00.000Z' } });
  expect(reason({ kind: 'at', at: '' })?.reason).toBe('at');
  expect(reason({ kind: 'interval', interval: '600', hours: '9-17' })).toEqual({ reason: 'hours', values: { value: '9-17' } });
  expect(reason({ kind: 'interval', interval: '600', timezone: 'Mars/Olympus' })).toEqual({ reason: 'timezone', values: { value: 'Mars/Olympus' } });
  expect(reason({ kind: 'interval', interval: '600', maxRuns: '0' })?.reason).toBe('max-runs');
  expect(reason({ kind: 'interval', interval: '600', message: ' ' })?.reason).toBe('message');
  expect(reason({ kind: 'weekly' })?.reason).toBe('kind');
  expect(reason({ kind: 'interval', interval: '600' })).toBeUndefined();
});
