/*\
Spending caps: what an agent's chats cost today and this month (local calendar day and month
of the injected clock's time), and whether one of its caps is reached: `agent-day-cost-budget`
and `agent-month-cost-budget` (DESIGN 4; money in the currency of the model's prices, US
dollars for the presets), or `agent-day-token-budget` and `agent-month-token-budget` (tokens
in and out, for a model without prices or a cap that should not follow them). Every reply of every chat of the agent counts, whoever started
its turn, priced as store/cost.ts prices it (the profile the chat's agent names, at each reply's
model); a reply counts in the day and month it was written (`created`).
- A sub-agent's chat counts under its own agent and under the agent of every chat above it
  (`agent-parent`): what a run spends through sub-agents, even ones with another definition,
  counts toward the cap of the agent whose chat spawned them.
- A reply whose provider reported no usage is not free: its tokens are estimated
  (store/token-estimate.ts), the prompt as the agent's system prompt plus the chat's messages
  before it (at most the model's context window), the reply from its text and calls. Only unattended runs
(a schedule's, a heartbeat's, a trigger's) are held back at the cap: a user's own turn is not.
A cap that cannot be priced (a reply whose model has no known price) counts as reached: a
cap that cannot be checked never lets runs spend unchecked.
\*/
import type { ChatStore } from './chat-store';
import { formatUsd, group, replyCost, totalCost, type CostTotal, type ReplyCost } from './cost';
import { modelFacts, type ModelFacts } from './model-facts';
import { estimateTokens } from './token-estimate';
import type { TiddlerFields, WikiPort } from './wiki-port';

export const DAY_CAP_FIELD = 'agent-day-cost-budget';
export const MONTH_CAP_FIELD = 'agent-month-cost-budget';
export const DAY_TOKEN_CAP_FIELD = 'agent-day-token-budget';
export const MONTH_TOKEN_CAP_FIELD = 'agent-month-token-budget';

export interface AgentSpend {
  day: CostTotal;
  month: CostTotal;
  /** Tokens in and out (reported, or estimated where a reply reported none). */
  dayTokens: number;
  monthTokens: number;
}

export interface CapReached {
  field: typeof DAY_CAP_FIELD | typeof MONTH_CAP_FIELD | typeof DAY_TOKEN_CAP_FIELD | typeof MONTH_TOKEN_CAP_FIELD;
  period: 'day' | 'month';
  cap: number;
  spent: CostTotal;
  tokens: number;
  /** Why, in English, for the chat's line after "This run did not start: " or "…stopped: " (the UI adds a headline in the user's language). */
  text: string;
}

/** TiddlyWiki's date field (YYYYMMDDHHMMSSmmm, UTC) as milliseconds, or NaN. */
function twTime(value: string | undefined): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})?$/.exec(value ?? '');
  if (!m) return Number.NaN;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +(m[7] ?? 0));
}

