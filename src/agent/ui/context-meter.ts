/*\
The context meter, under a chat: the last prompt's tokens against the window (a line of text),
a stacked bar of how far its parts (system, tools, user messages, replies, tool results) fill
the window, with a legend of each part's share of the prompt and an accessible label, and a warning in words once the prompt nears the point
where older turns are summarized (the agent's `agent-compact-at`, DEFAULT_COMPACT_AT when
unset), or, with compaction off, where the oldest messages start to be left out.
\*/
import type { LiveChatState } from '$:/plugins/tiddlyagent/agent/page.js';
import { DEFAULT_COMPACT_AT } from '../engine/compaction';
import { el, formatNumber, ShownWhen, type ChatContext } from './chat-context';

type ContextUsage = NonNullable<LiveChatState['context']>;

/** The meter warns this many percentage points before the compaction point (or a full window). */
export const WARN_BEFORE = 10;

const PARTS = ['system', 'tools', 'user', 'assistant', 'toolResults', 'history'] as const;
type Part = (typeof PARTS)[number];
const PART_KEYS: Record<Part, string> = {
  system: 'Meter/System',
  tools: 'Meter/Tools',
  user: 'Meter/User',
  assistant: 'Meter/Assistant',
  toolResults: 'Meter/ToolResults',
  history: 'Meter/History',
};

/** Tokens by part; `history` only for a usage stored before the breakdown existed. */
function parts(usage: ContextUsage): Record<Part, number> {
  const split = usage.user !== undefined && usage.assistant !== undefined && usage.toolResults !== undefined;
  const byKind = split ? usage.user! + usage.assistant! + usage.toolResults! : 0;
  return {
    // The trimmed-history placeholder is a system line too.
    system: usage.system + usage.transient + (split ? Math.max(0, usage.history - byKind) : 0),
    tools: usage.tools,
    user: split ? usage.user! : 0,
    assistant: split ? usage.assistant! : 0,
    toolResults: split ? usage.toolResults! : 0,
    history: split ? 0 : usage.history,
  };
}

/** Percent of a whole, rounded. */
const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) : 0);

export class ContextMeter {
  readonly element: HTMLElement;
  private readonly shown: ShownWhen;

  constructor(private readonly ctx: ChatContext) {
    this.element = el(ctx.document, 'div', 'tc-ai-chat-meter');
    this.shown = new ShownWhen(this.element);
  }

  /** Show the last prompt's usage; `compactAt` is the agent's setting as written (blank: the default). */
  show(usage: ContextUsage | undefined, compactAt: unknown): void {
    const at = compactionPoint(compactAt);
    if (!this.shown.changed(usage ? `${JSON.stringify(usage)} ${at}` : '') || !usage) return;
    const doc = this.ctx.document;
    const share = usage.window ? Math.min(100, Math.round((usage.total / usage.window) * 100)) : 0;
    this.element.textContent = '';
    this.element.setAttribute('data-share', String(share));
    const text = el(
      doc,
      'span',
      'tc-ai-meter-text',
      this.ctx
        .lingo('Meter')
        .replace('$total$', formatNumber(usage.total))
        .replace('$window$', formatNumber(usage.window))
        .replace('$system$', String(usage.system + usage.transient))
        .replace('$tools$', String(usage.tools))
        .replace('$history$', String(usage.history)),
    );
    this.element.appendChild(text);
    this.element.appendChild(this.bar(usage, share));
    const near = usage.window > 0 && usage.total / usage.window >= ((at > 0 ? at : 100) - WARN_BEFORE) / 100;
    this.element.setAttribute('data-state', near ? 'near' : 'ok');
    if (near) {
      const words = this.ctx.lingo(at > 0 ? 'Meter/Near' : 'Meter/NearTrim');
      this.element.appendChild(el(doc, 'span', 'tc-ai-meter-warning', words.replace('$share$', String(share)).replace('$at$', String(at))));
    }
  }

  /**
   * The stacked bar (how far the prompt fills the window, by part) and its legend (each part's
   * share of the prompt), in words for assistive technology too.
   */
  private bar(usage: ContextUsage, share: number): HTMLElement {
    const doc = this.ctx.document;
    const tokens = parts(usage);
    const shown = PARTS.filter((p) => tokens[p] > 0 || p !== 'history');
    const words = shown.map((p) => `${this.ctx.lingo(PART_KEYS[p])} ${percent(tokens[p], usage.total)}%`);
    const box = el(doc, 'div', 'tc-ai-meter-breakdown');
    const bar = el(doc, 'div', 'tc-ai-meter-bar');
    bar.setAttribute('role', 'img');
    bar.setAttribute('aria-label', this.ctx.lingo('Meter/Bar').replace('$parts$', words.join(' · ')).replace('$share$', String(share)));
    const legend = el(doc, 'div', 'tc-ai-meter-legend');
    legend.setAttribute('aria-hidden', 'true');
    shown.forEach((p, i) => {
      const width = usage.window > 0 ? Math.min(100, (tokens[p] / Math.max(usage.window, usage.total)) * 100) : 0;
      if (width > 0) {
        const segment = el(doc, 'span', 'tc-ai-meter-part');
        segment.setAttribute('data-part', p);
        segment.style.width = `${width.toFixed(2)}%`;
        segment.title = words[i]!;
        bar.appendChild(segment);
      }
      const key = el(doc, 'span', 'tc-ai-meter-key', words[i]);
      key.setAttribute('data-part', p);
      legend.appendChild(key);
    });
    box.appendChild(bar);
    box.appendChild(legend);
    return box;
  }
}

/** The agent's compaction point in percent (0: compaction is off). */
export function compactionPoint(value: unknown): number {
  const text = String(value ?? '').trim();
  if (!/^\d+$/.test(text)) return DEFAULT_COMPACT_AT;
  return Math.min(100, Number(text));
}
