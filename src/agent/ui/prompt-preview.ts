/*\
"Show prompt" and "Compact now", under a chat's meter. Show prompt asks the runner what the
next request would send (runner ChatRunner.previewPrompt: the system sections, the history
after trimming and compaction, the tools) and shows it with the tokens of each section, as
plain text: the prompt holds wiki content and model output, which must not render here. A tool
result past its rounds (engine/result-expiry.ts) is marked expired: only its stub is sent.
Compact now asks the runner to summarize the older turns (engine/compaction.ts).
\*/
import type { PromptPreview } from '$:/plugins/tiddlyagent/agent/page.js';
import { el, formatNumber, type ChatContext } from './chat-context';

export class PromptTools {
  /** The two buttons (in the chat's footer). */
  readonly bar: HTMLElement;
  /** The preview, once asked for (below the footer, the chat's full width). */
  readonly panel: HTMLElement;

  constructor(private readonly ctx: ChatContext) {
    const doc = ctx.document;
    const bar = el(doc, 'div', 'tc-ai-prompt-tools-bar');
    this.bar = bar;
    const show = el(doc, 'button', 'tc-btn-invisible tc-ai-prompt-show', ctx.lingo('Prompt/Show'));
    const compact = el(doc, 'button', 'tc-btn-invisible tc-ai-prompt-compact', ctx.lingo('Prompt/Compact'));
    show.setAttribute('type', 'button');
    compact.setAttribute('type', 'button');
    compact.setAttribute('title', ctx.lingo('Prompt/CompactHint'));
    show.addEventListener('click', () => void this.toggle());
    compact.addEventListener('click', () => void this.compact());
    bar.appendChild(show);
    bar.appendChild(compact);
    this.panel = el(doc, 'div', 'tc-ai-prompt-preview');
    this.panel.setAttribute('hidden', '');
  }

  private async toggle(): Promise<void> {
    if (!this.panel.hasAttribute('hidden')) {
      this.panel.setAttribute('hidden', '');
      return;
    }
    await this.refresh();
  }

  /** Ask again (after a compaction, the preview shows the summary in place of the old turns). */
  private async refresh(): Promise<void> {
    const preview = await this.ctx.request(this.ctx.runner().query({ kind: 'preview', chat: this.ctx.chat }));
    if (!preview) return;
    this.render(preview);
    this.panel.removeAttribute('hidden');
  }

  private async compact(): Promise<void> {
    const done = await this.ctx.request(this.ctx.runner().submit({ kind: 'compact', chat: this.ctx.chat }));
    if (done !== undefined && !this.panel.hasAttribute('hidden')) await this.refresh();
  }

  private render(preview: PromptPreview): void {
    const doc = this.ctx.document;
    this.panel.textContent = '';
    const head = this.ctx
      .lingo('Prompt/Head')
      .replace('$model$', preview.model)
      .replace('$total$', formatNumber(preview.total))
      .replace('$window$', formatNumber(preview.window));
    this.panel.appendChild(
      el(doc, 'div', 'tc-ai-prompt-head', head + (preview.trimmed ? ` ${this.ctx.lingo('Prompt/Trimmed').replace('$count$', String(preview.trimmed))}` : '')),
    );
    for (const section of preview.sections) {
      const details = el(doc, 'details', 'tc-ai-prompt-section');
      details.setAttribute('data-section', section.id);
      const count = section.id === 'tools' ? preview.tools.length : section.messages.length;
      const expired = section.messages.filter((m) => m.expired).length;
      const expiredNote = expired ? ` · ${this.ctx.lingo('Prompt/ExpiredCount').replace('$count$', String(expired))}` : '';
      details.appendChild(
        el(
          doc,
          'summary',
          '',
          `${sectionLabel((key) => this.ctx.lingo(key), section.id)} · ${formatNumber(section.tokens)} ${this.ctx.lingo('Prompt/Tokens')} · ${count}${expiredNote}`,
        ),
      );
      if (section.id === 'tools') {
        for (const tool of preview.tools) details.appendChild(el(doc, 'pre', 'tc-ai-prompt-message', `${tool.name}: ${tool.description}\n${tool.parameters}`));
      } else {
        for (const m of section.messages) {
          const extra = [
            m.toolCalls ? `\n[${this.ctx.lingo('Prompt/ToolCalls')}] ${m.toolCalls}` : '',
            m.images ? `\n[${this.ctx.lingo('Prompt/Images').replace('$count$', String(m.images))}]` : '',
          ].join('');
          // A tool result past its rounds: only its stub is sent; marked so the user sees what left.
          const expired = m.expired ? `[${this.ctx.lingo('Prompt/Expired')}] ` : '';
          const pre = el(
            doc,
            'pre',
            `tc-ai-prompt-message tc-ai-prompt-${m.role}${m.expired ? ' tc-ai-prompt-expired' : ''}`,
            `${expired}${m.role}: ${m.content}${extra}`,
          );
          if (m.expired) pre.setAttribute('title', this.ctx.lingo('Prompt/Expired/Hint'));
          details.appendChild(pre);
        }
      }
      this.panel.appendChild(details);
    }
  }
}

/** A section's name; a plugin's Describe tiddler (`describe:<title>`) shows its title. */
function sectionLabel(lingo: (key: string) => string, id: string): string {
  if (id.startsWith('describe:')) return `${lingo('Prompt/Section/describe')}: ${id.slice('describe:'.length)}`;
  return lingo(`Prompt/Section/${id}`) || id;
}
