/*\
On the tool line of a call that ran without asking because of the user's rule (its message's
`approval-rule`): which rule, in words, and "Revoke this rule", which removes exactly that
rule (runner: revokeRule) and asks nothing more. Whether the rule still stands is read from
where it lives (the agent's `agent-approval`, the chat's allowed tools), so every call it
allowed says "Rule revoked" once it is gone, however it went, after a reload too.
\*/
import type { IChangedTiddlers } from 'tiddlywiki';
import { parseAllowingRule, readRawConfig, ruleInForce } from '../engine/approval-rules';
import type { AllowingRule } from '../engine/approval';
import { el, type ChatContext } from './chat-context';
import { fill, ruleWords } from './rule-words';

export class RuleNote {
  readonly element: HTMLElement;
  private readonly action: HTMLElement;
  private shown?: boolean;

  /** The note for a tool message's fields, or undefined when no rule of the user's let it run. */
  static of(ctx: ChatContext, message: string, fields: Record<string, unknown>): RuleNote | undefined {
    const rule = parseAllowingRule(fields['approval-rule']);
    return rule ? new RuleNote(ctx, message, rule) : undefined;
  }

  private constructor(
    private readonly ctx: ChatContext,
    private readonly message: string,
    private readonly rule: AllowingRule,
  ) {
    const doc = ctx.document;
    this.element = el(doc, 'div', 'tc-ai-rule-note');
    this.element.appendChild(el(doc, 'span', 'tc-ai-rule-text', fill(ctx.lingo('Rule/AllowedBy'), { rule: ruleWords(ctx, rule) })));
    this.action = el(doc, 'span', 'tc-ai-rule-action');
    this.action.setAttribute('role', 'status');
    this.element.appendChild(this.action);
    this.update();
  }

  /** The rule lives in the agent (or the chat): a change to either may revoke or restore it. */
  refresh(changed: IChangedTiddlers): void {
    if (changed[this.ctx.chat] || changed[this.agent() ?? '']) this.update();
  }

  private agent(): string | undefined {
    return this.rule.kind === 'chat' ? undefined : (this.rule.agent ?? String(this.ctx.wiki.getTiddler(this.ctx.chat)?.fields.agent ?? ''));
  }

  private stands(): boolean {
    const { wiki, chat } = this.ctx;
    if (this.rule.kind === 'chat')
      return ($tw.utils.parseStringArray(String(wiki.getTiddler(chat)?.fields['agent-allowed-tools'] ?? '')) ?? []).includes(this.rule.tool);
    const config = readRawConfig(String(wiki.getTiddler(this.agent() ?? '')?.fields['agent-approval'] ?? ''));
    return !!config && ruleInForce(config, this.rule);
  }

  private update(): void {
    const stands = this.stands();
    if (stands === this.shown) return;
    this.shown = stands;
    const { ctx } = this;
    this.element.setAttribute('data-rule-state', stands ? 'in-force' : 'revoked');
    this.action.textContent = '';
    if (!stands) this.action.appendChild(el(ctx.document, 'span', 'tc-ai-rule-revoked', ctx.lingo('Rule/Revoked')));
    else if (ctx.browser) {
      const revoke = el(ctx.document, 'button', 'tc-btn-invisible tc-ai-rule-revoke', ctx.lingo('Rule/Revoke'));
      revoke.setAttribute('type', 'button');
      revoke.setAttribute('data-ai-action', 'revoke-rule');
      revoke.addEventListener(
        'click',
        () => void ctx.request(ctx.runner().submit({ kind: 'revoke-rule', chat: ctx.chat, message: this.message })).then(() => this.update()),
      );
      this.action.appendChild(revoke);
    }
  }
}
