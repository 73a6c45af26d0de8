/*\
The chat's Export control (in its footer): a button that opens a small menu of three choices,
a JSON tiddler bundle and Markdown (downloaded through TiddlyWiki's tm-download-file) and a
transcript tiddler made in this wiki (runner/services/transfer.ts). The menu works as menus do: Enter,
Space or the arrow keys on the button open it with a choice focused, the arrow keys (and Home,
End) move between the choices, Escape closes it and gives the focus back to the button, and a
choice, Tab or a click elsewhere closes it. While a turn runs the export holds what is
finished, and the line beside the button says so.
\*/
import { lib } from './library';
import { el, type ChatContext } from './chat-context';

/** Where a download's text waits for tm-download-file to render it (hidden from the agent). */
const DOWNLOAD_TIDDLER = '$:/temp/tiddlyagent/export';
const FORMATS = [
  ['json', 'Transfer/Export/Json'],
  ['markdown', 'Transfer/Export/Markdown'],
  ['wikitext', 'Transfer/Export/Wikitext'],
] as const;
/** Ids for aria-controls, unique in the page (several chats may be open). */
let menus = 0;

export class ExportMenu {
  readonly element: HTMLElement;
  private readonly menu: HTMLElement;
  private readonly toggle: HTMLElement;
  private readonly items: HTMLElement[] = [];
  private readonly result: HTMLElement;
  /** Closes the menu on a click outside it, while it is open. */
  private readonly onOutside = (event: Event) => {
    if (!this.element.contains(event.target as Node)) this.show(false);
  };

  constructor(
    private readonly ctx: ChatContext,
    private readonly dispatch: (event: { type: string; param?: string; paramObject?: Record<string, string> }) => void,
  ) {
    const doc = ctx.document;
    this.element = el(doc, 'div', 'tc-ai-export');
    this.toggle = el(doc, 'button', 'tc-btn-invisible tc-ai-export-toggle', ctx.lingo('Transfer/Export/Button'));
    this.toggle.setAttribute('type', 'button');
    this.toggle.setAttribute('title', ctx.lingo('Transfer/Export/Hint'));
    this.toggle.setAttribute('aria-haspopup', 'menu');
    this.toggle.setAttribute('aria-expanded', 'false');
    this.menu = el(doc, 'div', 'tc-ai-export-menu');
    this.menu.id = `tc-ai-export-menu-${++menus}`;
    this.toggle.setAttribute('aria-controls', this.menu.id);
    this.menu.setAttribute('role', 'menu');
    this.menu.setAttribute('aria-label', ctx.lingo('Transfer/Export/Hint'));
    this.menu.setAttribute('hidden', '');
    for (const [format, key] of FORMATS) {
      const item = el(doc, 'button', 'tc-btn-invisible tc-ai-export-item', ctx.lingo(key));
      item.setAttribute('type', 'button');
      item.setAttribute('role', 'menuitem');
      item.setAttribute('tabindex', '-1');
      item.setAttribute('data-ai-export', format);
      item.addEventListener('click', () => this.export(format));
      this.items.push(item);
      this.menu.appendChild(item);
    }
    this.result = el(doc, 'span', 'tc-ai-export-result');
    this.result.setAttribute('role', 'status');
    this.toggle.addEventListener('click', () => {
      const open = this.menu.hasAttribute('hidden');
      this.show(open);
      if (open) this.focusItem(0);
    });
    this.toggle.addEventListener('keydown', (event) => {
      const key = (event as KeyboardEvent).key;
      if (key !== 'ArrowDown' && key !== 'ArrowUp') return;
      event.preventDefault();
      this.show(true);
      this.focusItem(key === 'ArrowDown' ? 0 : this.items.length - 1);
    });
    this.menu.addEventListener('keydown', (event) => this.onMenuKey(event as KeyboardEvent));
    this.element.append(this.toggle, this.menu, this.result);
  }

  private onMenuKey(event: KeyboardEvent): void {
    const at = this.items.indexOf(event.target as HTMLElement);
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: this.items.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      this.focusItem((moves[event.key]! + this.items.length) % this.items.length);
    } else if (event.key === 'Escape') {
      // The chat's own Escape (stop the reply) is for the composer, not for a menu.
      event.preventDefault();
      event.stopPropagation();
      this.show(false);
      this.toggle.focus();
    } else if (event.key === 'Tab') {
      this.show(false);
    }
  }

  private focusItem(index: number): void {
    this.items[index]?.focus();
  }

  private show(open: boolean): void {
    const doc = this.ctx.document;
    if (open) {
      this.menu.removeAttribute('hidden');
      doc.addEventListener('pointerdown', this.onOutside, true);
      // Kept inside the window: the menu opens to the left of the button where the right is too narrow.
      this.menu.classList.remove('tc-ai-export-menu-left');
      if (this.menu.getBoundingClientRect().right > (doc.defaultView?.innerWidth ?? Infinity)) this.menu.classList.add('tc-ai-export-menu-left');
    } else {
      this.menu.setAttribute('hidden', '');
      doc.removeEventListener('pointerdown', this.onOutside, true);
    }
    this.toggle.setAttribute('aria-expanded', String(open));
  }

  private export(format: (typeof FORMATS)[number][0]): void {
    this.show(false);
    this.toggle.focus();
    try {
      const result = lib().exportChat(this.ctx.wiki, this.ctx.chat, format);
      if (result.file) {
        this.ctx.wiki.addTiddler({ title: DOWNLOAD_TIDDLER, type: 'text/plain', text: result.file.text } as never);
        this.dispatch({ type: 'tm-download-file', param: DOWNLOAD_TIDDLER, paramObject: { filename: result.file.name, type: result.file.type } });
        this.ctx.wiki.deleteTiddler(DOWNLOAD_TIDDLER);
      } else if (result.tiddler) this.ctx.navigate(result.tiddler);
      const done = this.ctx.lingo('Transfer/Export/Done').replace('$name$', result.file?.name ?? result.tiddler ?? '');
      this.result.textContent = result.running ? `${done} ${this.ctx.lingo('Transfer/Export/Running')}` : done;
    } catch (e) {
      this.result.textContent = `${this.ctx.lingo('Transfer/Export/Failed')} ${(e as Error).message}`;
    }
  }
}
