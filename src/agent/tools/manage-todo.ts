/*\
`manage-todo`: the chat's checklist, which the agent keeps for a task of several steps. `read`
returns it, `write` replaces it with a markdown checklist (store/checklist.ts). The list is
stored in the chat's todo tiddler through `context.todo` (store/todo-list.ts), which only
reaches this chat's list; it is shown in the chat and re-injected, never trimmed, into every
round's prompt (engine/plugins/todo.ts). A malformed list is a tool error and writes nothing.
\*/
import * as z from 'zod/mini';
import { checklistProgress, formatChecklist, MAX_TODO_ITEMS, progressText, type ChecklistItem } from '../store/checklist';
import { TodoError } from '../store/todo-list';
import { defineTool, type ToolOutput } from './tool';

export const MANAGE_TODO = 'manage-todo';

/** The list as the model reads it: progress, then the checklist. */
export function describeTodo(items: readonly ChecklistItem[]): string {
  const { done, total } = checklistProgress(items);
  const next = items.find((item) => !item.done);
  const status = done === total ? 'All items are done.' : `Next open item: ${next!.text}`;
  return `${progressText(items)}. ${status}\n${formatChecklist(items)}`;
}

export const manageTodoTool = defineTool({
  name: MANAGE_TODO,
  description: [
    'Keep a todo list for this chat: plan a task of several steps, then tick items off as you finish them. The list is shown to the user and to you in every round.',
    '`read` returns the list. `write` replaces the whole list with `text`: a markdown checklist, one item per line, "- [ ] open item" or "- [x] done item"; nest an item under the one before it by indenting it two more spaces.',
    `At most ${MAX_TODO_ITEMS} items. A malformed list is refused and the old one kept.`,
  ].join(' '),
  parameters: z.object({
    operation: z.enum(['read', 'write']),
    text: z.optional(z.string()),
  }),
  access: 'control',
  defaultMode: 'auto',
  execute({ operation, text }, context): ToolOutput {
    if (operation === 'read') {
      const stored = context.todo.read();
      if (!stored) return { content: 'This chat has no todo list yet. Create one with operation "write".' };
      if (!stored.items)
        return { content: `The todo list cannot be read as a checklist (${stored.error}). Its text:\n${stored.text}\nWrite it again to fix it.` };
      return { content: `Todo list: ${describeTodo(stored.items)}` };
    }
    if (text === undefined || !text.trim()) {
      return { ok: false, content: 'The todo list was not written: `text` is required for "write" (the whole checklist, "- [ ] item" per line).' };
    }
    if (context.signal.aborted) return { ok: false, content: 'The todo list was not written: the call was stopped.' };
    try {
      const items = context.todo.write(text);
      return { content: `Todo list saved: ${describeTodo(items)}` };
    } catch (e) {
      if (e instanceof TodoError) return { ok: false, content: `The todo list was not written (the old one is kept): ${e.message}` };
      throw e;
    }
  },
});
