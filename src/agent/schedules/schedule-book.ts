/*\
ScheduleBook: the schedules of a wiki as tiddlers. It finds them, says what is wrong with one
(the background panel shows it, the scheduler skips it), and creates and removes them for
the schedule tools, always for one chat: the model schedules its own chat, never another.
Tool-made schedules live under `$:/ai/schedules/`, hidden from the model's view of the wiki;
a user may tag any tiddler `$:/tags/AI/Schedule`.
\*/
import { parseTitleList, type TiddlerFields, type WikiPort } from '../store/wiki-port';
import { isPart, SCHEDULE_PREFIX } from '../store/chat-parts';
import { isUnlistedChat } from '../store/listed-chats';
import { checkTimeZone, finished, isoTime, nextRunAfter, parseActiveHours, parseSchedule, SCHEDULE_TAG, ScheduleError, type Schedule } from './schedule';

/** Enabled schedules one chat may have (the tools refuse more). */
export const MAX_SCHEDULES_PER_CHAT = 10;
/** The fields the scheduler keeps up to date (a browser's stale copy must not put back old values). */
export const SCHEDULER_FIELDS = ['schedule-run-count', 'schedule-last-run', 'schedule-next-run'];

export type ScheduleEntry = { title: string; schedule: Schedule; problem?: undefined } | { title: string; schedule?: undefined; problem: string };

export interface NewSchedule {
  kind: Schedule['kind'];
  message: string;
  /** `at`: ISO 8601 with a zone. */
  at?: number;
  interval?: number;
  cron?: string;
  timezone?: string;
  activeHours?: string;
  maxRuns?: number;
  /** Shown in the background panel. */
  caption?: string;
}

export class ScheduleBook {
  constructor(private readonly wiki: WikiPort) {}

  /** Titles of every schedule tiddler (not drafts). */
  titles(): string[] {
    return this.wiki.filter('[all[tiddlers]tag[$:/tags/AI/Schedule]!has[draft.of]]');
  }

  entry(title: string): ScheduleEntry {
    const fields = this.wiki.getFields(title);
    if (!fields) return { title, problem: `"${title}" does not exist.` };
    try {
      const schedule = parseSchedule(fields);
      const chat = this.wiki.getFields(schedule.chat);
      if (!chat?.agent) return { title, problem: `The chat "${schedule.chat}" does not exist (any more).` };
      if (this.isSubAgentChat(schedule.chat)) return { title, problem: `"${schedule.chat}" is a sub-agent's chat; schedules wake only the user's own chats.` };
      return { title, schedule };
    } catch (e) {
      return { title, problem: e instanceof ScheduleError ? e.message : `It cannot be read: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Whether `chat` is a sub-agent's hidden chat (it cannot be woken, so it cannot schedule). */
  isSubAgentChat(chat: string): boolean {
    return isUnlistedChat(this.wiki.getFields(chat));
  }

  /** What is wrong with a schedule tiddler, or '' when it can run. */
  problem(title: string): string {
    return this.entry(title).problem ?? '';
  }

  /** The schedules of one chat (those that parse). */
  forChat(chat: string): Schedule[] {
    return (
      this.wiki
        // The field index first: the tag index is rebuilt after every change of the wiki.
        .filter('[field:agent-chat<chat>tag[$:/tags/AI/Schedule]!has[draft.of]]', { chat })
        .map((title) => this.entry(title).schedule)
        .filter((s): s is Schedule => !!s)
    );
  }

  /** Create a schedule for `chat`, checked first; throws a ScheduleError and writes nothing when it cannot run. */
  create(chat: string, spec: NewSchedule, now: number): Schedule {
    const active = this.forChat(chat).filter((s) => s.enabled && !finished(s));
    if (active.length >= MAX_SCHEDULES_PER_CHAT)
      throw new ScheduleError(
        `This chat already has ${active.length} active schedules, the most one chat may have (${MAX_SCHEDULES_PER_CHAT}). Remove one first (list-schedules, remove-schedule).`,
      );
    const title = `${SCHEDULE_PREFIX}${chat}/${now.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const fields = newScheduleFields(title, chat, spec, now);
    this.wiki.putTiddler(fields);
    return { ...parseSchedule(fields), nextRun: Date.parse(fields['schedule-next-run']!) };
  }

  /**
   * Remove one of the schedules the agent made for `chat` (`$:/ai/schedules/<chat>/…`); throws
   * a ScheduleError when it is not one of them. The user's own schedule tiddlers are theirs.
   */
  remove(chat: string, title: string): void {
    const fields = this.wiki.getFields(title);
    // Another chat's schedule is "not found", like one that does not exist: nothing about it leaks.
    if (!fields || fields['agent-chat'] !== chat || !parseTitleList(fields.tags).includes(SCHEDULE_TAG))
      throw new ScheduleError(`This chat has no schedule "${title}". Use list-schedules to see its schedules.`);
    if (!isPart('schedules', chat, title, fields))
      throw new ScheduleError(`"${title}" is a schedule the user made; only the user changes it (in the Background tab).`);
    this.wiki.deleteTiddler(title);
  }

  /** Whether the turn that started with this user message was sent by a schedule or heartbeat. */
  isWokenTurn(turn: string): boolean {
    return !!this.wiki.getFields(turn)?.['agent-source'];
  }
}

/**
 * The fields of a new schedule tiddler `title` that wakes `chat`, checked by the rules every
 * schedule follows (parseSchedule) and started with its first run; throws a ScheduleError
 * (with its reason) when it could not run: a time that is not in the future, a run that
 * never falls inside its active hours. The schedule tools and the Add schedule form use it.
 */
export function newScheduleFields(title: string, chat: string, spec: NewSchedule, now: number): TiddlerFields {
  if (spec.timezone) checkTimeZone(spec.timezone);
  if (spec.activeHours) parseActiveHours(spec.activeHours);
  if (spec.kind === 'at' && (spec.at === undefined || spec.at <= now))
    throw new ScheduleError(`The time ${spec.at === undefined ? '(none)' : isoTime(spec.at)} is not in the future (it is now ${isoTime(now)}).`, 'past', {
      value: spec.at === undefined ? '' : isoTime(spec.at),
    });
  const given: Record<string, string | undefined> = {
    title,
    tags: SCHEDULE_TAG,
    caption: spec.caption?.trim() || undefined,
    'agent-chat': chat,
    'schedule-kind': spec.kind,
    'schedule-at': spec.at !== undefined ? isoTime(spec.at) : undefined,
    'schedule-interval': spec.interval !== undefined ? String(spec.interval) : undefined,
    'schedule-cron': spec.cron,
    'schedule-timezone': spec.timezone,
    'schedule-active-hours': spec.activeHours,
    'schedule-message': spec.message,
    'schedule-max-runs': spec.maxRuns !== undefined ? String(spec.maxRuns) : undefined,
    'schedule-run-count': '0',
    'schedule-enabled': 'yes',
  };
  const fields: TiddlerFields = Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
  const next = nextRunAfter(parseSchedule(fields), now);
  if (next === undefined) throw new ScheduleError('This schedule would never run (no run falls inside its active hours).', 'never');
  fields['schedule-next-run'] = isoTime(next);
  return fields;
}
