/*\
TodoList: the one module that reads and writes a chat's todo list, the tiddler
`$:/ai/todo/<chat>` (field `agent-chat-todo: <chat>`, type text/plain, text = the markdown
checklist of store/checklist.ts). It is chat state, not a note of the user's: under `$:/ai/`
it is hidden from the agent's view of the wiki (tools/visibility.ts) and the write gate
refuses it, so the model reaches it only through the `manage-todo` tool, which gets a
TodoList scoped to its own chat. Plain text, never markdown or wikitext: the model wrote it.
\*/
import { formatChecklist, parseChecklist, type ChecklistItem } from './checklist';
import type { WikiPort } from './wiki-port';
import { TODO_CHAT_FIELD, todoTitle } from './chat-parts';

export const TODO_TYPE = 'text/plain';

/** A list that was not written: why, for the model. */
export class TodoError extends Error {}

export interface StoredTodo {
  /** The stored text as it is. */
  text: string;
  /** Its items, or undefined when the text does not parse (edited by hand). */
  items?: ChecklistItem[];
  error?: string;
}

export class TodoList {
  readonly title: string;

  constructor(
    private readonly wiki: WikiPort,
    readonly chat: string,
  ) {
    this.title = todoTitle(chat);
  }

  /** The chat's list, or undefined when it has none. */
  read(): StoredTodo | undefined {
    const fields = this.wiki.getFields(this.title);
    if (!fields?.text?.trim()) return undefined;
    const parsed = parseChecklist(fields.text);
    return parsed.ok ? { text: fields.text, items: parsed.items } : { text: fields.text, error: parsed.error };
  }

  /** Replace the list; a malformed one throws TodoError and nothing is written. */
  write(source: string): ChecklistItem[] {
    const parsed = parseChecklist(source);
    if (!parsed.ok) throw new TodoError(parsed.error);
    const existing = this.wiki.getFields(this.title);
    const text = formatChecklist(parsed.items);
    // The same list again: no write, no save, no refresh.
    if (existing?.text === text && existing[TODO_CHAT_FIELD] === this.chat) return parsed.items;
    const now = this.wiki.now();
    this.wiki.putTiddler({
      title: this.title,
      [TODO_CHAT_FIELD]: this.chat,
      type: TODO_TYPE,
      created: existing?.created ?? now,
      modified: now,
      text,
    });
    return parsed.items;
  }
}
