/*\
The schedule tools: `alarm-clock` (wake this chat once, later, with a message; ends the
turn), `schedule-task` (at / interval / cron, time zone, active hours, max runs),
`list-schedules` and `remove-schedule`. They work on the calling chat's schedules only
(schedules/schedule-book.ts), and never from a sub-agent's hidden chat. Anything that could
not run (a bad cron expression, an unknown time zone, a time in the past, an interval under
60 s, active hours that do not parse, too many schedules) is a tool error and nothing is
scheduled.

A schedule brings the model's own words back as a turn nobody watches, so: `schedule-task`
(anything that repeats) needs the user's confirmation by default; an alarm is a one-off; a
turn that a schedule started cannot set an alarm less than a minute ahead (no tight loop of
alarms); and `remove-schedule` removes only schedules the agent made, never the user's.
\*/
import * as z from 'zod/mini';
import { isoTime, parseIsoTime, ScheduleError, type Schedule } from '../schedules/schedule';
import { MAX_SCHEDULES_PER_CHAT, type NewSchedule } from '../schedules/schedule-book';
import { defineTool, type ToolContext, type ToolOutput } from './tool';

const when = z.string().check(z.describe('Date and time in ISO 8601 with a time zone offset, e.g. 2026-12-01T09:00:00+01:00 or 2026-12-01T08:00:00Z'));
const message = z.string().check(z.minLength(1), z.maxLength(10_000), z.describe('What the chat receives when it wakes: the instruction for your future self'));

const DEFAULT_ALARM = 'Alarm: continue the task you set this alarm for.';
/** How far ahead an alarm set by a woken turn must be. */
const MIN_LEAD_WHEN_WOKEN_MS = 60_000;

/** Run `work`, turning a ScheduleError into a tool error (nothing scheduled). */
function scheduling(context: ToolContext, work: () => ToolOutput): ToolOutput {
  if (context.schedules.isSubAgentChat(context.chat))
    return { ok: false, content: 'A sub-agent cannot set alarms or schedules; report back to the parent chat instead.' };
  try {
    return work();
  } catch (e) {
    if (e instanceof ScheduleError) return { ok: false, content: `Nothing was scheduled: ${e.message}` };
    throw e;
  }
}

function describeSchedule(s: Schedule): string {
  const timing =
    s.kind === 'at'
      ? `at ${s.at !== undefined ? isoTime(s.at) : '?'}${s.interval ? `, then every ${s.interval} s` : ''}`
      : s.kind === 'interval'
        ? `every ${s.interval} s`
        : `cron "${s.cron}"${s.timezone ? ` (${s.timezone})` : ''}`;
  const parts = [
    `- id: ${s.title}`,
    `  ${timing}${s.activeHours ? `, active ${s.activeHours.text}` : ''}${s.maxRuns !== undefined ? `, at most ${s.maxRuns} runs` : ''}`,
    `  ${s.enabled ? `next run: ${s.nextRun !== undefined ? isoTime(s.nextRun) : 'none'}` : 'paused or finished'}; runs so far: ${s.runCount}`,
    `  message: ${JSON.stringify(s.message)}`,
  ];
  return parts.join('\n');
}

function created(s: Schedule, what: string): string {
  return `${what} (id ${s.title}). Next run: ${s.nextRun !== undefined ? isoTime(s.nextRun) : 'none'}. The chat receives: ${JSON.stringify(s.message)}`;
}

export const alarmClockTool = defineTool({
  name: 'alarm-clock',
  description:
    'Wake this chat once, later: at the given time (or after delaySeconds) the message arrives here as a new turn. Ends the current turn, so call it last, once the work for now is done. For anything that repeats, use schedule-task.',
  parameters: z.strictObject({
    at: z.optional(when),
    delaySeconds: z.optional(z.number().check(z.int(), z.positive(), z.describe('Instead of "at": wake after this many seconds'))),
    message: z.optional(message),
  }),
  access: 'control',
  defaultMode: 'auto',
  execute: (args, context) =>
    scheduling(context, () => {
      const now = context.now();
      const at = args.at !== undefined ? parseIsoTime(args.at) : args.delaySeconds !== undefined ? now + args.delaySeconds * 1000 : undefined;
      if (args.at !== undefined && at === undefined)
        throw new ScheduleError(`"${args.at}" is not a date and time in ISO 8601 with a time zone (e.g. 2026-12-01T09:00:00Z).`);
      if (at === undefined) throw new ScheduleError('Give the time to wake, as "at" or "delaySeconds".');
      if (context.schedules.isWokenTurn(context.turn) && at < now + MIN_LEAD_WHEN_WOKEN_MS)
        throw new ScheduleError(`This turn was started by a schedule: an alarm from it must be at least ${MIN_LEAD_WHEN_WOKEN_MS / 1000} s ahead.`);
      const schedule = context.schedules.create(context.chat, { kind: 'at', at, message: args.message?.trim() || DEFAULT_ALARM, caption: 'Alarm' }, now);
      return {
        content: `Alarm set for ${isoTime(schedule.nextRun!)}: this chat wakes then with ${JSON.stringify(schedule.message)}. The turn ends here.`,
        control: { type: 'end-turn' },
      };
    }),
});

