/*\
The chat's running sub-agents (spawn-agent), above the composer: one line per child that is
working or waits for the user, with a link that opens its chat. A child's approval or
question card shows here, in the parent's chat, where the user is looking; the choice goes
to the child's own chat (the runner resumes the child, and the parent's call gets its
answer when the child is done). Re-renders only when a child chat or one of a child's
waiting messages changes.
\*/
import { el, type ChatContext } from './chat-context';
import { offeredChoices } from '../store/approval-choices';
import { editableOf, renderApproval, renderQuestion } from './cards';

const SHOWN_STATUSES = ['working', 'input-required'];

export class SubAgentsView {
  readonly element: HTMLElement;
  private children = new Set<string>();
  private shownKey = '';

  constructor(private readonly ctx: ChatContext) {
    this.element = el(ctx.document, 'div', 'tc-ai-subagents');
    this.update();
  }

  refresh(changed: Record<string, unknown>): void {
    for (const title of Object.keys(changed)) {
      const fields = this.ctx.wiki.getTiddler(title)?.fields;
      if (
        this.children.has(title) ||
        fields?.['agent-parent'] === this.ctx.chat ||
        (typeof fields?.['agent-chat'] === 'string' && this.children.has(fields['agent-chat']))
      ) {
        this.update();
        return;
      }
    }
  }

  update(): void {
    const all = this.ctx.filter('[field:agent-parent<chat>has[agent]]', { chat: this.ctx.chat });
    this.children = new Set(all);
    const active = all.filter((child) => SHOWN_STATUSES.includes(String(this.ctx.wiki.getTiddler(child)?.fields['agent-status'] ?? '')));
    const pendingOf = (child: string) => this.ctx.filter('[field:agent-chat<chat>field:tool-status[pending]]', { chat: child }).sort();
    const key = JSON.stringify(
      active.map((child) => [
        child,
        this.ctx.wiki.getTiddler(child)?.fields['agent-status'],
        pendingOf(child).map((m) => [m, this.ctx.wiki.getTiddler(m)?.fields.modified]),
      ]),
    );
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.element.textContent = '';
    if (active.length) this.element.removeAttribute('hidden');
    else this.element.setAttribute('hidden', '');
    const doc = this.ctx.document;
    for (const child of active) {
      const fields = this.ctx.wiki.getTiddler(child)!.fields;
      const row = el(doc, 'div', 'tc-ai-subagent');
      row.setAttribute('data-child', child);
      const head = el(doc, 'div', 'tc-ai-subagent-head');
      const link = el(doc, 'a', 'tc-tiddlylink tc-ai-subagent-link', String(fields.caption ?? child));
      link.setAttribute('href', `#${encodeURIComponent(child)}`);
      link.addEventListener?.('click', (event: Event) => {
        event.preventDefault();
        this.ctx.navigate(child);
      });
      head.appendChild(el(doc, 'span', 'tc-ai-subagent-label', this.ctx.lingo('SubAgent/Label') || 'Sub-agent'));
      head.appendChild(link);
      const status = String(fields['agent-status']);
      head.appendChild(el(doc, 'span', `tc-ai-subagent-status tc-ai-subagent-status-${status}`, this.ctx.lingo(`Status/${status}`) || status));
      row.appendChild(head);
      // The child's cards decide in the child's chat.
      const childCtx: ChatContext = { ...this.ctx, chat: child };
      for (const message of pendingOf(child)) {
        const m = this.ctx.wiki.getTiddler(message)!.fields as Record<string, unknown>;
        const body = el(doc, 'div', 'tc-ai-message tc-ai-message-tool tc-ai-subagent-card');
        body.setAttribute('data-message', message);
        const name = String(m['tool-name'] ?? '');
        const args = String(m['tool-args'] ?? '{}');
        if (name === 'ask-question') renderQuestion(childCtx, message, args, body);
        else {
          const only = offeredChoices(m);
          renderApproval(childCtx, message, name, args, String(m.text ?? ''), m['tool-changes'], body, only, editableOf(m));
        }
        row.appendChild(body);
      }
      this.element.appendChild(row);
    }
  }
}
