/*\
A turn's budgets, checked before each model call: tokens per turn and per chat, and the same
in US dollars. A reached budget ends the turn with a message that says which field to raise.
\*/
import { formatUsd, replyCost, totalCost } from '../store/cost';
import { modelFacts } from '../store/model-facts';
import type { Message } from '../store/schemas';
import type { TurnContext } from './hooks';

/** Why the next model call would go over one of the agent's budgets, or undefined when none is reached. */
export function budgetExceeded(ctx: TurnContext, messages: Message[], turn: Message[]): string | undefined {
  const used = (list: Message[]) => list.reduce((n, m) => n + (m['tokens-in'] ?? 0) + (m['tokens-out'] ?? 0), 0);
  const turnBudget = ctx.agent['agent-turn-budget'];
  const chatBudget = ctx.agent['agent-chat-budget'];
  if (turnBudget !== undefined && used(turn) >= turnBudget)
    return `Token budget reached: this turn used ${used(turn)} of its ${turnBudget} tokens ("agent-turn-budget"). Send a message to continue.`;
  if (chatBudget !== undefined && used(messages) >= chatBudget)
    return `Token budget reached: this chat used ${used(messages)} of its ${chatBudget} tokens ("agent-chat-budget"). Start a new chat or raise the budget.`;
  return moneyBudgetExceeded(ctx, messages, turn);
}

/**
 * The money budgets (US dollars). A budget that cannot be priced fails the turn rather than
 * letting it spend unchecked: the next reply's model, or an earlier reply's, has no known price.
 */
function moneyBudgetExceeded(ctx: TurnContext, messages: Message[], turn: Message[]): string | undefined {
  const budgets = [
    { field: 'agent-turn-cost-budget', budget: ctx.agent['agent-turn-cost-budget'], list: turn, what: 'this turn', advice: 'Send a message to continue.' },
    {
      field: 'agent-chat-cost-budget',
      budget: ctx.agent['agent-chat-cost-budget'],
      list: messages,
      what: 'this chat',
      advice: 'Start a new chat or raise the budget.',
    },
  ] as const;
  const facts = new Map<string, ReturnType<typeof modelFacts>>();
  const factsOf = (model: string) => facts.get(model) ?? facts.set(model, modelFacts(ctx.profile, model)).get(model)!;
  for (const { field, budget, list, what, advice } of budgets) {
    if (budget === undefined) continue;
    const spent = list.map((m) => replyCost({ model: m.model, tokensIn: m['tokens-in'], tokensOut: m['tokens-out'] }, factsOf));
    const next = replyCost({ model: ctx.model, tokensIn: 0 }, factsOf); // $0 when its price is known
    const total = totalCost([...spent, next]);
    if (total.unpriced.length) {
      return `The money budget ("${field}" of "${ctx.agent.title}") cannot be enforced: no price is known for the model "${total.unpriced[0]}". Set "price-input" and "price-output" for it in the "model-facts" field of the provider profile "${ctx.profile.title}", or clear the budget.`;
    }
    if (total.usd >= budget) return `Money budget reached: ${what} cost ${formatUsd(total.usd)} of its ${formatUsd(budget)} ("${field}"). ${advice}`;
  }
  return undefined;
}
