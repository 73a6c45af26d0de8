/*\
The chat's messages as a list that renders only its window: the last `shown` messages (a page
at first, a page more for each "Show older"). The list never scrolls inside itself: the page
does (stick-to-end.ts). It keeps
- an index of the chat's messages in order, built once when the chat opens and then updated
  from the titles each wiki change touches, so a refresh never lists the whole chat again;
- one view per message in the window, rebuilt only when its tiddler changes;
- the turn action bars on the messages that end a turn, and the bars of user messages and
  of the messages where the chat forks (Edit, Copy, the switch between versions);
- the window at the chat's end while the user is there.
Opening a long chat renders its newest messages first and the rest of the window after the
first frame, a batch at a time when the page is idle, so a chat of 1,000 messages opens as
fast as one of 10.
\*/
import type { IChangedTiddlers, ITiddlerFields } from 'tiddlywiki';
import { el, type ChatContext } from './chat-context';
import { MessageView } from './message-view';
import { StickToEnd } from './stick-to-end';
import { SourceWatch } from './source-watch';
import { barKey, placeTurnBars, renderTurnBar, type ListedMessage } from './turn-actions';
import { chatForks, messageBarKey, messageBarSpec, renderMessageBar } from './message-actions';

/** Messages rendered before the first frame of a newly shown chat: about a screenful. */
export const FIRST_BATCH = 10;
/** Messages rendered per later step while the rest of the window fills in. */
export const FILL_BATCH = 10;

/** The chat's messages in order (by `agent-seq`), kept up to date title by title. */
export class MessageIndex {
  private list: ListedMessage[] = [];
  private byTitle = new Map<string, ListedMessage>();

  constructor(
    private readonly chat: string,
    private readonly read: (title: string) => Partial<ITiddlerFields> | undefined,
  ) {}

  get all(): readonly ListedMessage[] {
    return this.list;
  }

  get(title: string): ListedMessage | undefined {
    return this.byTitle.get(title);
  }

  /** Whether a change to this title concerns the chat: it is, or was until now, one of its messages. */
  concerns(title: string): boolean {
    return this.byTitle.has(title) || this.entry(title) !== undefined;
  }

  /** Start again from these titles (the chat's messages, in any order). */
  reset(titles: Iterable<string>): void {
    this.list = [];
    this.byTitle.clear();
    for (const title of titles) {
      const entry = this.entry(title);
      if (entry) {
        this.list.push(entry);
        this.byTitle.set(title, entry);
      }
    }
    this.list.sort((a, b) => a.seq - b.seq);
  }

  /** Bring these titles (created, changed or deleted) in line with the wiki. */
  update(titles: Iterable<string>): void {
    for (const title of titles) {
      const old = this.byTitle.get(title);
      const entry = this.entry(title);
      if (old && entry && old.seq === entry.seq && old.role === entry.role) continue;
      if (old) {
        this.list.splice(this.list.indexOf(old), 1);
        this.byTitle.delete(title);
      }
      if (entry) {
        this.list.splice(this.upperBound(entry.seq), 0, entry);
        this.byTitle.set(title, entry);
      }
    }
  }

  private entry(title: string): ListedMessage | undefined {
    const fields = this.read(title);
    // A schedule names the chat it wakes in `agent-chat` too; a message also has its `agent-seq`.
    if (!fields || fields['agent-chat'] !== this.chat || fields['agent-seq'] === undefined) return undefined;
    return { title, seq: Number(fields['agent-seq']) || 0, role: String(fields.role ?? '') };
  }

