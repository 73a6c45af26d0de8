/*\
The trigger watch: wakes a chat when a tiddler a trigger's filter selects is created or
changed (schedules/trigger.ts), where the scheduler runs (the server in the server edition,
the open page in a browser-only wiki; runner/host/scheduler-host.ts starts both).

- A matching change is noted on the trigger tiddler (`trigger-pending`, `trigger-due`: now
  plus the debounce, `trigger-pending-since`), so a change seen but not run yet survives a
  restart; a further change within the debounce moves the run later and joins it: one run per
  burst of changes, but never later than the maximum wait after the burst's first change (a
  tiddler that keeps changing still fires).
- A tiddler hidden from the woken chat's agent (the host's `visible`, the agent view's rule:
  chats, `$:/ai/`, HTTP requests, secrets) is never noted, and never named in a run's message.
- When due and the chat is free (as for a schedule: no turn running or queued, not waiting for
  the user), the run is recorded first (`trigger-run-count`, `trigger-last-run`, the pending
  fields cleared), made durable, and only then the chat is woken with the message and the
  changed titles, as a turn from `trigger:<title>`. A busy chat gets it when it is free.
- Never fired by the woken chat's own writes, nor by any write of a run a trigger started
  (so two triggers cannot wake each other in a loop): every write of an agent lands through
  the write gate, which journals it with its turn (tools/journal.ts); a changed tiddler whose
  fields are what a journal of such a turn says it wrote is not a change for the trigger.
- Chats, messages, `$:/ai/`, `$:/temp/`, `$:/state/`, drafts, schedules and triggers never fire one.
- A disabled trigger (`trigger-enabled: no`) notes nothing and never fires; one that cannot be
  read, or whose chat is gone, never fires (the Background panel shows why).
Time comes from an injected clock.
\*/
import { systemClock, type Clock } from '../clock';
import { fingerprint } from '../store/fingerprint';
import { JOURNAL_CHAT_FIELD } from '../store/chat-parts';
import { isUnlistedChat } from '../store/listed-chats';
import { JOURNAL_TURN, parseJournal } from '../store/turn-journal';
import { stringifyTitleList, type TiddlerFields, type WikiPort } from '../store/wiki-port';
import { isoTime, isScheduleTiddler } from './schedule';
import {
  isTriggerTiddler,
  MAX_PENDING_TITLES,
  parseTrigger,
  TRIGGER_DUE,
  TRIGGER_PENDING,
  TRIGGER_PENDING_SINCE,
  TriggerError,
  triggerMessage,
  type Trigger,
} from './trigger';
import type { SchedulerHost } from './scheduler';

export const TRIGGER_SOURCE = 'trigger:';
/** The fields the watch keeps up to date (a browser's stale copy must not put back old values). */
export const TRIGGER_RUN_FIELDS = ['trigger-run-count', 'trigger-last-run', TRIGGER_PENDING, TRIGGER_DUE, TRIGGER_PENDING_SINCE];
/** Agents' writes remembered (by title) to tell them from other changes. */
const MAX_REMEMBERED_WRITES = 2000;
const MAX_WAIT_MS = 6 * 3600_000;
const MAX_CHAIN = 50;

export type TriggerEntry = { title: string; trigger: Trigger; problem?: undefined } | { title: string; trigger?: undefined; problem: string };

