/*\
The chat composer: a multi-line input (Esc stops; Ctrl+Enter, the ai-send keyboard shortcut
in ui/shortcuts/, sends), Send and Stop, and
tiddler attachments as chips. Typing `[[` or `@` (or pressing Attach) opens a title
autocomplete; the chosen tiddler becomes a chip and its rendered text goes with the message.
An image pasted or dropped onto it becomes an image tiddler and a chip (ui/pasted-images.ts).
Unsent text and chips survive a re-render of the chat.
\*/
import { carriesFiles, filesOf } from './pasted-images';

export interface ComposerHost {
  document: Document;
  lingo(key: string): string;
  /** Titles the user may attach that match what they typed (hidden tiddlers excluded). */
  suggest(query: string): string[];
  send(text: string, attachments: string[]): void;
  stop(): void;
  isActive(): boolean;
  navigate(title: string): void;
  /** Save pasted or dropped files as image tiddlers; the titles saved (what is refused, the host says). */
  attachFiles?(files: File[]): Promise<string[]>;
}

interface Draft {
  text: string;
  attachments: string[];
}

const drafts = new Map<string, Draft>();
const TRIGGER = /(?:\[\[|@)([^[\]\n@|]*)$/;

export class Composer {
  readonly element: HTMLElement;
  readonly stopButton: HTMLButtonElement;
  private textarea: HTMLTextAreaElement;
  private chips: HTMLElement;
  private suggestions: HTMLElement;
  private draft: Draft;
  private selected = 0;

  constructor(
    private readonly host: ComposerHost,
    private readonly chat: string,
    initialAttachments: string[],
  ) {
    const doc = host.document;
    this.draft = drafts.get(chat) ?? { text: '', attachments: [] };
    for (const title of initialAttachments) if (!this.draft.attachments.includes(title)) this.draft.attachments.push(title);
    drafts.set(chat, this.draft);

    this.element = make(doc, 'div', 'tc-ai-chat-composer');
    this.chips = make(doc, 'div', 'tc-ai-composer-chips');
    this.suggestions = make(doc, 'div', 'tc-ai-attach-suggestions');
    this.suggestions.setAttribute('hidden', '');
    this.textarea = make(doc, 'textarea', 'tc-ai-chat-input') as HTMLTextAreaElement;
    this.textarea.rows = 3;
    this.textarea.placeholder = host.lingo('Placeholder');
    this.textarea.setAttribute('aria-label', host.lingo('Composer/Label'));
    this.textarea.value = this.draft.text;
    this.textarea.addEventListener('input', () => {
      this.draft.text = this.textarea.value;
      this.updateSuggestions();
    });
    this.textarea.addEventListener('keydown', (event) => this.onKey(event));
    this.textarea.addEventListener('paste', (event) => this.takeFiles(event, event.clipboardData, true));
    this.element.addEventListener('dragover', (event) => {
      if (carriesFiles(event.dataTransfer)) event.preventDefault();
    });
    this.element.addEventListener('drop', (event) => this.takeFiles(event, event.dataTransfer, false));

    const send = make(doc, 'button', 'tc-ai-chat-send', host.lingo('Send')) as HTMLButtonElement;
    send.title = host.lingo('SendHint');
    send.addEventListener('click', () => this.send());
    this.stopButton = make(doc, 'button', 'tc-ai-chat-stop', host.lingo('Stop')) as HTMLButtonElement;
    this.stopButton.addEventListener('click', () => host.stop());
    const attach = make(doc, 'button', 'tc-ai-chat-attach', host.lingo('Attach')) as HTMLButtonElement;
    attach.title = host.lingo('AttachHint');
    attach.addEventListener('click', () => {
      this.textarea.focus();
      this.textarea.setRangeText('@', this.textarea.selectionStart, this.textarea.selectionEnd, 'end');
      this.draft.text = this.textarea.value;
      this.updateSuggestions();
    });

    const input = make(doc, 'div', 'tc-ai-composer-input');
    input.appendChild(this.chips);
    input.appendChild(this.textarea);
    input.appendChild(this.suggestions);
    const buttons = make(doc, 'div', 'tc-ai-chat-buttons');
    buttons.appendChild(send);
    buttons.appendChild(this.stopButton);
    buttons.appendChild(attach);
    this.element.appendChild(input);
    this.element.appendChild(buttons);
    this.renderChips();
  }

  private onKey(event: KeyboardEvent): void {
    const open = !this.suggestions.hasAttribute('hidden');
    const items = this.suggestions.querySelectorAll('.tc-ai-attach-suggestion');
    if (open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      this.selected = (this.selected + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items.forEach((item, i) => {
        item.classList.toggle('tc-ai-attach-selected', i === this.selected);
      });
    } else if (open && (event.key === 'Enter' || event.key === 'Tab') && !event.ctrlKey && !event.metaKey && items.length) {
      event.preventDefault();
      this.attach(items[this.selected]!.getAttribute('data-title') ?? '');
    } else if (open && event.key === 'Escape') {
      event.preventDefault();
      this.suggestions.setAttribute('hidden', '');
    } else if (event.key === 'Escape' && this.host.isActive()) {
      event.preventDefault();
      this.host.stop();
    }
  }

  /** Files pasted or dropped: the host saves the images, which become chips; a text paste is left alone. */
  private takeFiles(event: Event, data: DataTransfer | null, paste: boolean): void {
    const files = filesOf(data, paste);
    if (!files.length || !this.host.attachFiles) return;
    event.preventDefault();
    if (!paste) {
      // Not TiddlyWiki's import as well; its drop zone's highlight ends as after any drag.
      event.stopPropagation();
      this.element.dispatchEvent(new Event('dragend', { bubbles: true }));
    }
    void this.host.attachFiles(files).then((titles) => {
      for (const title of titles) if (!this.draft.attachments.includes(title)) this.draft.attachments.push(title);
      this.renderChips();
    });
  }

  private updateSuggestions(): void {
    const before = this.textarea.value.slice(0, this.textarea.selectionStart);
    const match = TRIGGER.exec(before);
    this.suggestions.textContent = '';
    const titles = match ? this.host.suggest(match[1]!.trim()) : [];
    if (!titles.length) {
      this.suggestions.setAttribute('hidden', '');
      return;
    }
    this.selected = 0;
    titles.forEach((title, i) => {
      const item = make(this.host.document, 'div', `tc-ai-attach-suggestion${i === 0 ? ' tc-ai-attach-selected' : ''}`, title);
      item.setAttribute('data-title', title);
      // mousedown, not click: the textarea must not lose the caret first
      item.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.attach(title);
      });
      this.suggestions.appendChild(item);
    });
    this.suggestions.removeAttribute('hidden');
  }

  /** Turn the typed trigger (`[[Foo` or `@Foo`) into a chip. */
  private attach(title: string): void {
    if (!title) return;
    const caret = this.textarea.selectionStart;
    const before = this.textarea.value.slice(0, caret);
    const match = TRIGGER.exec(before);
    const start = match ? caret - match[0].length : caret;
    const after = this.textarea.value.slice(caret).replace(/^\]\]/, '');
    this.textarea.value = before.slice(0, start) + after;
    this.textarea.setSelectionRange(start, start);
    this.draft.text = this.textarea.value;
    if (!this.draft.attachments.includes(title)) this.draft.attachments.push(title);
    this.suggestions.setAttribute('hidden', '');
    this.renderChips();
  }

  private renderChips(): void {
    this.chips.textContent = '';
    for (const title of this.draft.attachments) {
      const chip = make(this.host.document, 'span', 'tc-ai-chip');
      chip.setAttribute('data-title', title);
      // A real link (href), so assistive technology announces it and Tab reaches it.
      const link = make(this.host.document, 'a', 'tc-ai-chip-link tc-tiddlylink', title);
      link.setAttribute('href', `#${encodeURIComponent(title)}`);
      link.addEventListener('click', (event: Event) => {
        event.preventDefault();
        this.host.navigate(title);
      });
      const remove = make(this.host.document, 'button', 'tc-btn-invisible tc-ai-chip-remove', '×');
      remove.title = this.host.lingo('Detach');
      remove.setAttribute('aria-label', `${this.host.lingo('Detach')}: ${title}`);
      remove.addEventListener('click', () => {
        this.draft.attachments = this.draft.attachments.filter((t) => t !== title);
        this.renderChips();
      });
      chip.appendChild(link);
      chip.appendChild(remove);
      this.chips.appendChild(chip);
    }
  }

  /** Put messages back into the input (queued messages after Stop or a reload). */
  restore(texts: string[], attachments: string[] = []): void {
    if (!texts.length && !attachments.length) return;
    this.textarea.value = [...texts, this.textarea.value].filter((t) => t.trim()).join('\n\n');
    this.draft.text = this.textarea.value;
    for (const title of attachments) if (!this.draft.attachments.includes(title)) this.draft.attachments.push(title);
    this.renderChips();
  }

  /** Put the caret in the input and bring it into view (the ai-focus keyboard shortcut). */
  focus(): void {
    this.textarea.focus();
    this.textarea.scrollIntoView?.({ block: 'nearest' });
  }

  send(): void {
    const text = this.textarea.value.trim();
    if (!text && !this.draft.attachments.length) return;
    const attachments = this.draft.attachments;
    this.textarea.value = '';
    drafts.delete(this.chat);
    this.draft = { text: '', attachments: [] };
    drafts.set(this.chat, this.draft);
    this.renderChips();
    this.host.send(text, attachments);
  }
}

function make(doc: Document, tag: string, className: string, content?: string): HTMLElement {
  const element = doc.createElement(tag);
  element.className = className;
  if (content !== undefined) element.textContent = content;
  return element;
}
