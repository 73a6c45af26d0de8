/*\
What the chat says about its turn, under the messages: the status line (working, running
tools, retrying, queued messages, a refused request), a notice of what a request did, the bubbles of messages queued behind
the running turn, and the context meter (tokens of the last prompt against the window).
It shows the runner's live state; without one (in Node, or before the first event) it reads
the chat tiddler's `agent-status` and `agent-context-usage`.
\*/
import type { LiveChatState } from '$:/plugins/tiddlyagent/agent/page.js';
import { el, type ChatContext } from './chat-context';
import { ContextMeter } from './context-meter';

type ContextUsage = NonNullable<LiveChatState['context']>;

export class StatusBar {
  /** The queued messages' bubbles, between the messages and the footer. */
  readonly queued: HTMLElement;
  /** The status line and the meter. */
  readonly footer: HTMLElement;
  private readonly line: HTMLElement;
  /** What the user's last request did, when it needs saying (ChatContext.notify); announced. */
  private readonly notice: HTMLElement;
  private readonly meter: ContextMeter;
  private shownQueue = '';

  constructor(private readonly ctx: ChatContext) {
    const doc = ctx.document;
    this.queued = el(doc, 'div', 'tc-ai-chat-queued');
    this.footer = el(doc, 'div', 'tc-ai-chat-footer');
    this.line = el(doc, 'div', 'tc-ai-chat-status');
    this.meter = new ContextMeter(ctx);
    this.notice = el(doc, 'div', 'tc-ai-chat-notice');
    this.notice.setAttribute('role', 'status');
    this.footer.appendChild(this.line);
    this.footer.appendChild(this.notice);
    this.footer.appendChild(this.meter.element);
  }

  /** Say what a request did, until the next request ('' clears it). */
  notify(text: string): void {
    if (this.notice.textContent !== text) this.notice.textContent = text;
  }

  /** Show the live state (and why the last request was refused); returns the status shown. */
  update(live: LiveChatState, requestError: string): string {
    const fields = this.ctx.wiki.getTiddler(this.ctx.chat)?.fields;
    const active = this.ctx.browser && live.status === 'working';
    const status = this.ctx.browser && live.status ? live.status : String(fields?.['agent-status'] ?? 'idle');
    let line = this.ctx.lingo(`Status/${status}`);
    const retrying = active ? live.retrying : undefined;
    if (retrying) {
      line = this.ctx
        .lingo('Retrying')
        .replace('$attempt$', String(retrying.attempt))
        .replace('$max$', String(retrying.maxAttempts))
        .replace('$seconds$', String(Math.round(retrying.delayMs / 1000)));
    } else if (active && live.runningTools.length) {
      line = this.ctx.lingo('RunningTools').replace('$tools$', live.runningTools.join(', '));
    }
    const queued = live.queue.map((q) => q.text);
    if (queued.length) line += ` ${this.ctx.lingo('Queued').replace('$count$', String(queued.length))}`;
    if (requestError) line += ` ${requestError}`;
    if (this.line.textContent !== line) this.line.textContent = line;
    this.showQueue(queued);
    const agent = fields?.agent ? this.ctx.wiki.getTiddler(String(fields.agent))?.fields : undefined;
    this.meter.show(live.context ?? storedUsage(fields?.['agent-context-usage']), agent?.['agent-compact-at']);
    return status;
  }

  private showQueue(queued: string[]): void {
    const key = JSON.stringify(queued);
    if (key === this.shownQueue) return;
    this.shownQueue = key;
    this.queued.textContent = '';
    for (const message of queued) this.queued.appendChild(el(this.ctx.document, 'div', 'tc-ai-message tc-ai-message-user tc-ai-message-queued', message));
  }
}

function storedUsage(value: unknown): ContextUsage | undefined {
  try {
    return value ? (JSON.parse(String(value)) as ContextUsage) : undefined;
  } catch {
    return undefined;
  }
}
