/*\
The markdown checklist of a chat's todo list (the `manage-todo` tool, its prompt section and
its view in the chat): one item per line, `- [ ] item` or `- [x] item`, nested by two spaces
(at most one level deeper than the line before). Blank lines are ignored. Anything else is
an error naming the line, so a malformed list is refused whole rather than half-understood.
Pure functions, shared by the tool, the engine and the chat widget.
\*/

export interface ChecklistItem {
  text: string;
  done: boolean;
  /** 0 for a top-level item, 1 for an item nested under it, … */
  depth: number;
}

export const MAX_TODO_ITEMS = 200;
export const MAX_TODO_CHARS = 20_000;

export type ChecklistParse = { ok: true; items: ChecklistItem[] } | { ok: false; error: string };

const ITEM = /^( *)- \[( |x|X)\](?:\s(.*))?$/;

export function parseChecklist(text: string): ChecklistParse {
  if (text.length > MAX_TODO_CHARS) return { ok: false, error: `The list is too long: ${text.length} characters, at most ${MAX_TODO_CHARS}.` };
  const items: ChecklistItem[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const where = `Line ${i + 1} (${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line)})`;
    if (/^\s*\t/.test(line)) return { ok: false, error: `${where}: indent with two spaces per level, not tabs.` };
    const m = ITEM.exec(line);
    if (!m) return { ok: false, error: `${where} is not a checklist item: write "- [ ] item" or "- [x] item".` };
    const indent = m[1]!.length;
    if (indent % 2) return { ok: false, error: `${where}: indent nested items by two spaces per level (found ${indent} spaces).` };
    const depth = indent / 2;
    const previous = items.length ? items[items.length - 1]!.depth : -1;
    if (depth > previous + 1) {
      return { ok: false, error: `${where} is nested too deep: an item may be at most one level deeper than the item before it.` };
    }
    const itemText = (m[3] ?? '').trim();
    if (!itemText) return { ok: false, error: `${where}: the item has no text.` };
    items.push({ text: itemText, done: m[2] !== ' ', depth });
    if (items.length > MAX_TODO_ITEMS) return { ok: false, error: `The list has more than ${MAX_TODO_ITEMS} items.` };
  }
  if (!items.length) return { ok: false, error: 'The list has no items: write one item per line, "- [ ] item".' };
  return { ok: true, items };
}

/** The list in its canonical form: `- [ ]` / `- [x]`, two spaces per level. */
export function formatChecklist(items: readonly ChecklistItem[]): string {
  return items.map((item) => `${'  '.repeat(item.depth)}- [${item.done ? 'x' : ' '}] ${item.text}`).join('\n');
}

export function checklistProgress(items: readonly ChecklistItem[]): { done: number; total: number } {
  return { done: items.filter((item) => item.done).length, total: items.length };
}

/** "3 of 7 done" */
export function progressText(items: readonly ChecklistItem[]): string {
  const { done, total } = checklistProgress(items);
  return `${done} of ${total} done`;
}
