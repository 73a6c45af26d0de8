/*\
Keeps a scrolling list at its end while the user is there, as a chat should: new messages
and the growing reply stay in view, and scrolling up lets the user read in peace until they
scroll back down.
- A ResizeObserver on the list's items notices every change of their size (a new message,
  the streaming reply growing, a card opening, a message rendered late) right after layout,
  so the list scrolls in the same frame: no extra frame and no forced layout per update.
- Only the user unsticks it. A scroll that leaves the end counts as the user's when it
  follows their wheel, touch, key or pointer within a moment; scrolls that layout causes
  (messages above rendering late, scroll anchoring) do not.
\*/

/** How long after the user's input a scroll away from the end counts as theirs. */
const INTENT_MS = 1000;
/** Within this many pixels of the end counts as at the end. */
const SLACK_PX = 40;
/** Keys that scroll the list (outside a card's input fields). */
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

export class StickToEnd {
  private stuck = true;
  private intentAt = -Infinity;
  private readonly observer?: ResizeObserver;
  private framePending = false;

  constructor(private readonly list: HTMLElement) {
    const intent = () => (this.intentAt = Date.now());
    for (const type of ['wheel', 'touchstart', 'touchmove', 'pointerdown']) list.addEventListener(type, intent, { passive: true });
    list.addEventListener(
      'keydown',
      (event) => {
        const target = event.target as HTMLElement | null;
        if (SCROLL_KEYS.has((event as KeyboardEvent).key) && !/^(INPUT|TEXTAREA|SELECT)$/.test(target?.tagName ?? '')) intent();
      },
      { passive: true },
    );
    list.addEventListener('scroll', () => this.onScroll(), { passive: true });
    if (typeof ResizeObserver === 'function') this.observer = new ResizeObserver(() => this.follow());
  }

  /** Follow this item's size (a message or the streaming reply). */
  observe(item: Element): void {
    if (this.observer) this.observer.observe(item);
    else this.followNextFrame();
  }

  unobserve(item: Element): void {
    this.observer?.unobserve(item);
  }

  /** Go to the end and stay there (the chat opened, the user sent a message). */
  stick(): void {
    this.stuck = true;
    this.followNextFrame();
  }

  /** Content changed without a size change the observer sees (e.g. no ResizeObserver). */
  followNextFrame(): void {
    if (!this.stuck || this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      this.follow();
    });
  }

  disconnect(): void {
    this.observer?.disconnect();
  }

  private follow(): void {
    if (this.stuck) this.list.scrollTop = this.list.scrollHeight;
  }

  private onScroll(): void {
    const atEnd = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < SLACK_PX;
    if (atEnd) this.stuck = true;
    else if (Date.now() - this.intentAt < INTENT_MS) this.stuck = false;
    else this.follow();
  }
}
