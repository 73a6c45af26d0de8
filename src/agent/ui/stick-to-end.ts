/*\
Keeps a chat's end (the newest messages, the growing reply, the composer) in view while the
user is there, as a chat should. The page is the chat's one scroll container (the story river
scrolls; the message list, tool results, cards and diffs never scroll inside themselves), so
following the end moves the window:
- It is armed when the user sends (or Retries, or Edits and resends), and when the chat is
  opened from a link: the window then shows the chat's newest messages and its composer, not
  the start of its window of messages (TiddlyWiki's own scroll to the tiddler's top is taken
  over when the chat is taller than that).
- A ResizeObserver on the messages notices every change of their size (a new message, the
  streaming reply growing, a card opening, a message rendered late) right after layout, so
  the window follows in the same frame: reading the chat's box there forces no layout.
- Only the user disarms it, by scrolling the page up (a scroll within a moment of their wheel,
  touch, key or pointer, which say the way); scrolling back down to the chat's end arms it
  again. Scrolls the user did not make (the story river moving to a tiddler, layout) change
  nothing.
Only a chat in the story river moves the window.
\*/
import { coalesced } from '../clock';

/** How long after the user's input a scroll counts as theirs. */
const INTENT_MS = 1000;
/** Within this many pixels of the end counts as at the end. */
const SLACK_PX = 40;
/** Keys that scroll the page (outside input fields), and which way. */
const SCROLL_KEYS: Record<string, 'up' | 'down'> = { ArrowUp: 'up', PageUp: 'up', Home: 'up', ArrowDown: 'down', PageDown: 'down', End: 'down', ' ': 'down' };
const INTENT_EVENTS = ['wheel', 'touchstart', 'touchmove', 'pointerdown', 'keydown'];

/** TiddlyWiki's animated page scroll (core/modules/utils/dom/scroller.js), which a chat opened from a link takes over. */
interface PageScroller {
  cancelScroll?(view: Window): void;
}

export class StickToEnd {
  private stuck = false;
  private intentAt = -Infinity;
  /**
   * Which way the user's input scrolls. A wheel, a key or a finger says it; the page may have
   * moved before their event arrives (the compositor scrolls first), so the position is
   * compared only for a pointer (the scrollbar), from where it was when they pressed.
   */
  private intent: 'up' | 'down' | 'position' = 'position';
  private y = 0;
  private touchY = 0;
  private readonly observer?: ResizeObserver;
  private readonly followNextFrame = coalesced(
    (run) => requestAnimationFrame(run),
    () => this.follow(),
  );
  /** The next follow takes over TiddlyWiki's scroll to the chat's tiddler (the chat was opened from a link). */
  private opening = false;
  private readonly view: Window | null;
  private readonly onIntent = (event: Event) => {
    let intent: 'up' | 'down' | 'position';
    if (event.type === 'wheel') intent = (event as WheelEvent).deltaY < 0 ? 'up' : 'down';
    else if (event.type === 'keydown') {
      const key = event as KeyboardEvent;
      const way = SCROLL_KEYS[key.key];
      if (!way || /^(INPUT|TEXTAREA|SELECT)$/.test((event.target as HTMLElement | null)?.tagName ?? '')) return;
      intent = key.key === ' ' && key.shiftKey ? 'up' : way;
    } else if (event.type.startsWith('touch')) {
      const y = (event as TouchEvent).touches[0]?.clientY ?? this.touchY;
      // A finger moving down the screen scrolls the page up.
      intent = event.type === 'touchmove' && y > this.touchY ? 'up' : 'down';
      this.touchY = y;
    } else {
      // Reading the position here is free: no render is pending while the user presses.
      intent = 'position';
      this.y = this.view!.scrollY;
    }
    this.intent = intent;
    this.intentAt = Date.now();
  };
  private readonly onScroll = () => this.scrolled();

  constructor(private readonly list: HTMLElement) {
    if (typeof ResizeObserver === 'function') this.observer = new ResizeObserver(() => this.follow());
    this.view = list.ownerDocument?.defaultView ?? null;
    if (!this.view) return;
    for (const type of INTENT_EVENTS) this.view.addEventListener(type, this.onIntent, { passive: true });
    this.view.addEventListener('scroll', this.onScroll, { passive: true });
  }

  /** Follow this item's size (a message or the streaming reply). */
  observe(item: Element): void {
    if (this.observer) this.observer.observe(item);
    else this.followNextFrame();
  }

  unobserve(item: Element): void {
    this.observer?.unobserve(item);
  }

  /** Keep the chat's end in view from now on (the user sent a message; with `opening`, the chat was opened from a link). */
  stick(opening = false): void {
    this.stuck = true;
    this.opening ||= opening;
    this.followNextFrame();
  }

  /** Stop following (the user went to read older messages). */
  release(): void {
    this.stuck = false;
    this.opening = false;
  }

  disconnect(): void {
    this.observer?.disconnect();
    if (!this.view) return;
    for (const type of INTENT_EVENTS) this.view.removeEventListener(type, this.onIntent);
    this.view.removeEventListener('scroll', this.onScroll);
  }

  /** The chat's element, when it is in the story river (else the window is not ours to move). */
  private chat(): Element | null {
    const chat = this.list.closest('.tc-ai-chat');
    return this.view && chat?.closest('.tc-story-river') ? chat : null;
  }

  private follow(): void {
    const chat = this.stuck ? this.chat() : null;
    if (!chat) return;
    const below = chat.getBoundingClientRect().bottom - this.view!.innerHeight;
    if (this.opening) {
      this.opening = false;
      // TiddlyWiki is bringing the tiddler's top into view: a chat taller than the window is shown at its end instead.
      const top = chat.closest('.tc-tiddler-frame')?.getBoundingClientRect().top ?? 0;
      if (below <= top) return;
      ($tw as unknown as { pageScroller?: PageScroller }).pageScroller?.cancelScroll?.(this.view!);
    } else if (below <= 0) return;
    this.view!.scrollTo({ top: this.view!.scrollY + below, behavior: 'instant' });
  }

  /** The user scrolling the page up stops the following; back down at the chat's end, it resumes. */
  private scrolled(): void {
    if (Date.now() - this.intentAt >= INTENT_MS) return;
    let up = this.intent === 'up';
    if (this.intent === 'position') {
      const y = this.view!.scrollY;
      up = y < this.y;
      this.y = y;
    }
    if (up) this.stuck = false;
    else if (!this.stuck) {
      const chat = this.chat();
      if (chat && chat.getBoundingClientRect().bottom - this.view!.innerHeight < SLACK_PX) this.stuck = true;
    }
  }
}
