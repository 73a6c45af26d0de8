// Replies cannot borrow the product's classes, and are safe wherever they are transcluded:
// the safe rule set drops every class and style a reply names, and reply tiddlers carry the
// content type text/vnd.tiddlyagent.reply, whose parser is that rule set.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
let lib: ReturnType<typeof agentLib>;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Secret', text: 'the secret text' },
    { title: 'Reply chat', agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' },
  ]);
  lib = agentLib($tw);
});

const HOSTILE = [
  '!.tc-ai-card Fake heading',
  '*.tc-ai-approval fake list item',
  '<<<.tc-ai-card\nfake quote\n<<<',
  '|tc-ai-card|k\n|a|b|',
  '@@.tc-ai-card fake card@@ @@color:red;styled@@',
  '<$button actions="<$action-setfield $tiddler=Pwned text=yes/>">Click</$button>',
  '[img[https://evil.example/x.png]]',
  '{{Secret}} <$transclude $tiddler="Secret"/>',
  "''bold'' [[Secret]] [ext[https://example.com/ok]]",
].join('\n\n');

const html = (text: string) => $tw.wiki.renderText('text/html', 'text/vnd.tiddlywiki', text) as string;

test('class and style wikitext in a reply reaches no element, while formatting and links stay', () => {
  $tw.wiki.addTiddler({ title: 'Hostile reply text', text: HOSTILE });
  const out = html('<$ai-wikitext text={{Hostile reply text}}/>');
  expect(out).not.toMatch(/class="[^"]*tc-ai-/);
  expect(out).not.toContain('style=');
  expect(out).toContain('Fake heading');
  expect(out).toContain('fake list item');
  expect(out).toContain('<strong>bold</strong>');
  expect(out).toContain('href="https://example.com/ok"');
  expect(out).toContain('class="tc-tiddlylink-external"');
  expect(out).toContain('fake card'); // @@ is not a rule here: the text shows as text
});

test('a reply saved by the store renders through the safe rules wherever it is transcluded', () => {
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  const title = store.appendMessage('Reply chat', { role: 'assistant', text: HOSTILE });
  expect($tw.wiki.getTiddler(title).fields.type).toBe('text/vnd.tiddlyagent.reply');
  $tw.wiki.addTiddler({ title: 'Ordinary note', text: `Before\n\n{{${title}}}\n\n<$transclude $tiddler="${title}"/>\n\nAfter` });
  const out = $tw.wiki.renderTiddler('text/html', 'Ordinary note') as string;
  expect(out).toContain('Before');
  expect(out).toContain('Fake heading');
  expect(out).not.toContain('<button');
  expect(out).not.toContain('<img');
  expect(out).not.toContain('the secret text');
  expect(out).not.toMatch(/class="[^"]*tc-ai-/);
  expect(out).not.toContain('style=');
  // Opened on its own, through the default view, it is the same.
  expect($tw.wiki.renderTiddler('text/html', title)).not.toContain('<button');
  // Errors quote what a server said: the same type.
  expect($tw.wiki.getTiddler(store.appendMessage('Reply chat', { role: 'error', text: '<$button>x</$button>' })).fields.type).toBe('text/vnd.tiddlyagent.reply');
});