const numberField = (v: string | undefined) => {
  const n = v === undefined || v === '' ? Number.NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** A chain of `agent-parent` longer than this is a loop someone made by hand. */
const MAX_CHAIN = 50;
/** What every message adds to a prompt besides its words (as engine/context.ts counts). */
const MESSAGE_OVERHEAD = 4;

/** The chats whose replies count toward `agent`'s caps: its own, and every sub-agent chat below one of them (found down the field index). */
export function spendingChats(wiki: WikiPort, agent: string): string[] {
  const chats = new Set(wiki.filter('[field:agent<agent>]', { agent }));
  let level = [...chats];
  for (let depth = 0; level.length && depth < MAX_CHAIN; depth++) {
    const next: string[] = [];
    for (const chat of level)
      for (const child of wiki.filter('[field:agent-parent<chat>has[agent]]', { chat }))
        if (!chats.has(child)) {
          chats.add(child);
          next.push(child);
        }
    level = next;
  }
  return [...chats];
}

/** A message's share of a later prompt: its words, calls and results. */
function promptTokens(fields: TiddlerFields): number {
  if (fields.role !== 'user' && fields.role !== 'assistant' && fields.role !== 'tool') return 0;
  return MESSAGE_OVERHEAD + estimateTokens(fields.text ?? '') + estimateTokens(fields['tool-calls'] ?? '') + estimateTokens(fields['tool-name'] ?? '');
}

const hasUsage = (fields: TiddlerFields) => fields['tokens-in'] !== undefined || fields['tokens-out'] !== undefined;

/** Each reply of `chat` written since `since` (ms), with its time and cost; a reply without usage at an estimate. */
function chatCosts(
  wiki: WikiPort,
  store: ChatStore,
  chat: string,
  since: number,
  factsOf: (model: string) => ModelFacts,
): { at: number; cost: ReplyCost | undefined; tokens: number }[] {
  const messages = store
    .messageTitles(chat)
    .map((title) => wiki.getFields(title))
    .filter((fields): fields is TiddlerFields => !!fields);
  // Most chats have usage on every reply: then no text is measured at all.
  const estimating = messages.some((fields) => fields.role === 'assistant' && !hasUsage(fields) && twTime(fields.created) >= since);
  if (estimating) messages.sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
  const agent = estimating ? wiki.getFields(chat)?.agent : undefined;
  const system = estimating ? MESSAGE_OVERHEAD + estimateTokens((agent && wiki.getFields(agent)?.text) || '') : 0;
  const costs: { at: number; cost: ReplyCost | undefined; tokens: number }[] = [];
  let history = 0;
  for (const fields of messages) {
    const at = twTime(fields.created);
    const estimated = fields.role === 'assistant' && !hasUsage(fields);
    if (at >= since && (estimated || hasUsage(fields))) {
      const reply = estimated
        ? {
            model: fields.model,
            tokensIn: Math.min(system + history, factsOf(fields.model ?? '').contextWindow ?? Infinity),
            tokensOut: promptTokens(fields) + estimateTokens(fields.reasoning ?? ''),
          }
        : { model: fields.model, tokensIn: numberField(fields['tokens-in']), tokensOut: numberField(fields['tokens-out']) };
      costs.push({ at, cost: replyCost(reply, factsOf), tokens: (reply.tokensIn ?? 0) + (reply.tokensOut ?? 0) });
    }
    if (estimating) history += promptTokens(fields);
  }
  return costs;
}

/** What the chats of `agent` (and the sub-agents they spawned) cost today and this month, at `now` (ms since 1970). */
export function agentSpend(store: ChatStore, wiki: WikiPort, agent: string, now: number): AgentSpend {
  const date = new Date(now);
  const dayStart = new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const monthStart = new Date(date.getFullYear(), date.getMonth(), 1).getTime();
  // Per agent (a sub-agent's chat may run another definition, with its own provider's prices), per model.
  const pricing = new Map<string, (model: string) => ModelFacts>();
  const factsFor = (chatAgent: string) => {
    const known = pricing.get(chatAgent);
    if (known) return known;
    let profile: Parameters<typeof modelFacts>[0];
    try {
      profile = store.readProvider(store.readAgent(chatAgent)['agent-provider']);
    } catch {
      profile = undefined; // the presets' prices still apply
    }
    const facts = new Map<string, ModelFacts>();
    const factsOf = (model: string) => facts.get(model) ?? facts.set(model, modelFacts(profile, model)).get(model)!;
    pricing.set(chatAgent, factsOf);
    return factsOf;
  };
  const day = [];
  const month = [];
  let dayTokens = 0;
  let monthTokens = 0;
  for (const chat of spendingChats(wiki, agent)) {
    for (const { at, cost, tokens } of chatCosts(wiki, store, chat, monthStart, factsFor(wiki.getFields(chat)?.agent ?? agent))) {
      month.push(cost);
      monthTokens += tokens;
      if (at < dayStart) continue;
      day.push(cost);
      dayTokens += tokens;
    }
  }
  return { day: totalCost(day), month: totalCost(month), dayTokens, monthTokens };
}

/** The first cap of `agent` reached at `now`, or undefined (no cap set, or none reached). */
export function spendCapReached(store: ChatStore, wiki: WikiPort, agent: string, now: number): CapReached | undefined {
  const fields = wiki.getFields(agent);
  const cap = (field: string) => numberField(fields?.[field]?.trim());
  const caps = [
    { field: DAY_CAP_FIELD, period: 'day', cap: cap(DAY_CAP_FIELD) },
    { field: MONTH_CAP_FIELD, period: 'month', cap: cap(MONTH_CAP_FIELD) },
  ] as const;
  const tokenCaps = [
    { field: DAY_TOKEN_CAP_FIELD, period: 'day', cap: cap(DAY_TOKEN_CAP_FIELD) },
    { field: MONTH_TOKEN_CAP_FIELD, period: 'month', cap: cap(MONTH_TOKEN_CAP_FIELD) },
  ] as const;
  if ([...caps, ...tokenCaps].every((c) => c.cap === undefined)) return undefined;
  const spend = agentSpend(store, wiki, agent, now);
  const later = (period: 'day' | 'month') =>
    `Unattended runs (schedules, heartbeats, triggers) wait until ${period === 'day' ? 'tomorrow' : 'next month'} or until the cap is raised; runs you start yourself are not held back.`;
  for (const { field, period, cap } of caps) {
    if (cap === undefined) continue;
    const spent = spend[period];
    const tokens = period === 'day' ? spend.dayTokens : spend.monthTokens;
    const when = period === 'day' ? 'today' : 'this month';
    if (spent.unpriced.length)
      return {
        field,
        period,
        cap,
        spent,
        tokens,
        text: `the spending cap "${field}" of "${agent}" cannot be checked, because no price is known for the model "${spent.unpriced[0]}". Set its price in the provider profile's "model-facts", or clear the cap. Runs you start yourself are not held back.`,
      };
    // A billionth of a dollar of leeway: sums of prices in floating point fall just short (0.6 + 0.3 + 0.1).
    if (spent.usd >= cap - 1e-9)
      return {
        field,
        period,
        cap,
        spent,
        tokens,
        text: `the chats of "${agent}" cost ${formatUsd(spent.usd)} ${when}, which reaches its cap of ${formatUsd(cap)} ("${field}"). ${later(period)}`,
      };
  }
  for (const { field, period, cap } of tokenCaps) {
    const tokens = period === 'day' ? spend.dayTokens : spend.monthTokens;
    if (cap === undefined || tokens < cap) continue;
    const when = period === 'day' ? 'today' : 'this month';
    return {
      field,
      period,
      cap,
      spent: spend[period],
      tokens,
      text: `the chats of "${agent}" used ${group(String(Math.round(tokens)))} tokens ${when}, which reaches its cap of ${group(String(cap))} tokens ("${field}"). ${later(period)}`,
    };
  }
  return undefined;
}
