// "New chat" and "Talk with AI" create chats whose `agent` field holds exactly the title of
// the default agent, whatever whitespace the config tiddler's text carries (a .tid file's
// text ends in a newline).
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: '$:/config/tiddlyagent/default-agent', text: '  $:/demo/agents/offline-demo\n' },
    { title: 'Garden', text: 'Plant tomatoes' },
  ]);
});

/** Render a button tiddler with `currentTiddler` set, and click it (invoke its actions). */
function click(button: string, currentTiddler: string): void {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$tiddler tiddler="${currentTiddler}"><$transclude $tiddler="${button}"/></$tiddler>`);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  widget.render($tw.fakeDocument.createElement('div'), null);
  const find = (w: any): any => {
    if (w.parseTreeNode?.type === 'button') return w;
    for (const child of w.children ?? []) {
      const found = find(child);
      if (found) return found;
    }
    return undefined;
  };
  const found = find(widget);
  expect(found).toBeDefined();
  // The fake DOM has no layout; action-navigate asks the button where it is.
  found.domNodes[0].getBoundingClientRect = () => ({ top: 0, left: 0, width: 0, height: 0 });
  found.invokeActions(found, {});
}

const chats = () => $tw.wiki.filterTiddlers('[has[agent]]') as string[];

test.each([
  ['New chat', '$:/plugins/tiddlyagent/agent/ui/buttons/new-chat'],
  ['Talk with AI', '$:/plugins/tiddlyagent/agent/ui/buttons/talk-with-ai'],
])('%s makes a chat whose agent field is exactly the title', (_name, button) => {
  const before = new Set(chats());
  click(button, 'Garden');
  const created = chats().filter((t) => !before.has(t));
  expect(created).toHaveLength(1);
  expect($tw.wiki.getTiddler(created[0]).fields.agent).toBe('$:/demo/agents/offline-demo');
});
