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
- The page follows too, once the user sent a message from a chat in the story river: in the
  same observer callback (layout is fresh there, so reading the chat's box forces nothing)
  the window scrolls just enough to keep the chat's end (the reply and the composer) in
  view. The user scrolling the page up stops that; scrolling back down to the chat's end
  resumes it.
\*/

/** How long after the user's input a scroll away from the end counts as theirs. */
const INTENT_MS = 1000;
/** Within this many pixels of the end counts as at the end. */
const SLACK_PX = 40;
/** Keys that scroll the list (outside a card's input fields). */
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);
const INTENT_EVENTS = ['wheel', 'touchstart', 'touchmove', 'pointerdown', 'keydown'];

/** A listener that calls `intent` on the user's wheel, touch, pointer or scrolling key. */
function intentListener(intent: () => void): (event: Event) => void {
  return (event) => {
    if (event.type !== 'keydown') return intent();
    const target = event.target as HTMLElement | null;
    if (SCROLL_KEYS.has((event as KeyboardEvent).key) && !/^(INPUT|TEXTAREA|SELECT)$/.test(target?.tagName ?? '')) intent();
  };
}

export class StickToEnd {
  private stuck = true;
  private intentAt = -Infinity;
  private readonly observer?: ResizeObserver;
  private framePending = false;
  /** Whether the window follows the chat's end: armed by the user's message, ended by their scrolling the page up. */
  private pageStuck = false;
  private pageIntentAt = -Infinity;
  private pageY = 0;
  private readonly view: Window | null;
  // The position before the user's scroll, read on their input: never while the chat renders
  // (reading scrollY then would force a layout of the whole page).
  private readonly onPageIntent = intentListener(() => {
    this.pageIntentAt = Date.now();
    this.pageY = this.view!.scrollY;
  });
  private readonly onPageScroll = () => this.pageScrolled();

  constructor(private readonly list: HTMLElement) {
    const onIntent = intentListener(() => (this.intentAt = Date.now()));
    for (const type of INTENT_EVENTS) list.addEventListener(type, onIntent, { passive: true });
    list.addEventListener('scroll', () => this.onScroll(), { passive: true });
    if (typeof ResizeObserver === 'function') this.observer = new ResizeObserver(() => this.follow());
    this.view = list.ownerDocument?.defaultView ?? null;
    if (this.view) {
      for (const type of INTENT_EVENTS) this.view.addEventListener(type, this.onPageIntent, { passive: true });
      this.view.addEventListener('scroll', this.onPageScroll, { passive: true });
    }
  }

  /** Follow this item's size (a message or the streaming reply). */
  observe(item: Element): void {
    if (this.observer) this.observer.observe(item);
    else this.followNextFrame();
  }

  unobserve(item: Element): void {
    this.observer?.unobserve(item);
  }

  /** Go to the end and stay there (the chat opened, the user sent a message); with `page`, the window follows too. */
  stick(page = false): void {
    this.stuck = true;
    if (page) this.pageStuck = true;
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
    if (!this.view) return;
    for (const type of INTENT_EVENTS) this.view.removeEventListener(type, this.onPageIntent);
    this.view.removeEventListener('scroll', this.onPageScroll);
  }

  private follow(): void {
    if (!this.stuck) return;
    this.list.scrollTop = this.list.scrollHeight;
    if (this.pageStuck) this.followPage();
  }

  /** How far the chat's end is below the window's, or undefined for a chat outside the story river. */
  private belowFold(): number | undefined {
    const chat = this.list.closest('.tc-ai-chat');
    if (!this.view || !chat?.closest('.tc-story-river')) return undefined;
    return chat.getBoundingClientRect().bottom - this.view.innerHeight;
  }

  private followPage(): void {
    const below = this.belowFold();
    if (!below || below <= 0) return;
    this.view!.scrollTo({ top: this.view!.scrollY + below, behavior: 'instant' });
    this.pageY = this.view!.scrollY;
  }

  private onScroll(): void {
    const atEnd = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < SLACK_PX;
    if (atEnd) this.stuck = true;
    else if (Date.now() - this.intentAt < INTENT_MS) this.stuck = false;
    else this.follow();
  }

  /** Only the user's scrolling changes whether the page follows: up stops it, down to the chat's end resumes it. */
  private pageScrolled(): void {
    // Scrolls the user did not make (the story river moving to a tiddler, layout) change nothing, and cost nothing.
    if (Date.now() - this.pageIntentAt >= INTENT_MS) return;
    const y = this.view!.scrollY;
    const up = y < this.pageY;
    this.pageY = y;
    if (up) this.pageStuck = false;
    else if (!this.pageStuck && (this.belowFold() ?? Infinity) < SLACK_PX) this.pageStuck = true;
  }
}
