// The chat's todo list in the <$ai-chat> widget, in a real TiddlyWiki (Node, fake DOM): shown
// above the composer with its progress, nested items indented, done items struck through, item
// text as plain text (never wikitext); it updates when the list changes, and only then.
import { bootWiki, classes, find, findAll, type FakeNode, type TW } from '../helpers/tw';

let $tw: TW;
const CHAT = 'Todo chat';
const TODO = `$:/ai/todo/${CHAT}`;
const LIST = [
  '- [x] Read the notes',
  '- [ ] Draft the page',
  '  - [x] Outline',
  '  - [ ] Intro with [[Welcome to TiddlyAgent]]',
  '- [ ] Ask <$button>Click</$button> {{$:/SiteTitle}}',
].join('\n');

beforeAll(async () => {
  $tw = await bootWiki([
    { title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' },
    { title: `$:/ai/messages/${CHAT}/000000`, 'agent-chat': CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Plan the page' },
  ]);
});
afterAll(() => new Promise((resolve) => setTimeout(resolve, 10)));

function render() {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${CHAT}"/>`);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return { widget, container };
}

/** Write a tiddler and let the widget see the change, as the page's refresh cycle would. */
function change(widget: FakeNode, fields: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const listener = (changes: unknown) => {
      $tw.wiki.removeEventListener('change', listener);
      widget.refresh(changes);
      resolve();
    };
    $tw.wiki.addEventListener('change', listener);
    $tw.wiki.addTiddler(fields);
  });
}

test('a chat without a list shows no todo box; once the list is written it appears with its progress', async () => {
  const { widget, container } = render();
  const box = find(container, 'tc-ai-todo');
  expect(box.attributes.hidden).toBeDefined();

  await change(widget, { title: TODO, 'agent-chat-todo': CHAT, type: 'text/plain', text: LIST });
  expect(find(container, 'tc-ai-todo')).toBe(box);
  expect(box.attributes.hidden).toBeUndefined();
  expect(box.tag).toBe('details');
  expect(find(box, 'tc-ai-todo-count').textContent).toBe('2 / 5');
  expect(find(box, 'tc-ai-todo-bar').attributes['aria-valuenow']).toBe('2');
  expect(find(box, 'tc-ai-todo-bar-fill').outerHTML).toMatch(/style="width: ?40%;?"/);
});

test('nested items sit in a nested list, done ones are struck through, and item text stays plain text', async () => {
  $tw.wiki.addTiddler({ title: TODO, 'agent-chat-todo': CHAT, type: 'text/plain', text: LIST });
  const { container } = render();
  const box = find(container, 'tc-ai-todo');
  const top = find(box, 'tc-ai-todo-items');
  const topItems = top.children.filter((n: FakeNode) => classes(n).includes('tc-ai-todo-item'));
  expect(topItems.map((n: FakeNode) => find(n, 'tc-ai-todo-text').textContent)).toEqual([
    'Read the notes',
    'Draft the page',
    'Ask <$button>Click</$button> {{$:/SiteTitle}}',
  ]);
  const nested = find(topItems[1], 'tc-ai-todo-items');
  expect(findAll(nested, 'tc-ai-todo-item').map((n: FakeNode) => find(n, 'tc-ai-todo-text').textContent)).toEqual([
    'Outline',
    'Intro with [[Welcome to TiddlyAgent]]',
  ]);
  // Done items are struck through, open ones are not.
  expect(findAll(box, 'tc-ai-todo-done').map((n: FakeNode) => find(n, 'tc-ai-todo-text').tag)).toEqual(['s', 's']);
  expect(findAll(box, 'tc-ai-todo-open').map((n: FakeNode) => find(n, 'tc-ai-todo-text').tag)).toEqual(['span', 'span', 'span']);
  // Nothing of the model's text became a link, a button or a transclusion.
  const html: string = box.outerHTML;
  expect(html).not.toMatch(/<a |<button/);
  expect(html).not.toContain('TiddlyAgent demo');
  // It sits after the messages and the status line, where the composer follows in a browser.
  const root = find(container, 'tc-ai-chat');
  expect(root.children.indexOf(box)).toBe(root.children.indexOf(find(root, 'tc-ai-chat-footer')) + 1);
});

test('ticking an item off updates the box; other changes leave it alone', async () => {
  $tw.wiki.addTiddler({ title: TODO, 'agent-chat-todo': CHAT, type: 'text/plain', text: LIST });
  const { widget, container } = render();
  const box = find(container, 'tc-ai-todo');
  const summary = find(box, 'tc-ai-todo-summary');

  await change(widget, { title: 'Some note', text: 'unrelated' });
  await change(widget, { title: `$:/ai/messages/${CHAT}/000001`, 'agent-chat': CHAT, 'agent-seq': '1', role: 'assistant', type: 'text/plain', text: 'On it' });
  expect(find(box, 'tc-ai-todo-summary')).toBe(summary); // not re-rendered

  await change(widget, { title: TODO, 'agent-chat-todo': CHAT, type: 'text/plain', text: LIST.replace('- [ ] Draft', '- [x] Draft') });
  expect(find(box, 'tc-ai-todo-count').textContent).toBe('3 / 5');
  expect(findAll(box, 'tc-ai-todo-done').map((n: FakeNode) => find(n, 'tc-ai-todo-text').textContent)).toEqual(['Read the notes', 'Draft the page', 'Outline']);
  // The same box: a user who collapsed it keeps it collapsed.
  expect(find(container, 'tc-ai-todo')).toBe(box);

  // Another chat's list is not this chat's.
  await change(widget, { title: '$:/ai/todo/Another chat', 'agent-chat-todo': 'Another chat', type: 'text/plain', text: '- [ ] elsewhere' });
  expect(box.textContent).not.toContain('elsewhere');
});