  /** Where a message with this seq goes: after every message with the same or a lower seq. */
  private upperBound(seq: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.list[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export interface MessageListOptions {
  pageSize: number;
  /** Whether a turn runs: the last turn's bar offers Retry only once it has ended. */
  isActive(): boolean;
  /** Run `fn` after the next frame, when the page is idle; returns a cancel function (browser only). */
  afterFrame?(fn: () => void): () => void;
}

export class MessageList {
  readonly element: HTMLElement;
  private readonly olderButton: HTMLElement;
  private readonly index: MessageIndex;
  private readonly views = new Map<string, MessageView>();
  /** Shown replies by the titles of their sources: a wiki change checks only those it touches. */
  private readonly sourceWatch = new SourceWatch<MessageView>();
  private shown: number;
  /** Where new messages go: before the streaming bubble, if there is one. */
  private endAnchor: HTMLElement | null = null;
  private cancelFill?: () => void;
  /** Browser only: the window follows the chat's end while the user is there. */
  private readonly follow?: StickToEnd;

  constructor(
    private readonly ctx: ChatContext,
    private readonly options: MessageListOptions,
  ) {
    const doc = ctx.document;
    this.shown = options.pageSize;
    this.element = el(doc, 'div', 'tc-ai-chat-messages');
    this.olderButton = el(doc, 'button', 'tc-btn-invisible tc-ai-chat-older');
    this.olderButton.addEventListener?.('click', () => this.showOlder());
    this.element.appendChild(this.olderButton);
    if (ctx.browser) this.follow = new StickToEnd(this.element);
    this.index = new MessageIndex(ctx.chat, (title) => ctx.wiki.getTiddler(title)?.fields);
    this.index.reset(ctx.filter('[field:agent-chat<chat>has[agent-seq]]', { chat: ctx.chat }));
  }

  /** The chat's messages in order. */
  get messages(): readonly ListedMessage[] {
    return this.index.all;
  }

  /** The prices changed: each shown reply's cost is shown again, nothing else is rebuilt. */
  showCosts(): void {
    for (const view of this.views.values()) view.showCost(this.ctx);
  }

  /** Of these changed titles, those that are or were messages of the chat. */
  touched(titles: string[]): string[] {
    return titles.filter((title) => this.index.concerns(title));
  }

  /** Whether the message has a view (the streaming bubble hands over to it). */
  has(title: string): boolean {
    return this.views.has(title);
  }

  /**
   * Bring the window in line with the wiki: `touched` are the message titles a wiki change
   * touched (all of them when the chat is first shown). On first show in a browser, only
   * the newest messages render now; the rest follow after the frame, a batch at a time.
   */
  sync(touched?: Iterable<string>): void {
    if (touched) this.index.update(touched);
    const all = this.index.all;
    const first = Math.max(0, all.length - this.shown);
    const wanted = new Set<string>();
    for (let i = first; i < all.length; i++) wanted.add(all[i]!.title);
    for (const [title, view] of this.views) {
      if (!wanted.has(title) || view.tiddler !== this.ctx.wiki.getTiddler(title)) {
        this.follow?.unobserve(view.element);
        this.sourceWatch.remove(view);
        view.remove();
        this.views.delete(title);
      }
    }
    const opening = this.views.size === 0 && !!this.options.afterFrame;
    this.renderMissing(first, opening ? FIRST_BATCH : Infinity);
    const hidden = first;
    this.olderButton.textContent = hidden > 0 ? this.ctx.lingo('ShowOlder').replace('$count$', String(hidden)) : '';
    if (hidden > 0) this.olderButton.removeAttribute('hidden');
    else this.olderButton.setAttribute('hidden', '');
  }

  /** Render up to `budget` messages of the window that have no view yet, newest first. */
  private renderMissing(first: number, budget: number): void {
    this.cancelFill?.();
    this.cancelFill = undefined;
    const all = this.index.all;
    let next = this.endAnchor;
    let missing = false;
    for (let i = all.length - 1; i >= first; i--) {
      const { title } = all[i]!;
      let view = this.views.get(title);
      if (!view) {
        if (budget <= 0) {
          missing = true;
          continue;
        }
        budget--;
        view = new MessageView(this.ctx, title, this.ctx.wiki.getTiddler(title));
        this.views.set(title, view);
        if (view.sources) this.sourceWatch.add(view, view.sources.watched);
        this.element.insertBefore(view.element, next);
        this.follow?.observe(view.element);
      }
      next = view.element;
    }
    this.syncBars();
    if (missing && this.options.afterFrame) {
      this.cancelFill = this.options.afterFrame(() => {
        this.cancelFill = undefined;
        this.renderMissing(Math.max(0, this.index.all.length - this.shown), FILL_BATCH);
      });
    }
  }

  /** Put the turn action bar on the last message of every turn in the window, and each message's own bar (browser only). */
  syncBars(): void {
    if (!this.ctx.browser) return;
    const all = this.index.all;
    const bars = placeTurnBars(all, Math.max(0, all.length - this.shown), this.options.isActive());
    const forks = chatForks(this.ctx, all);
    for (const [title, view] of this.views) {
      const listed = this.index.get(title);
      const own = listed && messageBarSpec(listed, forks);
      const ownKey = own ? messageBarKey(own) : '';
      if ((view.actions?.key ?? '') !== ownKey) {
        view.actions?.remove();
        view.actions = own ? renderMessageBar(this.ctx, own, ownKey) : undefined;
        if (view.actions) view.element.insertBefore(view.actions.element, view.bar?.element ?? null);
      }
      const spec = bars.get(title);
      const key = spec ? barKey(this.ctx, spec) : '';
      if ((view.bar?.key ?? '') === key) continue;
      view.bar?.remove();
      view.bar = spec ? renderTurnBar(this.ctx, spec, key) : undefined;
      if (view.bar) view.element.appendChild(view.bar.element);
    }
  }

  /** The streaming bubble sits after every message; new messages go in before it. */
  setEndAnchor(element: HTMLElement | null): void {
    if (this.endAnchor) this.follow?.unobserve(this.endAnchor);
    if (element && element.parentNode !== this.element) this.element.appendChild(element);
    if (element) this.follow?.observe(element);
    this.endAnchor = element;
  }

  refresh(changed: IChangedTiddlers): void {
    for (const view of this.views.values()) view.refresh(changed);
    // Sources: only the replies that record a changed title are compared again (source-watch.ts).
    for (const view of this.sourceWatch.affected(Object.keys(changed))) view.sources?.check();
  }

  destroy(): void {
    this.cancelFill?.();
    this.cancelFill = undefined;
    this.follow?.disconnect();
  }

  /** A page more of older messages, above the ones shown: the message the reader was at stays where it was on the screen. */
  private showOlder(): void {
    this.follow?.release();
    const anchor = this.olderButton.nextElementSibling;
    const before = anchor?.getBoundingClientRect().top ?? 0;
    this.shown += this.options.pageSize;
    this.sync();
    const moved = (anchor?.getBoundingClientRect().top ?? 0) - before;
    if (moved) this.element.ownerDocument.defaultView?.scrollBy({ top: moved, behavior: 'instant' });
  }

  /** Keep the chat's end in view from now on (the user sent a message; with `opening`, the chat was opened from a link). */
  followEnd(opening = false): void {
    this.follow?.stick(opening);
  }
}
