/*\
A trigger (DESIGN 4, issue 27): a tiddler tagged `$:/tags/AI/Trigger` that wakes a chat when a
tiddler its filter selects is created or changed. Fields: `agent-chat` (the chat it wakes),
`trigger-filter`, `trigger-message` (the changed titles are appended), `trigger-debounce`
(seconds, default 5: changes that come closer together are one run), `trigger-max-wait`
(seconds, default 12 times the debounce and at least 60: a tiddler that keeps changing
still fires this long after the first change of the burst), `trigger-enabled` (yes | no),
`trigger-run-count`, `trigger-last-run` (ISO 8601). Three fields of its own keep a change
seen but not run yet across a restart: `trigger-pending` (the changed titles, a title list),
`trigger-due` (ISO 8601: when the debounce ends) and `trigger-pending-since` (ISO 8601: the
burst's first change, which the maximum wait counts from). This module reads one from its
fields or says exactly what is wrong with it. Pure.
\*/
import { TRIGGER_TAG } from '../store/tags';
import { parseTitleList, type TiddlerFields } from '../store/wiki-port';
import { parseIsoTime } from './schedule';

export { TRIGGER_TAG };
export const DEFAULT_DEBOUNCE_SECONDS = 5;
export const MAX_DEBOUNCE_SECONDS = 24 * 3600;
const MAX_MESSAGE_CHARS = 10_000;
/** At most this many changed titles are named in a run's message (and kept pending). */
export const MAX_PENDING_TITLES = 50;
export const TRIGGER_PENDING = 'trigger-pending';
export const TRIGGER_DUE = 'trigger-due';
export const TRIGGER_PENDING_SINCE = 'trigger-pending-since';
/** The maximum wait when `trigger-max-wait` is empty: this many debounces, and at least a minute. */
export const MAX_WAIT_DEBOUNCES = 12;
export const MIN_DEFAULT_MAX_WAIT_SECONDS = 60;

export interface Trigger {
  title: string;
  chat: string;
  filter: string;
  message: string;
  /** Seconds. */
  debounce: number;
  /** Seconds from a burst's first change to its run at the latest (at least the debounce). */
  maxWait: number;
  enabled: boolean;
  runCount: number;
  lastRun?: number;
  /** Changed titles seen and not run yet. */
  pending: string[];
  /** When the pending run is due (ms). */
  due?: number;
  /** When the pending burst began (ms). */
  pendingSince?: number;
}

/** A trigger that cannot run, with a message that says how to fix it. */
export class TriggerError extends Error {
  override name = 'TriggerError';
  constructor(
    message: string,
    readonly reason = 'other',
  ) {
    super(message);
  }
}

export function isTriggerTiddler(fields: TiddlerFields | undefined): boolean {
  return !!fields && parseTitleList(fields.tags).includes(TRIGGER_TAG);
}

/** Read a trigger from its fields; throws a TriggerError naming the field to fix. */
export function parseTrigger(fields: TiddlerFields): Trigger {
  const title = fields.title ?? '';
  const chat = fields['agent-chat']?.trim();
  if (!chat) throw new TriggerError('It has no "agent-chat": name the chat it wakes.', 'chat');
  const filter = fields['trigger-filter']?.trim();
  if (!filter) throw new TriggerError('It has no "trigger-filter": a filter that selects the tiddlers whose changes wake the chat.', 'filter');
  const message = fields['trigger-message']?.trim() ?? '';
  if (!message) throw new TriggerError('It has no "trigger-message": what the chat is asked when it fires.', 'message');
  if (message.length > MAX_MESSAGE_CHARS) throw new TriggerError(`Its "trigger-message" is longer than ${MAX_MESSAGE_CHARS} characters.`, 'message');
  const debounceText = fields['trigger-debounce']?.trim();
  const debounce = debounceText ? Number(debounceText) : DEFAULT_DEBOUNCE_SECONDS;
  if (!Number.isFinite(debounce) || debounce < 0 || debounce > MAX_DEBOUNCE_SECONDS)
    throw new TriggerError(`Its "trigger-debounce" must be a number of seconds from 0 to ${MAX_DEBOUNCE_SECONDS}.`, 'debounce');
  const maxWaitText = fields['trigger-max-wait']?.trim();
  const maxWait = maxWaitText ? Number(maxWaitText) : Math.max(MIN_DEFAULT_MAX_WAIT_SECONDS, MAX_WAIT_DEBOUNCES * debounce);
  if (!Number.isFinite(maxWait) || maxWait < debounce || maxWait > MAX_DEBOUNCE_SECONDS * MAX_WAIT_DEBOUNCES)
    throw new TriggerError(
      `Its "trigger-max-wait" must be a number of seconds from its debounce (${debounce}) to ${MAX_DEBOUNCE_SECONDS * MAX_WAIT_DEBOUNCES}.`,
      'max-wait',
    );
  const count = Number(fields['trigger-run-count'] ?? 0);
  return {
    title,
    chat,
    filter,
    message,
    debounce,
    maxWait,
    enabled: fields['trigger-enabled']?.trim() !== 'no',
    runCount: Number.isInteger(count) && count >= 0 ? count : 0,
    lastRun: parseIsoTime(fields['trigger-last-run'] ?? ''),
    pending: parseTitleList(fields[TRIGGER_PENDING]),
    due: parseIsoTime(fields[TRIGGER_DUE] ?? ''),
    pendingSince: parseIsoTime(fields[TRIGGER_PENDING_SINCE] ?? ''),
  };
}

const MAX_TITLE_CHARS = 200;

/** The run's message: the trigger's own, then the changed titles (as links, so a chat shows them). */
export function triggerMessage(trigger: Pick<Trigger, 'message'>, changed: string[]): string {
  // A title that cannot be a link (or is very long) is quoted, so it cannot leave its line.
  const links = changed
    .slice(0, MAX_PENDING_TITLES)
    .map((t) => (t.includes(']]') || t.includes('\n') || t.length > MAX_TITLE_CHARS ? JSON.stringify(t.slice(0, MAX_TITLE_CHARS)) : `[[${t}]]`));
  return `${trigger.message}\n\nChanged: ${links.join(' ')}`;
}
