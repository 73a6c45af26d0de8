// manage-todo against a real TiddlyWiki with a scripted model: the list the model writes is in
// the prompt of every later round, before the user's message, even when the history is trimmed
// hard; a malformed list is a tool error and writes nothing; the todo tiddler does not exist for
// the wiki tools (read, search, update), and a chat's tool reaches only that chat's list.
import { runTurn } from '../../../src/agent/engine/loop';
import type { ModelMessage, ModelRequest } from '../../../src/agent/providers/types';
import { summaryTool } from '../../../src/agent/tools/control-tools';
import { manageTodoTool } from '../../../src/agent/tools/manage-todo';
import type { ToolDefinition } from '../../../src/agent/tools/tool';
import { WIKI_READ_TOOLS } from '../../../src/agent/tools/wiki-read-tools';
import { WIKI_WRITE_TOOLS } from '../../../src/agent/tools/wiki-write-tools';
import { bootEngineWiki, engineDeps, Events, reply, scriptedModel, toolCalls, toolMessagesOf, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});

const TOOLS: ToolDefinition[] = [manageTodoTool, summaryTool, ...WIKI_READ_TOOLS, ...WIKI_WRITE_TOOLS];
const LIST = ['- [x] Read the project notes', '- [ ] Draft the summary', '  - [ ] Intro paragraph', '- [ ] Ask the user to review'].join('\n');
const todoTitle = (chat: string) => `$:/ai/todo/${chat}`;

function turn(chat: string, steps: Parameters<typeof scriptedModel>[0]) {
  const scripted = scriptedModel(steps);
  const deps = engineDeps(h, scripted.model, TOOLS, new Events());
  return { ...scripted, run: (userText: string) => runTurn(deps, { chat, signal: new AbortController().signal, userText }) };
}

/** The system message carrying the todo list, and its position in the request. */
function todoMessage(request: ModelRequest): { index: number; content: string } | undefined {
  const index = request.messages.findIndex((m) => m.role === 'system' && m.content.includes('<current_todo_list>'));
  return index < 0 ? undefined : { index, content: request.messages[index]!.content };
}
const lastUserIndex = (messages: ModelMessage[]) => messages.map((m) => m.role).lastIndexOf('user');

describe('the list in the prompt', () => {
  test('the list the model writes is in the next round, with its progress, before the user message', async () => {
    const chat = h.newChat({ 'agent-tools': 'manage-todo summary' });
    const t = turn(chat, [toolCalls(['c1', 'manage-todo', { operation: 'write', text: LIST }]), toolCalls(['c2', 'summary', { text: 'Planned.' }])]);
    expect(await t.run('Write a summary of the project')).toEqual({ status: 'completed' });

    // The first round had no list yet; the tool stored it and told the model its progress.
    expect(todoMessage(t.requests[0]!)).toBeUndefined();
    expect(h.fields(todoTitle(chat))).toMatchObject({ 'agent-chat-todo': chat, text: LIST });
    expect(toolMessagesOf(t.requests[1]!).get('c1')!.content).toContain('1 of 4 done');
    const tool = h.messages(chat).find((m) => m['tool-call-id'] === 'c1')!;
    expect(tool['tool-status']).toBe('ok');

    const todo = todoMessage(t.requests[1]!)!;
    expect(todo).toBeDefined();
    expect(todo.content).toContain(LIST);
    expect(todo.content).toContain('1 of 4 done');
    expect(todo.content).toContain('manage-todo');
    expect(todo.index).toBe(lastUserIndex(t.requests[1]!.messages) - 1);
  });

  test('a hard-trimmed history loses the old messages and the call that wrote the list, never the list', async () => {
    // Compaction off: this is about trimming.
    const chat = h.newChat({ 'agent-tools': 'manage-todo summary', 'agent-context-window': '1600', 'agent-compact-at': '0' });
    const long = (n: number) => `Earlier message ${n}: ${'blah '.repeat(400)}`;
    for (let i = 0; i < 6; i++) h.store.appendMessage(chat, { role: i % 2 ? 'assistant' : 'user', text: long(i) });

    const first = turn(chat, [toolCalls(['w1', 'manage-todo', { operation: 'write', text: LIST }]), reply('Planned.')]);
    expect(await first.run('Plan the work')).toEqual({ status: 'completed' });
    expect(todoMessage(first.requests[1]!)!.content).toContain(LIST);

    // The next turn's message is long: everything before it has to go, the list stays.
    const second = turn(chat, [reply('On it.')]);
    expect(await second.run(`Go on with the plan. ${'Context: more words. '.repeat(210)}`)).toEqual({ status: 'completed' });
    const request = second.requests[0]!;
    expect(JSON.parse(h.fields(chat)['agent-context-usage']!).total).toBeLessThanOrEqual(1600);
    const text = request.messages.map((m) => m.content).join('\n');
    expect(text).toMatch(/earlier messages were left out/);
    expect(text).not.toContain('Earlier message');
    expect(toolMessagesOf(request).size).toBe(0); // the manage-todo result of the first turn is gone
    const todo = todoMessage(request)!;
    expect(todo.content).toContain(LIST);
    expect(todo.content).toContain('1 of 4 done');
    expect(todo.index).toBe(lastUserIndex(request.messages) - 1);
  });

  test('an agent without manage-todo gets no todo section, even when the chat has a list', async () => {
    const chat = h.newChat({ 'agent-tools': 'summary' });
    h.$tw.wiki.addTiddler({ title: todoTitle(chat), 'agent-chat-todo': chat, type: 'text/plain', text: LIST });
    const t = turn(chat, [reply('Hi.')]);
    await t.run('Hello');
    expect(todoMessage(t.requests[0]!)).toBeUndefined();
    expect(JSON.stringify(t.requests[0]!.messages)).not.toContain('Draft the summary');
  });
});

