/*\
Unattended turns never hang. A turn no user started (a schedule's, a heartbeat's, a
trigger's: its user message carries `agent-source`; or a sub-agent's whose root chat runs such
a turn) may wait for a question or a confirmation only for its agent's
`agent-unattended-timeout` (seconds; empty: 600; 0: no limit, it waits as a user's turn does).
When such a turn stops to wait, each waiting call gets `unattended-expires` (milliseconds since
1970), and the chat's one expiry timer (runner/expiry.ts) runs to the earliest of these and of
the confirmations' own `approval-expires`. When it fires, `resume` ends a turn whose
unattended time (or a confirmation's own time) is up here, instead of going on: its waiting calls are closed, an error line
(`error-kind: unanswered`) says what it waited for and that nobody answered in time, and the
chat fails, so nothing holds it and its schedules' next run goes ahead. A turn a user started
keeps waiting for them (its confirmations expire as before).
\*/
import type { TurnResult } from '../../engine/loop';
import type { Message } from '../../store/schemas';
import type { TiddlerFields } from '../../store/wiki-port';
import { spendCapReached } from '../../store/spend';
import type { RunnerContext } from './handler';

export const UNATTENDED_EXPIRES = 'unattended-expires';
export const DEFAULT_UNATTENDED_TIMEOUT_SECONDS = 600;
/** A chain of `agent-parent` longer than this is a loop someone made by hand. */
const MAX_CHAIN = 50;

/** The user's chat a sub-agent's chat descends from (the chat itself when it is no sub-agent's). */
function rootChat(ctx: RunnerContext, chat: string): string {
  let root = chat;
  for (let i = 0, parent = ctx.host.wiki.getFields(chat)?.['agent-parent']; parent && i < MAX_CHAIN; i++) {
    root = parent;
    parent = ctx.host.wiki.getFields(parent)?.['agent-parent'];
  }
  return root;
}

/** What started the turn the chat runs or waits in, when no user did: its source (`schedule:…`, `heartbeat:…`, `sub-agent:<root>` …), else undefined. */
export function unattendedSource(ctx: RunnerContext, chat: string): string | undefined {
  if (ctx.isExternal(chat)) return undefined; // an MCP client's calls: its session decides
  const root = rootChat(ctx, chat);
  const source = [...ctx.store.listMessages(root)].reverse().find((m) => m.role === 'user')?.['agent-source'];
  if (!source) return undefined;
  return root === chat ? source : `sub-agent:${root}`;
}

/** Per runner: the user's chats running an operation no user started (a schedule's, heartbeat's or trigger's message). */
const unattendedRuns = new WeakMap<RunnerContext, Set<string>>();

/**
 * Run a send operation's turn; with a `source` (no user sent it) the chat counts as running
 * unattended until it returns, for the spending caps checked before each model call. A Retry, an
 * edit or a decision the user makes later runs without it: a user's own turn is never held.
 */
export async function runMaybeUnattended<T>(ctx: RunnerContext, chat: string, source: string | undefined, run: () => Promise<T>): Promise<T> {
  if (!source) return run();
  const chats = unattendedRuns.get(ctx) ?? new Set<string>();
  unattendedRuns.set(ctx, chats.add(chat));
  try {
    return await run();
  } finally {
    chats.delete(chat);
  }
}

/**
 * Before each model call of an unattended run (or of a sub-agent's under one): the spending cap
 * reached since the run began by the agent of its user's chat (its own replies and its
 * sub-agents' count) or by the sub-agent's own agent, as the line the turn ends with; undefined
 * while under every cap.
 */
export function unattendedCapReached(ctx: RunnerContext, chat: string): { text: string; agent: string } | undefined {
  const root = rootChat(ctx, chat);
  if (!unattendedRuns.get(ctx)?.has(root)) return undefined;
  const agents = new Set([ctx.host.wiki.getFields(root)?.agent, ctx.host.wiki.getFields(chat)?.agent]);
  for (const agent of agents) {
    const reached = agent ? spendCapReached(ctx.store, ctx.host.wiki, agent, ctx.now()) : undefined;
    if (reached && agent) return { text: `This run stopped before its next model call: ${reached.text}`, agent };
  }
  return undefined;
}

/** The chat's unattended time limit in milliseconds, or undefined for none (0, or an agent that cannot be read: then the default). */
function timeoutMs(ctx: RunnerContext, chat: string): number | undefined {
  let seconds: number | undefined;
  try {
    seconds = ctx.store.readAgent(ctx.store.readChat(chat).agent)['agent-unattended-timeout'];
  } catch {
    seconds = undefined; // a definition that does not parse: the default, never "wait for ever"
  }
  seconds ??= DEFAULT_UNATTENDED_TIMEOUT_SECONDS;
  return seconds > 0 ? seconds * 1000 : undefined;
}

/** A waiting call that still needs the user: a question, or a confirmation not decided yet. */
function undecided(m: Message): boolean {
  return m['tool-name'] === 'ask-question' || !m.approval;
}

/**
 * The chat's next deadline (ms since 1970) for its expiry timer: the earliest unanswered
 * confirmation's `approval-expires` or unattended call's `unattended-expires`. A waiting call of
 * an unattended turn that has no `unattended-expires` yet (it just started to wait, or waited
 * from before a restart) gets it now.
 */
