// The cards say a call once and count right, in the <$ai-chat> widget of a real TiddlyWiki
// (fake DOM): a call with a preview but no planned changes shows the preview, its exact
// arguments folded; a changed field's diff counts "1 difference" / "N differences" in our
// own words (TiddlyWiki's own message says "1 differences"), in the wiki's language.
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
const CHAT = 'Preview chat';
const DIFF_CHAT = 'Diff chat';

beforeAll(async () => {
  $tw = await bootWiki([
    { title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${CHAT}/000000`, 'agent-chat': CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Fetch it' },
    {
      title: `$:/ai/messages/${CHAT}/000001`,
      'agent-chat': CHAT,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'web-fetch',
      'tool-call-id': 'c1',
      'tool-args': JSON.stringify({ url: 'https://example.com/page', maxChars: 5000 }),
      'tool-status': 'pending',
      text: 'Fetch https://example.com/page',
    },
    { title: DIFF_CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${DIFF_CHAT}/000000`, 'agent-chat': DIFF_CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Tag it' },
    {
      title: `$:/ai/messages/${DIFF_CHAT}/000001`,
      'agent-chat': DIFF_CHAT,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'wiki-update',
      'tool-call-id': 'c2',
      'tool-args': JSON.stringify({ title: 'Note', tags: ['Done'] }),
      'tool-status': 'pending',
      'tool-changes': JSON.stringify({ Note: { before: { title: 'Note', tags: 'Draft', caption: 'Old' }, after: { title: 'Note', tags: 'Done', caption: 'Old and new' } } }),
      text: 'Update "Note"',
    },
  ]);
});

function render(chat: string) {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return container;
}

function find(node: any, className: string): any[] {
  const out: any[] = [];
  const walk = (n: any) => {
    if (String(n.attributes?.class ?? n.className ?? '').split(' ').includes(className)) out.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  walk(node);
  return out;
}

test('a call without planned changes shows its preview once, the exact arguments folded', () => {
  const [card] = find(render(CHAT), 'tc-ai-approval');
  expect(find(card, 'tc-ai-approval-preview').map((n) => n.textContent)).toEqual(['Fetch https://example.com/page']);
  const args = find(card, 'tc-ai-tool-args');
  expect(args).toHaveLength(1);
  expect(args[0].parentNode.tag ?? args[0].parentNode.tagName).toMatch(/^details$/i);
  expect(args[0].textContent).toContain('"maxChars": 5000');
});

test('the diff counts its differences in words that agree with the number, in the wiki language', () => {
  const counts = (): string[] => find(render(DIFF_CHAT), 'tc-ai-diff-count').map((n) => n.textContent as string);
  const english = counts();
  expect(english.length).toBe(2);
  // The card shows what changes, once: no preview besides the diff.
  expect(find(render(DIFF_CHAT), 'tc-ai-approval-preview')).toHaveLength(0);
  for (const c of english) expect(c).toBe(parseInt(c, 10) === 1 ? '1 difference' : `${parseInt(c, 10)} differences`);
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    for (const c of counts()) expect(c).toMatch(/^\d+ 处差异$/);
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});