/** A trigger tiddler read, or what is wrong with it (the Background panel shows it). */
export function triggerEntry(wiki: WikiPort, title: string): TriggerEntry {
  const fields = wiki.getFields(title);
  if (!fields) return { title, problem: `"${title}" does not exist.` };
  try {
    const trigger = parseTrigger(fields);
    const chat = wiki.getFields(trigger.chat);
    if (!chat?.agent) return { title, problem: `The chat "${trigger.chat}" does not exist (any more).` };
    if (isUnlistedChat(chat)) return { title, problem: `"${trigger.chat}" is a sub-agent's chat; triggers wake only the user's own chats.` };
    return { title, trigger };
  } catch (e) {
    return { title, problem: e instanceof TriggerError ? e.message : `It cannot be read: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The trigger tiddlers of a wiki (not drafts). */
export function triggerTitles(wiki: WikiPort): string[] {
  return wiki.filter('[all[tiddlers]tag[$:/tags/AI/Trigger]!has[draft.of]]');
}

/** Whether a change of this tiddler may fire a trigger: not a chat's part, not scratch or state, not a draft, schedule or trigger. */
function mayFire(title: string, fields: TiddlerFields): boolean {
  if (/^\$:\/(ai|temp|state)\//.test(title)) return false;
  if (fields.agent !== undefined || fields['agent-chat'] !== undefined || fields[JOURNAL_CHAT_FIELD] !== undefined || fields['draft.of'] !== undefined)
    return false;
  return !isTriggerTiddler(fields) && !isScheduleTiddler(fields);
}

interface AgentWrite {
  fingerprint: string;
  chat: string;
  /** The `agent-source` of the turn that wrote it ('' for a user's turn). */
  source: string;
}

export class TriggerWatch {
  private readonly clock: Clock;
  private titles = new Set<string>();
  /** Chats a due trigger waits for. */
  private watched = new Set<string>();
  private writes = new Map<string, AgentWrite>();
  private timer: unknown;
  private running = false;

  constructor(private readonly host: SchedulerHost) {
    this.clock = host.clock ?? systemClock;
  }

  start(): void {
    this.running = true;
    this.titles = new Set(triggerTitles(this.host.wiki));
    this.sync();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The wiki changed (TiddlyWiki's change event, after the writes): note matching changes, run what is due. */
  changed(titles: Iterable<string>): void {
    if (!this.running) return;
    const list = [...titles];
    const fieldsOf = new Map(list.map((t) => [t, this.host.wiki.getFields(t)] as const));
    // The journals first: they say which of the other changes an agent made.
    for (const fields of fieldsOf.values()) if (fields?.[JOURNAL_CHAT_FIELD] !== undefined) this.learn(fields);
    let relevant = false;
    const candidates: string[] = [];
    for (const [title, fields] of fieldsOf) {
      if (isTriggerTiddler(fields) && fields?.['draft.of'] === undefined) {
        this.titles.add(title);
        relevant = true;
        continue;
      }
      if (this.titles.delete(title) || this.watched.has(title)) relevant = true;
      if (fields && mayFire(title, fields)) candidates.push(title);
    }
    if (candidates.length && this.titles.size) this.note(candidates, fieldsOf);
    if (relevant) this.sync();
  }

  /** Run the due triggers whose chats are free, and set the timer for the next due one. */
  sync(): void {
    if (!this.running) return;
    const now = this.clock.now();
    let earliest = Infinity;
    this.watched = new Set();
    try {
      for (const title of [...this.titles]) {
        const { trigger } = triggerEntry(this.host.wiki, title);
        if (!trigger?.enabled || !trigger.pending.length) continue;
        const due = trigger.due ?? now;
        if (due > now) earliest = Math.min(earliest, due);
        else if (!this.host.isFree(trigger.chat)) this.watched.add(trigger.chat);
        else this.run(trigger, now);
      }
    } finally {
      this.arm(earliest, now);
    }
  }

  /** Remember what a journal says its turn wrote (the title's fields after the turn's last change). */
  private learn(fields: TiddlerFields): void {
    const chat = fields[JOURNAL_CHAT_FIELD]!;
    const turn = fields[JOURNAL_TURN];
    const source = (turn && this.host.wiki.getFields(turn)?.['agent-source']) || '';
    for (const [written, entry] of Object.entries(parseJournal(fields.text))) {
      if (!entry?.after) continue;
      this.writes.delete(written);
      this.writes.set(written, { fingerprint: fingerprint(entry.after), chat, source });
    }
    for (const oldest of this.writes.keys()) {
      if (this.writes.size <= MAX_REMEMBERED_WRITES) break;
      this.writes.delete(oldest);
    }
  }

  /** Whether this version of `title` was written by a turn of `chat` (or its sub-agents), or by any run a trigger started. */
  private ownWrite(title: string, fields: TiddlerFields, chat: string): boolean {
    const write = this.writes.get(title);
    if (!write || write.fingerprint !== fingerprint(fields)) return false;
    if (write.source.startsWith(TRIGGER_SOURCE)) return true;
    let root = write.chat;
    for (let i = 0, parent = this.host.wiki.getFields(root)?.['agent-parent']; parent && i < MAX_CHAIN; i++) {
      root = parent;
      parent = this.host.wiki.getFields(parent)?.['agent-parent'];
    }
    if (root === chat) return true;
    // A sub-agent's write in a run a trigger started.
    const rootSource = root === write.chat ? '' : this.lastSource(root);
    return rootSource.startsWith(TRIGGER_SOURCE);
  }

  /** Whether the woken chat's agent may see `title` (no host rule: nothing is). */
  private visible(trigger: Trigger, title: string): boolean {
    const agent = this.host.wiki.getFields(trigger.chat)?.agent ?? '';
    return this.host.visible?.(agent, title) ?? false;
  }

  private lastSource(chat: string): string {
    const users = this.host.wiki.filter('[field:agent-chat<chat>field:role[user]nsort[agent-seq]last[]]', { chat });
    return (users[0] && this.host.wiki.getFields(users[0])?.['agent-source']) || '';
  }

  /** Note the changed tiddlers each enabled trigger selects: pending, due after its debounce. */
  private note(candidates: string[], fieldsOf: Map<string, TiddlerFields | undefined>): void {
    const now = this.clock.now();
    for (const title of this.titles) {
      const { trigger } = triggerEntry(this.host.wiki, title);
      if (!trigger?.enabled) continue;
      let selected: Set<string>;
      try {
        selected = new Set(this.host.wiki.filter(trigger.filter));
      } catch (e) {
        console.warn(`TiddlyAgent: trigger "${title}": ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      const hits = candidates.filter((t) => selected.has(t) && this.visible(trigger, t) && !this.ownWrite(t, fieldsOf.get(t)!, trigger.chat));
      if (!hits.length) continue;
      const pending = [...new Set([...trigger.pending, ...hits])].slice(-MAX_PENDING_TITLES);
      // The burst began at its first change (a burst noted before this version of the watch: now).
      const since = trigger.pending.length ? (trigger.pendingSince ?? now) : now;
      const due = Math.min(now + trigger.debounce * 1000, since + trigger.maxWait * 1000);
      this.write(title, { [TRIGGER_PENDING]: stringifyTitleList(pending), [TRIGGER_DUE]: isoTime(due), [TRIGGER_PENDING_SINCE]: isoTime(since) });
    }
  }

  /** A due trigger on a free chat: record the run, make it durable, then wake the chat. */
  private run(trigger: Trigger, now: number): void {
    // A title noted while visible may be hidden by now: it is not named (and nothing left is no run).
    const changed = trigger.pending.filter((t) => this.visible(trigger, t));
    const cleared = { [TRIGGER_PENDING]: undefined, [TRIGGER_DUE]: undefined, [TRIGGER_PENDING_SINCE]: undefined };
    if (!changed.length) {
      this.write(trigger.title, cleared);
      return;
    }
    this.write(trigger.title, { 'trigger-run-count': String(trigger.runCount + 1), 'trigger-last-run': isoTime(now), ...cleared });
    try {
      this.host.persist?.();
      this.host.wake(trigger.chat, triggerMessage(trigger, changed), `${TRIGGER_SOURCE}${trigger.title}`);
    } catch (e) {
      // The chat went away between the check and the wake: the run is recorded, the panel shows the problem.
      console.warn(`TiddlyAgent: trigger could not wake "${trigger.chat}": ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private write(title: string, changes: Record<string, string | undefined>): void {
    const fields = this.host.wiki.getFields(title);
    if (!fields) return;
    const updated: TiddlerFields = { ...fields };
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined) delete updated[name];
      else updated[name] = value;
    }
    this.host.wiki.putTiddler(updated);
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