export function waitDeadline(ctx: RunnerContext, chat: string): number | undefined {
  const approvals = ctx.decisions.nextExpiry(chat);
  const waiting = ctx.decisions.pending(chat).filter(undecided);
  if (!waiting.length || ctx.host.wiki.getFields(chat)?.['agent-status'] !== 'input-required') return approvals;
  const fresh = waiting.filter((m) => !ctx.host.wiki.getFields(m.title)?.[UNATTENDED_EXPIRES]);
  if (fresh.length && unattendedSource(ctx, chat) !== undefined) {
    const limit = timeoutMs(ctx, chat);
    if (limit !== undefined) for (const m of fresh) ctx.store.updateFields(m.title, { [UNATTENDED_EXPIRES]: String(ctx.now() + limit) });
  }
  const deadlines = waiting.map((m) => Number(ctx.host.wiki.getFields(m.title)?.[UNATTENDED_EXPIRES])).filter(Number.isFinite);
  const earliest = Math.min(approvals ?? Infinity, ...deadlines);
  return earliest === Infinity ? undefined : earliest;
}

/** What a waiting call waits for, in English for the chat's line: the question, or the confirmation of a tool. */
export function waitsFor(fields: TiddlerFields): string {
  if (fields['tool-name'] !== 'ask-question') return `a confirmation to run ${fields['tool-name'] ?? 'a tool'}`;
  let question = '';
  try {
    question = String((JSON.parse(fields['tool-args'] ?? '{}') as { question?: unknown }).question ?? '');
  } catch {
    // a damaged question still ends the turn
  }
  return question ? `an answer to the question "${question}"` : 'an answer to a question';
}

/** Who started the turn, for the chat's line. */
function startedBy(ctx: RunnerContext, source: string): string {
  const [kind, ...rest] = source.split(':');
  const name = rest.join(':');
  const label = (title: string) => `"${ctx.host.wiki.getFields(title)?.caption || title}"`;
  if (kind === 'schedule') return `the schedule ${label(name)}`;
  if (kind === 'heartbeat') return `the heartbeat of ${label(name)}`;
  if (kind === 'trigger') return `the trigger ${label(name)}`;
  if (kind === 'sub-agent') return `a sub-agent task of the chat ${label(name)}, itself not started by a user`;
  return `"${source}"`;
}

/**
 * The expiry timer fired: when an unattended call's time is up, end the turn (see the header)
 * and return its result; otherwise undefined (the turn goes on: confirmations that expired are denied).
 */
export function endUnattended(ctx: RunnerContext, chat: string): TurnResult | undefined {
  const now = ctx.now();
  const waiting = ctx.decisions.pending(chat);
  const fieldsOf = (m: Message) => ctx.host.wiki.getFields(m.title) ?? {};
  // A call of an unattended turn ends it at its first deadline: its own, or its confirmation's.
  const overdue = waiting.filter((m) => {
    const fields = fieldsOf(m);
    return (
      undecided(m) &&
      fields[UNATTENDED_EXPIRES] !== undefined &&
      Math.min(Number(fields[UNATTENDED_EXPIRES]), Number(fields['approval-expires'] ?? Infinity)) <= now
    );
  });
  if (!overdue.length) return undefined;
  const source = unattendedSource(ctx, chat);
  for (const m of waiting) {
    const question = m['tool-name'] === 'ask-question';
    ctx.store.updateFields(m.title, {
      'tool-status': 'denied',
      'tool-outcome': question ? 'unanswered' : undecided(m) ? 'expired' : 'canceled',
      text: question
        ? 'Nobody answered this question in time (the turn was not started by a user), so the turn ended.'
        : 'Nobody confirmed it in time (the turn was not started by a user), so the turn ended and it was not run.',
      'approval-expires': undefined,
      [UNATTENDED_EXPIRES]: undefined,
    });
  }
  const what = overdue.map((m) => waitsFor(fieldsOf(m))).join(', and ');
  const text =
    `Nobody answered in time: this turn was started by ${source ? startedBy(ctx, source) : 'no user'} and waited for ${what} ` +
    `until its time limit. It ended without it, so the chat is free again ` +
    `(its next scheduled run goes ahead). How long such a turn waits is the agent's "agent-unattended-timeout" (seconds; 0: no limit).`;
  ctx.store.appendMessage(chat, { role: 'error', text, errorKind: 'unanswered' });
  ctx.setStatus(chat, 'failed');
  return { status: 'failed', error: text };
}

/**
 * A run no user started (`source`: a schedule's, a heartbeat's, a trigger's) of an agent whose
 * chats reached its day or month spending cap (store/spend.ts) does not start: the chat gets an
 * error line saying so (once: a run held back again adds no second copy) and stays as it was.
 * Returns the result instead of the turn's, or undefined when the run may start.
 */
export function holdAtCap(ctx: RunnerContext, chat: string, source: string | undefined): TurnResult | undefined {
  if (!source) return undefined;
  const fields = ctx.host.wiki.getFields(chat);
  if (!fields?.agent) return undefined;
  const capped = spendCapReached(ctx.store, ctx.host.wiki, fields.agent, ctx.now());
  if (!capped) return undefined;
  const reached = { ...capped, text: `This run did not start: ${capped.text}` };
  const last = ctx.store.messageTitles(chat).reduce<TiddlerFields | undefined>((best, title) => {
    const m = ctx.host.wiki.getFields(title);
    return m && (!best || Number(m['agent-seq']) > Number(best['agent-seq'])) ? m : best;
  }, undefined);
  if (last?.role !== 'error' || last.text !== reached.text)
    ctx.store.appendMessage(chat, { role: 'error', text: reached.text, errorKind: 'budget', errorHint: 'spend-cap', errorTiddler: fields.agent });
  return { status: (fields['agent-status'] || 'idle') as TurnResult['status'], error: reached.text };
}
