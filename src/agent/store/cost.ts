/*\
What replies cost, in US dollars: a reply's `tokens-in` and `tokens-out` (DESIGN 4) at the
price of its `model` (store/model-facts.ts), summed per turn and per chat. A price nobody
knows stays unknown, never 0: a sum with unknown replies says so. Replies whose provider
reported no usage carry no tokens and add nothing here, as for the token budgets (spending
caps estimate them: store/spend.ts). List prices
only (no cache or batch discounts), so this is what the provider would bill at most.
The automatic title's side request writes no message: its model and tokens are kept on the
chat tiddler (TITLE_COST_FIELDS) and priced the same way, at that model's price.
\*/
import type { ModelFacts, Price } from './model-facts';

/** A reply's cost: dollars, or the model whose price is unknown. */
export type ReplyCost = { usd: number } | { unpriced: string };

export interface CostTotal {
  usd: number;
  /** Replies priced. */
  priced: number;
  /** Models of the replies that could not be priced, each once. */
  unpriced: string[];
}

/** Dollars for one request at `price`; undefined when the price is unknown. */
export function priceTokens(price: Price | undefined, tokensIn: number, tokensOut: number): number | undefined {
  if (!price) return undefined;
  const rates = price.longContext && tokensIn > price.longContext.over ? price.longContext : price;
  return (tokensIn * rates.input + tokensOut * rates.output) / 1_000_000;
}

/** A reply's cost, or undefined when it carries no token counts (nothing to price). */
export function replyCost(reply: { model?: string; tokensIn?: number; tokensOut?: number }, factsOf: (model: string) => ModelFacts): ReplyCost | undefined {
  if (reply.tokensIn === undefined && reply.tokensOut === undefined) return undefined;
  const model = reply.model ?? '';
  const usd = model ? priceTokens(factsOf(model).price, reply.tokensIn ?? 0, reply.tokensOut ?? 0) : undefined;
  return usd === undefined ? { unpriced: model || '(no model)' } : { usd };
}

/** The chat fields that keep the automatic title's request: the model asked and the tokens reported. */
export const TITLE_COST_FIELDS = { model: 'agent-title-model', tokensIn: 'agent-title-tokens-in', tokensOut: 'agent-title-tokens-out' } as const;

/** The automatic title's cost from a chat's fields; undefined when the chat has none recorded. */
export function titleCost(chat: Record<string, unknown>, factsOf: (model: string) => ModelFacts): ReplyCost | undefined {
  const number = (v: unknown) => {
    const n = v === undefined || v === '' ? Number.NaN : Number(v);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  const model = chat[TITLE_COST_FIELDS.model];
  return replyCost(
    { model: model ? String(model) : undefined, tokensIn: number(chat[TITLE_COST_FIELDS.tokensIn]), tokensOut: number(chat[TITLE_COST_FIELDS.tokensOut]) },
    factsOf,
  );
}

export function totalCost(costs: Iterable<ReplyCost | undefined>): CostTotal {
  const total: CostTotal = { usd: 0, priced: 0, unpriced: [] };
  for (const cost of costs) {
    if (!cost) continue;
    if ('usd' in cost) {
      total.usd += cost.usd;
      total.priced++;
    } else if (!total.unpriced.includes(cost.unpriced)) total.unpriced.push(cost.unpriced);
  }
  return total;
}

/** Thousands separators without Intl (its first use in a page loads locale data). */
export function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `$0`, `<$0.0001`, `$0.0042`, `$0.1235`, `$12.35`, `$1,234.57`. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.0001) return '<$0.0001';
  if (usd < 0.99995) return `$${usd.toFixed(4)}`;
  const [whole, cents] = usd.toFixed(2).split('.');
  return `$${group(whole!)}.${cents}`;
}

/** How a sum that is not fully priced reads, in the UI's language (`$cost$`: the priced part). */
export interface TotalWords {
  unknown: string;
  atLeast: string;
}

/** A sum as text: `$0.0042`; `unknown` when no reply could be priced; `at least $0.0042` when some could not. */
export function formatTotal(total: CostTotal, words: TotalWords = { unknown: 'unknown', atLeast: 'at least $cost$' }): string {
  if (!total.unpriced.length) return formatUsd(total.usd);
  return total.priced ? words.atLeast.replace('$cost$', formatUsd(total.usd)) : words.unknown;
}
