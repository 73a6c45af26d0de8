/*\
What the chat has cost, next to the usage meter: the current turn and the whole chat, and
each reply's own cost for its meta line. Replies are priced by store/cost.ts with the facts
of the chat's profile (presets, then its `model-facts`). Costs are kept per message title
and updated from the titles a wiki change touches, so a round costs the same in a chat of any
length; the pricing is read again only when the chat, its agent or its profile changes, and
the text is written only when it changed. The automatic title's side request, kept on the chat
tiddler (store/cost.ts titleCost), counts in the chat's total at its own model's price.
\*/
import type { IChangedTiddlers } from 'tiddlywiki';
import { formatTotal, formatUsd, replyCost, TITLE_COST_FIELDS, titleCost, totalCost, type ReplyCost } from '../store/cost';
import { modelFacts, parseModelFactsTable, PRESETS_AS_OF, type ModelFacts, type ModelFactsTable } from '../store/model-facts';
import { el, ShownWhen, type ChatContext } from './chat-context';
import type { ListedMessage } from './turn-actions';

/** The chat's pricing: the tiddlers it comes from and the profile's own table. */
interface Pricing {
  key: string;
  sources: string[];
  profile: string;
  table?: ModelFactsTable;
  /** Why the profile's `model-facts` cannot be used (the turn fails with the same reason). */
  problem?: string;
  /** The automatic title's request, with its model. */
  title?: { cost: ReplyCost; model: string };
}

const numberField = (v: unknown) => (v === undefined || v === '' ? undefined : Number(v));

export class CostView {
  readonly element: HTMLElement;
  private pricing: Pricing;
  private readonly costs = new Map<string, ReplyCost>();
  private readonly shown: ShownWhen;

  constructor(private readonly ctx: ChatContext) {
    this.element = el(ctx.document, 'span', 'tc-ai-chat-cost');
    this.element.setAttribute('hidden', '');
    this.shown = new ShownWhen(this.element);
    this.pricing = this.readPricing();
  }

  /** A reply's cost for its meta line; undefined when it carries no token counts. */
  replyText(fields: Record<string, unknown>): { text: string; title: string } | undefined {
    const cost = this.costOf(fields);
    if (!cost) return undefined;
    const tokens = this.ctx
      .lingo('Cost/Tokens')
      .replace('$in$', String(fields['tokens-in'] ?? 0))
      .replace('$out$', String(fields['tokens-out'] ?? 0));
    if ('usd' in cost) return { text: formatUsd(cost.usd), title: tokens };
    return {
      text: this.ctx.lingo('Cost/Unknown'),
      title: this.ctx
        .lingo('Cost/TokensUnpriced')
        .replace('$tokens$', tokens)
        .replace('$hint$', this.unpricedHint([cost.unpriced])),
    };
  }

  /** Bring the costs of these message titles in line with the wiki. */
  update(titles: Iterable<string>): void {
    for (const title of titles) {
      const cost = this.costOf(this.ctx.wiki.getTiddler(title)?.fields as Record<string, unknown> | undefined);
      if (cost) this.costs.set(title, cost);
      else this.costs.delete(title);
    }
  }

  /** Read the pricing again when a tiddler it comes from changed; true when it is new (every cost was redone). */
  refreshPricing(changed: IChangedTiddlers, messages: readonly ListedMessage[]): boolean {
    if (!this.pricing.sources.some((title) => changed[title])) return false;
    const pricing = this.readPricing();
    if (pricing.key === this.pricing.key) return false;
    this.pricing = pricing;
    this.costs.clear();
    this.update(messages.map((m) => m.title));
    return true;
  }

  /** Show the turn's and the chat's cost: the turn is what follows the last user message. */
  render(messages: readonly ListedMessage[]): void {
    const turn: ReplyCost[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== 'user'; i--) {
      const cost = this.costs.get(messages[i]!.title);
      if (cost) turn.push(cost);
    }
    const title = this.pricing.title;
    const chat = totalCost(title ? [...this.costs.values(), title.cost] : this.costs.values());
    const problem = this.pricing.problem;
    const words = { unknown: this.ctx.lingo('Cost/TotalUnknown'), atLeast: this.ctx.lingo('Cost/AtLeast') };
    const turnText = formatTotal(totalCost(turn), words);
    const chatText = formatTotal(chat, words);
    const key = this.costs.size || problem || title ? `${turnText}\n${chatText}\n${chat.unpriced.join(' ')}\n${problem ?? ''}` : '';
    if (!this.shown.changed(key)) return;
    this.element.textContent = this.ctx.lingo('Cost/Meter').replace('$turn$', turnText).replace('$chat$', chatText);
    const notes = [this.ctx.lingo('Cost/Note').replace('$date$', PRESETS_AS_OF)];
    if (title && 'usd' in title.cost) notes.push(this.ctx.lingo('Cost/Title').replace('$cost$', formatUsd(title.cost.usd)).replace('$model$', title.model));
    if (chat.unpriced.length) notes.push(this.unpricedHint(chat.unpriced));
    if (problem) notes.push(problem);
    this.element.setAttribute('title', notes.join(' '));
    this.element.setAttribute('data-unpriced', chat.unpriced.length ? 'yes' : 'no');
  }

  private costOf(fields: Record<string, unknown> | undefined): ReplyCost | undefined {
    if (!fields || fields['agent-chat'] !== this.ctx.chat) return undefined;
    const model = fields.model === undefined ? undefined : String(fields.model);
    return replyCost({ model, tokensIn: numberField(fields['tokens-in']), tokensOut: numberField(fields['tokens-out']) }, (m) => this.factsOf(m));
  }

  private factsOf(model: string): ModelFacts {
    return modelFacts({ 'model-facts': this.pricing.table }, model);
  }

  private unpricedHint(models: string[]): string {
    return this.ctx.lingo('Cost/Unpriced').replace('$models$', models.join(', ')).replace('$profile$', this.pricing.profile);
  }

  /** The chat's agent's profile and its `model-facts`, read without the library (no zod in the widget). */
  private readPricing(): Pricing {
    const field = (title: string, name: string) => {
      const value = title ? this.ctx.wiki.getTiddler(title)?.fields[name] : undefined;
      return value === undefined ? '' : String(value);
    };
    const agent = field(this.ctx.chat, 'agent');
    const profile = field(agent, 'agent-provider');
    const text = field(profile, 'model-facts');
    const chatFields = this.ctx.wiki.getTiddler(this.ctx.chat)?.fields ?? {};
    const titleKey = Object.values(TITLE_COST_FIELDS).map((name) => field(this.ctx.chat, name));
    const pricing: Pricing = { key: [agent, profile, text, ...titleKey].join('\n'), sources: [this.ctx.chat, agent, profile].filter(Boolean), profile };
    if (text.trim()) {
      try {
        pricing.table = parseModelFactsTable(text);
      } catch (e) {
        pricing.problem = `Provider profile "${profile}": the field "model-facts" ${(e as Error).message}.`;
      }
    }
    const cost = titleCost(chatFields as Record<string, unknown>, (m) => modelFacts({ 'model-facts': pricing.table }, m));
    if (cost) pricing.title = { cost, model: titleKey[0] || '(no model)' };
    return pricing;
  }
}
