// The <$ai-chat> widget in a real TiddlyWiki (Node, fake DOM): it renders the latest
// messages first, older ones on demand, touches only changed messages on refresh, and
// renders model output safely.
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;

const CHAT = 'Big chat';
const msg = (seq: number, role: string, text: string) => ({
  title: `$:/ai/messages/${CHAT}/${String(seq).padStart(6, '0')}`,
  'agent-chat': CHAT,
  'agent-seq': String(seq),
  role,
  type: role === 'assistant' ? 'text/vnd.tiddlywiki' : 'text/plain',
  text,
});

const HOSTILE = [
  "''bold'' and [[Welcome to TiddlyAgent]]",
  '<$button actions="<$action-deletetiddler $tiddler=\'Welcome to TiddlyAgent\'/>">Click</$button>',
  '[img[https://evil.example/pixel.png]] <img src="https://evil.example/i.png">',
  '{{$:/SiteTitle}} <<now>> <$transclude $tiddler="$:/SiteTitle"/>',
  '<script>alert(1)</script> <a href="javascript:alert(2)">x</a>',
  '[[click|javascript:alert(3)]] [ext[javascript:alert(4)]] [ext[https://example.com/ok]]',
  '@@background:url(https://evil.example/bg)@@ styled',
].join('\n\n');

function render(text: string) {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', text);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return { widget, container };
}

const messageNodes = (container: any): any[] => {
  const out: any[] = [];
  const walk = (n: any) => {
    if (n.attributes?.['data-message']) out.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  walk(container);
  return out;
};

beforeAll(async () => {
  const messages = [];
  for (let i = 0; i < 120; i++) messages.push(msg(i, i % 2 ? 'assistant' : 'user', `message number ${i}`));
  $tw = await bootWiki([{ title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' }, ...messages]);
});

test('a long chat renders its latest 50 messages and offers the older ones', () => {
  const { container } = render(`<$ai-chat chat="${CHAT}"/>`);
  const nodes = messageNodes(container);
  expect(nodes).toHaveLength(50);
  expect(nodes[0].attributes['data-message']).toBe(msg(70, 'user', '').title);
  expect(nodes[49].textContent).toContain('message number 119');
  expect(container.textContent).toContain('Show 70 older messages');
});

test('a new message is added without re-rendering the others', () => {
  const { widget, container } = render(`<$ai-chat chat="${CHAT}" page-size="200"/>`);
  const before = messageNodes(container);
  expect(before).toHaveLength(120);
  const seen = new Promise<void>((resolve) => {
    const listener = (changes: unknown) => {
      widget.refresh(changes);
      $tw.wiki.removeEventListener('change', listener);
      resolve();
    };
    $tw.wiki.addEventListener('change', listener);
  });
  $tw.wiki.addTiddler(msg(120, 'user', 'a brand new message'));
  return seen.then(() => {
    const after = messageNodes(container);
    expect(after).toHaveLength(121);
    expect(after[120].textContent).toContain('a brand new message');
    // The same DOM nodes: nothing was rebuilt for the 120 untouched messages.
    before.forEach((node, i) => {
      expect(after[i]).toBe(node);
    });
  });
});

test('model output renders as safe wikitext: formatting and links only', () => {
  $tw.wiki.addTiddler(msg(500, 'assistant', HOSTILE));
  const { container } = render(`<$ai-chat chat="${CHAT}" page-size="1"/>`);
  const html: string = messageNodes(container)[0].innerHTML;
  expect(html).toContain('<strong>bold</strong>');
  expect(html).toMatch(/<a class="tc-tiddlylink[^"]*" href="#Welcome%20to%20TiddlyAgent">/);
  expect(html).toContain('href="https://example.com/ok"');
  const match = /<button|<img|<script|<style|<a [^>]*href="javascript/i.exec(html);
  expect(match && html.slice(match.index - 80, match.index + 80)).toBeNull();
  // URLs may show as links the user can click, but nothing loads by itself.
  expect(html).not.toMatch(/<[^>]*\s(src|style)=/);
  expect(html).not.toContain('TiddlyAgent demo'); // the transclusion of $:/SiteTitle did not run
  expect($tw.wiki.tiddlerExists('Welcome to TiddlyAgent')).toBe(true);
});

test('a message tiddler opened on its own renders through the same safe rules', () => {
  const html = $tw.wiki.renderTiddler('text/html', '$:/core/ui/ViewTemplate/body', {
    variables: { currentTiddler: msg(500, 'assistant', '').title },
  });
  expect(html).toContain('<strong>bold</strong>');
  expect(html).not.toMatch(/<button|<img|<script/);
  expect(html).toContain('Part of the chat');
});
