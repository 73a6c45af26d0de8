/*\
Built-in plugin: the chat's todo list (the `manage-todo` tool) in every round. When the agent
has the tool and the chat has a list, a transient section right before the newest user
message carries the list and its progress. It is protected: trimming the history to the
context window never drops it, so a long task keeps its plan however much history goes.
\*/
import { TodoList } from '../../store/todo-list';
import { describeTodo, MANAGE_TODO } from '../../tools/manage-todo';
import type { EnginePlugin } from '../hooks';
import { ENGLISH_PROMPT_WORDS, fill, promptWords } from '../prompt-words';

export const todoPlugin: EnginePlugin = {
  name: 'todo',
  apply(hooks) {
    hooks.processPrompts.tap('todo', (build, ctx) => {
      if (!ctx.tools.has(MANAGE_TODO)) return;
      const stored = new TodoList(ctx.store.wiki, ctx.chat).read();
      if (!stored) return;
      const content = stored.items ? describeTodo(stored.items) : `(not a valid checklist: ${stored.error}; write it again)\n${stored.text}`;
      build.sections.push({
        id: 'todo',
        kind: 'transient',
        protected: true,
        placeBeforeLastUser: true,
        messages: [{ role: 'system', content: todoSection(content, promptWords(ctx.words)) }],
      });
    });
  },
};

export function todoSection(content: string, words = ENGLISH_PROMPT_WORDS): string {
  return ['<current_todo_list>', fill(words.todoIntro, { tool: MANAGE_TODO }), content, '</current_todo_list>'].join('\n');
}
