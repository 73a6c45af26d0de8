/*\
The streaming bubble: the reply as it arrives, before it is a message tiddler. However fast
the deltas come, it renders at most once per STREAM_RENDER_INTERVAL_MS (10 times a second).
The blocks of the reply that can no longer change (settled.ts) render once each, and only
the rest (the tail) renders again, so an update costs the same early and late in a long
reply and whatever the length of the chat. When the reply has been written, the bubble stays
until the message's own view takes its place, so the reply never blinks out.
\*/
import { el, type ChatContext } from './chat-context';
import { renderReasoning } from './message-view';
import { SettledScanner } from './settled';
import { systemClock, type Clock } from '../clock';

export const STREAM_RENDER_INTERVAL_MS = 100;
/**
 * A tail longer than this (one huge block: no blank line for pages) shows as plain text until
 * it settles: rendering it as wikitext ten times a second would cost more with every update
 * (a 5 MB single-block reply blocked the page for 0.8 s at a time).
 */
export const TAIL_WIKITEXT_LIMIT = 20_000;
/** How long a finished bubble waits for its message tiddler before it goes anyway. */
export const HANDOVER_TIMEOUT_MS = 3000;

/**
 * Runs `fn` at most once per `interval`. A request runs it in a task of its own, at once if
 * the last run was an interval ago or more, else when the interval is up; requests in
 * between share that one run.
 */
export class Throttle {
  private timer: unknown;
  private last = -Infinity;

  constructor(
    private readonly fn: () => void,
    private readonly interval: number,
    private readonly clock: Clock = systemClock,
  ) {}

  get pending(): boolean {
    return this.timer !== undefined;
  }

  request(): void {
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.interval - (this.clock.now() - this.last));
    this.timer = this.clock.setTimeout(() => this.run(), wait);
  }

  cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.cancel();
    this.last = this.clock.now();
    this.fn();
  }
}

export interface StreamText {
  text: string;
  reasoning: string;
}

export class StreamView {
  readonly element: HTMLElement;
  /** The reply is complete (finish was called). */
  finished = false;
  /** The message the reply was written as: the bubble waits for its view. */
  awaiting?: string;
  private readonly body: HTMLElement;
  private readonly settledElement: HTMLElement;
  private tailElement: HTMLElement;
  private readonly throttle: Throttle;
  private readonly scanner = new SettledScanner();
  private state: StreamText = { text: '', reasoning: '' };
  private settled = 0;
  /** The tail as last rendered (undefined: not rendered yet). */
  private tailText?: string;
  private reasoning?: { element: HTMLElement; text: string };
  private giveUp: unknown;

  constructor(
    private readonly ctx: ChatContext,
    model: string | undefined,
    private readonly clock: Clock = systemClock,
  ) {
    const doc = ctx.document;
    this.element = el(doc, 'div', 'tc-ai-message tc-ai-message-assistant tc-ai-message-streaming');
    const meta = el(doc, 'div', 'tc-ai-message-meta');
    meta.appendChild(doc.createTextNode(ctx.lingo('Role/assistant')));
    if (model) meta.appendChild(el(doc, 'span', 'tc-ai-message-model', model));
    this.element.appendChild(meta);
    this.body = el(doc, 'div', 'tc-ai-message-body');
    this.settledElement = el(doc, 'div', 'tc-ai-message-settled');
    this.tailElement = el(doc, 'div', 'tc-ai-message-tail');
    this.body.appendChild(this.settledElement);
    this.body.appendChild(this.tailElement);
    this.element.appendChild(this.body);
    this.throttle = new Throttle(() => this.render(), STREAM_RENDER_INTERVAL_MS, clock);
  }

  /** The reply so far (the live state's `streaming`); it shows with the next render. */
  update(state: StreamText): void {
    this.state = state;
    this.throttle.request();
  }

  /**
   * The reply is complete: wait, a few seconds at most, for its message view. A render still
   * pending shows the last text in its turn (usually the view is there first).
   */
  finish(title: string | undefined, giveUp: () => void): void {
    this.finished = true;
    this.awaiting = title;
    this.giveUp = this.clock.setTimeout(giveUp, HANDOVER_TIMEOUT_MS);
  }

  destroy(): void {
    this.throttle.cancel();
    if (this.giveUp !== undefined) this.clock.clearTimeout(this.giveUp);
    this.element.parentNode?.removeChild(this.element);
  }

  private render(): void {
    const { text, reasoning } = this.state;
    if (reasoning && !this.reasoning) {
      const { details, text } = renderReasoning(this.ctx, '');
      this.element.insertBefore(details, this.body);
      this.reasoning = { element: text, text: '' };
    }
    if (this.reasoning && this.reasoning.text !== reasoning) {
      this.reasoning.element.textContent = reasoning;
      this.reasoning.text = reasoning;
    }
    // Blocks that can no longer change render once; only the tail is redone. Each renders
    // into a detached element that then goes into the page in one step (far cheaper than
    // inserting the nodes one by one into the live document).
    const settled = this.scanner.scan(text);
    if (settled > this.settled) {
      const block = el(this.ctx.document, 'div', 'tc-ai-message-block');
      this.ctx.renderWikitext(text.slice(this.settled, settled), block);
      this.settledElement.appendChild(block);
      this.settled = settled;
    }
    const tail = text.slice(this.settled);
    if (tail !== this.tailText) {
      const element = el(this.ctx.document, 'div', 'tc-ai-message-tail');
      if (tail.length > TAIL_WIKITEXT_LIMIT) {
        element.classList.add('tc-ai-message-plain');
        element.textContent = tail;
      } else this.ctx.renderWikitext(tail, element);
      // The old tail's widgets go with their element: nothing else refers to them.
      this.body.insertBefore(element, this.tailElement);
      this.body.removeChild(this.tailElement);
      this.tailElement = element;
      this.tailText = tail;
    }
  }
}
