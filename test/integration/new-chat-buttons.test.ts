// "New chat" and "Talk with AI" create chats whose `agent` field holds exactly the title of
// the default agent, whatever whitespace the config tiddler's text carries (a .tid file's
// text ends in a newline).
import fs from 'node:fs';
import path from 'node:path';
import { agentLib, bootWiki, ROOT, type TW } from '../helpers/tw';

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
const CONFIG = '$:/config/tiddlyagent/default-agent';

const BUTTONS = [
  ['New chat', '$:/plugins/tiddlyagent/agent/ui/buttons/new-chat'],
  ['Talk with AI', '$:/plugins/tiddlyagent/agent/ui/buttons/talk-with-ai'],
] as const;
// The config tiddler's text as a .tid file or a hand edit leaves it.
const CONFIG_TEXTS = [
  ['$:/demo/agents/offline-demo\n', '$:/demo/agents/offline-demo'],
  ['  $:/demo/agents/offline-demo\n\n', '$:/demo/agents/offline-demo'],
  ['\t$:/plugins/tiddlyagent/agent/agents/wiki-assistant \r\n', '$:/plugins/tiddlyagent/agent/agents/wiki-assistant'],
  ['Agent with spaces in its title\n', 'Agent with spaces in its title'],
] as const;

describe.each(BUTTONS)('%s', (_name, button) => {
  test.each(CONFIG_TEXTS)('with the config text %j, makes a chat whose agent field is exactly %j', (text, title) => {
    $tw.wiki.addTiddler({ title: CONFIG, text });
    const before = new Set(chats());
    click(button, 'Garden');
    const created = chats().filter((t) => !before.has(t));
    expect(created).toHaveLength(1);
    expect($tw.wiki.getTiddler(created[0]).fields.agent).toBe(title);
  });
});

test('the shipped config tiddlers (plugin default and demo wiki) give the plain title too', () => {
  $tw.wiki.deleteTiddler(CONFIG);
  // The plugin's shadow, as its .tid file ships it.
  const shadow = $tw.wiki.getShadowSource(CONFIG) ? $tw.wiki.getTiddlerText(CONFIG) : undefined;
  expect(shadow).toBeDefined();
  for (const [, button] of BUTTONS) {
    const before = new Set(chats());
    click(button, 'Garden');
    const created = chats().filter((t) => !before.has(t));
    expect($tw.wiki.getTiddler(created[0]).fields.agent).toBe(shadow!.trim());
  }
  const demo = fs.readFileSync(path.join(ROOT, 'wiki', 'tiddlers', '$__config_tiddlyagent_default-agent.tid'), 'utf8');
  $tw.wiki.addTiddlers($tw.wiki.deserializeTiddlers('application/x-tiddler', demo));
  for (const [, button] of BUTTONS) {
    const before = new Set(chats());
    click(button, 'Garden');
    const created = chats().filter((t) => !before.has(t));
    expect($tw.wiki.getTiddler(created[0]).fields.agent).toBe('$:/demo/agents/offline-demo');
  }
});

test('the store reads a chat whose agent field carries whitespace as the plain title', () => {
  $tw.wiki.addTiddler({ title: 'Chat with a padded agent', agent: ' $:/demo/agents/offline-demo\n', 'agent-status': 'idle' });
  const lib = agentLib($tw);
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  expect(store.readChat('Chat with a padded agent').agent).toBe('$:/demo/agents/offline-demo');
});
