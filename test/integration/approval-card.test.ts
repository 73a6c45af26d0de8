// The approval card shows exactly what a call would land (title, type, tags, every field, the
// text) and flags active content, in the <$ai-chat> widget of a real TiddlyWiki (fake DOM).
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
const CHAT = 'Card chat';
const SELF_CHAT = 'Self card chat';
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
