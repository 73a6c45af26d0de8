/*\
The chat's todo list (the `manage-todo` tool), above the composer: a collapsible box with the
progress ("3 / 7" and a thin bar) and the checklist, nested items indented, done items struck
through. The model wrote every item, so items are plain text nodes, never wikitext. It reads
the chat's todo tiddler and re-renders only when that tiddler changes; without a list it is
hidden. The box keeps its open or closed state across updates.
\*/
import { checklistProgress, parseChecklist, type ChecklistItem } from '../store/checklist';
import { todoTitle } from '../store/chat-parts';
import { el, type ChatContext } from './chat-context';

export class TodoView {
  readonly element: HTMLElement;
  readonly title: string;
  /** The text shown (undefined: no list), so that a write of the same list changes nothing; null before the first update. */
  private shown: string | undefined | null = null;

  constructor(private readonly ctx: ChatContext) {
    this.title = todoTitle(ctx.chat);
    this.element = el(ctx.document, 'details', 'tc-ai-todo');
    this.element.setAttribute('open', '');
    this.update();
  }

  /** A wiki change: re-render only when it touched the todo tiddler. */
  refresh(changed: Record<string, unknown>): void {
    if (changed[this.title]) this.update();
  }

  update(): void {
    const fields = this.ctx.wiki.getTiddler(this.title)?.fields;
    const text = typeof fields?.text === 'string' && fields.text.trim() ? fields.text : undefined;
    if (text === this.shown) return;
    this.shown = text;
    this.element.textContent = '';
    if (text === undefined) {
      this.element.setAttribute('hidden', '');
      return;
    }
    this.element.removeAttribute('hidden');
    const parsed = parseChecklist(text);
    const doc = this.ctx.document;
    const summary = el(doc, 'summary', 'tc-ai-todo-summary');
    summary.appendChild(el(doc, 'span', 'tc-ai-todo-caption', this.ctx.lingo('Todo/Caption') || 'Todo'));
    this.element.appendChild(summary);
    if (!parsed.ok) {
      // Edited by hand into something that is not a checklist: shown as it is.
      this.element.appendChild(el(doc, 'div', 'tc-ai-todo-raw', text));
      return;
    }
    const { done, total } = checklistProgress(parsed.items);
    summary.appendChild(el(doc, 'span', 'tc-ai-todo-count', `${done} / ${total}`));
    const bar = el(doc, 'span', 'tc-ai-todo-bar');
    bar.setAttribute('role', 'progressbar');
    bar.setAttribute('aria-valuemin', '0');
    bar.setAttribute('aria-valuemax', String(total));
    bar.setAttribute('aria-valuenow', String(done));
    const fill = el(doc, 'span', 'tc-ai-todo-bar-fill');
    fill.setAttribute('style', `width: ${Math.round((done / total) * 100)}%;`);
    bar.appendChild(fill);
    summary.appendChild(bar);
    this.element.appendChild(this.renderItems(parsed.items));
  }

  /** Nested lists, one level per two spaces of the checklist. */
  private renderItems(items: ChecklistItem[]): HTMLElement {
    const doc = this.ctx.document;
    const root = el(doc, 'ul', 'tc-ai-todo-items');
    // The open lists, by depth; an item one level deeper opens a list in the item before it.
    const lists: HTMLElement[] = [root];
    let last: HTMLElement | undefined;
    for (const item of items) {
      if (item.depth >= lists.length && last) {
        const nested = el(doc, 'ul', 'tc-ai-todo-items');
        last.appendChild(nested);
        lists.push(nested);
      }
      lists.length = Math.min(lists.length, item.depth + 1);
      const li = el(doc, 'li', `tc-ai-todo-item ${item.done ? 'tc-ai-todo-done' : 'tc-ai-todo-open'}`);
      li.appendChild(el(doc, 'span', 'tc-ai-todo-box', item.done ? '☑' : '☐'));
      li.appendChild(el(doc, item.done ? 's' : 'span', 'tc-ai-todo-text', item.text));
      lists[lists.length - 1]!.appendChild(li);
      last = li;
    }
    return root;
  }
}