describe('malformed lists', () => {
  test('a malformed write is a tool error that names the problem, and the old list stays as it was', async () => {
    const chat = h.newChat({ 'agent-tools': 'manage-todo summary' });
    const bad = '- [ ] Fine item\nThis line is not an item';
    const t = turn(chat, [
      toolCalls(['ok', 'manage-todo', { operation: 'write', text: LIST }]),
      toolCalls(
        ['bad', 'manage-todo', { operation: 'write', text: bad }],
        ['deep', 'manage-todo', { operation: 'write', text: '- [ ] a\n    - [ ] too deep' }],
      ),
      toolCalls(['empty', 'manage-todo', { operation: 'write' }]),
      reply('Done.'),
    ]);
    await t.run('Plan it');
    const results = toolMessagesOf(t.requests[3]!);
    expect(results.get('ok')!.content).toContain('Todo list saved');
    expect(results.get('bad')!.content).toMatch(/not written.*Line 2 .*not a checklist item/s);
    expect(results.get('deep')!.content).toMatch(/not written.*Line 2 .*nested too deep/s);
    expect(results.get('empty')!.content).toMatch(/not written.*`text` is required/);
    const status = Object.fromEntries(
      h
        .messages(chat)
        .filter((m) => m.role === 'tool')
        .map((m) => [m['tool-call-id'], m['tool-status']]),
    );
    expect(status).toEqual({ ok: 'ok', bad: 'error', deep: 'error', empty: 'error' });
    expect(h.fields(todoTitle(chat)).text).toBe(LIST);
    // The prompt still carries the last good list.
    expect(todoMessage(t.requests[3]!)!.content).toContain(LIST);
  });

  test('a malformed first list writes no tiddler at all; read says there is none', async () => {
    const chat = h.newChat({ 'agent-tools': 'manage-todo summary' });
    const t = turn(chat, [
      toolCalls(['bad', 'manage-todo', { operation: 'write', text: '- [ ] ok\n-[ ] squashed' }], ['read', 'manage-todo', { operation: 'read' }]),
      reply('Done.'),
    ]);
    await t.run('Plan it');
    const results = toolMessagesOf(t.requests[1]!);
    expect(results.get('bad')!.content).toMatch(/not written/);
    expect(results.get('read')!.content).toMatch(/no todo list yet/);
    expect(h.$tw.wiki.tiddlerExists(todoTitle(chat))).toBe(false);
    expect(todoMessage(t.requests[1]!)).toBeUndefined();
  });
});

describe('the todo tiddler is out of the wiki tools’ reach', () => {
  test('wiki-read, wiki-search and wiki-update do not find or change it; manage-todo reaches only its own chat', async () => {
    const other = h.newChat({ 'agent-tools': 'manage-todo' }, 'Other');
    const otherList = '- [ ] The other chat keeps zebrafish notes';
    h.$tw.wiki.addTiddler({ title: todoTitle(other), 'agent-chat-todo': other, type: 'text/plain', text: otherList });
    const chat = h.newChat({ 'agent-tools': 'manage-todo summary wiki-read wiki-search wiki-update', 'agent-approval': '{"wiki-update": {"mode": "auto"}}' });
    h.$tw.wiki.addTiddler({ title: todoTitle(chat), 'agent-chat-todo': chat, type: 'text/plain', text: '- [ ] Feed the axolotl' });
    const before = h.fields(todoTitle(chat));

    const t = turn(chat, [
      toolCalls(
        ['read', 'wiki-read', { title: todoTitle(chat) }],
        ['read-other', 'wiki-read', { title: todoTitle(other) }],
        ['search', 'wiki-search', { query: 'axolotl', includeSystem: true }],
        ['search-other', 'wiki-search', { query: 'zebrafish', includeSystem: true }],
        ['filter', 'wiki-search', { filter: '[prefix[$:/ai/todo/]]' }],
        ['update', 'wiki-update', { title: todoTitle(chat), modified: before.modified ?? '', text: '- [x] Feed the axolotl' }],
        ['update-other', 'wiki-update', { title: todoTitle(other), modified: '', text: '- [x] hijacked' }],
        ['mine', 'manage-todo', { operation: 'read' }],
      ),
      reply('Done.'),
    ]);
    await t.run('Look around');
    const results = toolMessagesOf(t.requests[1]!);
    const status = Object.fromEntries(
      h
        .messages(chat)
        .filter((m) => m.role === 'tool')
        .map((m) => [m['tool-call-id'], m['tool-status']]),
    );

    for (const id of ['read', 'read-other', 'search', 'search-other', 'filter', 'update', 'update-other']) {
      expect(results.get(id)!.content).not.toMatch(/Feed the axolotl|keeps zebrafish notes/);
    }
    for (const id of ['search', 'search-other', 'filter']) {
      expect(results.get(id)!.content).toMatch(/No tiddlers found/);
    }
    expect(status).toMatchObject({ read: 'error', 'read-other': 'error', update: 'error', 'update-other': 'error' });
    expect(h.fields(todoTitle(chat)).text).toBe('- [ ] Feed the axolotl');
    expect(h.fields(todoTitle(other)).text).toBe(otherList);
    // Its own list, through its own tool, and not the other chat's.
    expect(results.get('mine')!.content).toContain('Feed the axolotl');
    expect(results.get('mine')!.content).not.toContain('zebrafish');
  });
});