export const scheduleTaskTool = defineTool({
  name: 'schedule-task',
  description: `Schedule a recurring or one-off task for this chat: kind "at" (once at a time, optionally repeating every intervalSeconds), "interval" (every intervalSeconds, at least 60) or "cron" (a cron expression in an IANA time zone). activeHours ("HH:MM-HH:MM", overnight like 22:00-06:00 allowed) limit repeating runs; maxRuns ends it. At most ${MAX_SCHEDULES_PER_CHAT} active schedules per chat. The user confirms it.`,
  parameters: z.strictObject({
    kind: z.enum(['at', 'interval', 'cron']),
    message,
    at: z.optional(when),
    intervalSeconds: z.optional(z.number().check(z.int(), z.describe('Seconds between runs, at least 60'))),
    cron: z.optional(
      z.string().check(z.describe('Cron expression: minute hour day-of-month month day-of-week (an optional seconds field first), e.g. "0 9 * * 1-5"')),
    ),
    timezone: z.optional(z.string().check(z.describe('IANA time zone of the cron expression and the active hours, e.g. Europe/Berlin'))),
    activeHours: z.optional(z.string().check(z.describe('Only run between these hours, "HH:MM-HH:MM"'))),
    maxRuns: z.optional(z.number().check(z.int(), z.positive())),
    name: z.optional(z.string().check(z.maxLength(200), z.describe('A short name for the user'))),
  }),
  access: 'control',
  defaultMode: 'confirm',
  execute: (args, context) =>
    scheduling(context, () => {
      const spec: NewSchedule = {
        kind: args.kind,
        message: args.message.trim(),
        interval: args.intervalSeconds,
        cron: args.cron?.trim(),
        timezone: args.timezone?.trim() || undefined,
        activeHours: args.activeHours?.trim() || undefined,
        maxRuns: args.maxRuns,
        caption: args.name,
      };
      if (args.kind === 'at') {
        if (!args.at) throw new ScheduleError('kind "at" needs "at", the time to run.');
        spec.at = parseIsoTime(args.at);
        if (spec.at === undefined) throw new ScheduleError(`"${args.at}" is not a date and time in ISO 8601 with a time zone (e.g. 2026-12-01T09:00:00Z).`);
      }
      if (args.kind === 'interval' && spec.interval === undefined) throw new ScheduleError('kind "interval" needs "intervalSeconds" (at least 60).');
      if (args.kind === 'cron' && !spec.cron) throw new ScheduleError('kind "cron" needs "cron", e.g. "0 9 * * 1-5".');
      return { content: created(context.schedules.create(context.chat, spec, context.now()), 'Scheduled') };
    }),
});

export const listSchedulesTool = defineTool({
  name: 'list-schedules',
  description: "List this chat's schedules and alarms: id, timing, next run, runs so far, message.",
  parameters: z.strictObject({}),
  access: 'control',
  defaultMode: 'auto',
  execute: (_args, context) => {
    const schedules = context.schedules.forChat(context.chat);
    return {
      content: schedules.length
        ? `This chat has ${schedules.length} schedule(s):\n${schedules.map(describeSchedule).join('\n')}`
        : 'This chat has no schedules.',
    };
  },
});

export const removeScheduleTool = defineTool({
  name: 'remove-schedule',
  description:
    "Remove one of this chat's schedules or alarms that you made, by its id (from list-schedules). Schedules the user made are the user's to change.",
  parameters: z.strictObject({ id: z.string().check(z.minLength(1)) }),
  access: 'control',
  defaultMode: 'auto',
  execute: (args, context) =>
    scheduling(context, () => {
      context.schedules.remove(context.chat, args.id.trim());
      return { content: `Removed the schedule ${args.id.trim()}.` };
    }),
});

export const SCHEDULE_TOOLS = [alarmClockTool, scheduleTaskTool, listSchedulesTool, removeScheduleTool];
