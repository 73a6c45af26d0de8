// The cost beside the usage meter in the <$ai-chat> widget, in a real TiddlyWiki (Node, fake
// DOM): the current turn's and the chat's cost, each reply's cost in its meta line, priced
// with the chat's profile (presets, then its model-facts); a new reply or a price change
// updates the text and nothing else; an unknown price says "unknown", never $0; a bad
// model-facts entry is named in the meter's tooltip.
import { bootWiki, find, findAll, type FakeNode, type TW } from '../helpers/tw';

let $tw: TW;
const CHAT = 'Cost widget chat';
const AGENT = 'Cost widget agent';
const PROVIDER = 'Cost widget provider';
let seq = 0;

function message(role: string, extra: Record<string, string> = {}) {
  const n = seq++;
  return {
    title: `$:/ai/messages/${CHAT}/${String(n).padStart(6, '0')}`,
    'agent-chat': CHAT,
    'agent-seq': String(n),
    role,
    type: 'text/plain',
    text: `${role} ${n}`,
    ...extra,
  };
}
const reply = (tokensIn: number, tokensOut: number, model = 'gpt-4o-mini') =>
  message('assistant', { model, 'tokens-in': String(tokensIn), 'tokens-out': String(tokensOut) });

beforeAll(async () => {
  $tw = await bootWiki([
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1', 'default-model': 'gpt-4o-mini' },
    { title: AGENT, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER },
    { title: CHAT, agent: AGENT, 'agent-status': 'completed' },
    // gpt-4o-mini: $0.15 / $0.60 per million tokens.
    message('user'),
    reply(10_000, 2_000), // $0.0027
    message('user'),
    reply(20_000, 1_000), // $0.0036
    message('tool', { 'tool-name': 'wiki-recent', 'tool-status': 'ok' }),
    reply(30_000, 500), // $0.0048
    { title: 'Free chat', agent: AGENT, 'agent-status': 'completed' },
  ]);
});
afterAll(() => new Promise((resolve) => setTimeout(resolve, 10)));

function render(chat = CHAT) {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return { widget, container };
}

/** Write tiddlers and let the widget see the change, as the page's refresh cycle would. */
function change(widget: FakeNode, ...tiddlers: Record<string, string>[]): Promise<void> {
  return new Promise((resolve) => {
    const listener = (changes: unknown) => {
      $tw.wiki.removeEventListener('change', listener);
      widget.refresh(changes);
      resolve();
    };
    $tw.wiki.addEventListener('change', listener);
    for (const t of tiddlers) $tw.wiki.addTiddler(t);
  });
}

const replyCosts = (container: FakeNode) => findAll(container, 'tc-ai-message-cost').map((n) => n.textContent);
const profile = () => $tw.wiki.getTiddler(PROVIDER).getFieldStrings() as Record<string, string>;

test("the meter shows the turn's and the chat's cost; each reply shows its own", () => {
  const { container } = render();
  const cost = find(container, 'tc-ai-chat-cost');
  expect(cost.parentNode).toBe(find(container, 'tc-ai-chat-footer'));
  expect(cost.attributes.hidden).toBeUndefined();
  expect(cost.textContent).toBe('Cost: this turn $0.0084 · chat $0.0111');
  expect(cost.attributes.title).toContain('presets as of');
  expect(replyCosts(container)).toEqual(['$0.0027', '$0.0036', '$0.0048']);
  expect(find(container, 'tc-ai-message-cost').attributes.title).toBe('10000 tokens in, 2000 out');
});

test('a chat without priced replies shows no cost', () => {
  const { container } = render('Free chat');
  expect(find(container, 'tc-ai-chat-cost').attributes.hidden).toBeDefined();
});

test('a new reply updates the cost in place; a new user message starts a new turn', async () => {
  const { widget, container } = render();
  const cost = find(container, 'tc-ai-chat-cost');
  const before = findAll(container, 'tc-ai-message');
  await change(widget, reply(4_000, 0)); // $0.0006
  expect(find(container, 'tc-ai-chat-cost')).toBe(cost);
  expect(cost.textContent).toBe('Cost: this turn $0.0090 · chat $0.0117');
  const after = findAll(container, 'tc-ai-message');
  before.forEach((node, i) => {
    expect(after[i]).toBe(node);
  });
  await change(widget, message('user'));
  expect(cost.textContent).toBe('Cost: this turn $0 · chat $0.0117');
});

test('an unknown price is "unknown", never $0, and the sum says it is a lower bound', async () => {
  const { widget, container } = render();
  const cost = find(container, 'tc-ai-chat-cost');
  await change(widget, reply(1_000, 100, 'mock-model'));
  expect(cost.textContent).toBe('Cost: this turn unknown · chat at least $0.0117');
  expect(cost.attributes['data-unpriced']).toBe('yes');
  expect(cost.attributes.title).toContain(
    `No price is known for mock-model: set "price-input" and "price-output" in the "model-facts" field of the provider profile "${PROVIDER}"`,
  );
  expect(replyCosts(container).at(-1)).toBe('cost unknown');
});

test("a price set in the profile's model-facts re-prices the shown replies without rebuilding them", async () => {
  const { widget, container } = render();
  const nodes = findAll(container, 'tc-ai-message');
  // gpt-4o-mini now at $1 / $1, mock-model at $0: the chat is 10,000+2,000 + 20,000+1,000 + 30,000+500 + 4,000 + 1,100 tokens.
  await change(widget, {
    ...profile(),
    'model-facts': '{"gpt-4o-mini": {"price-input": 1, "price-output": 1}, "mock-model": {"price-input": 0, "price-output": 0}}',
  });
  expect(find(container, 'tc-ai-chat-cost').textContent).toBe('Cost: this turn $0 · chat $0.0675');
  expect(replyCosts(container)).toEqual(['$0.0120', '$0.0210', '$0.0305', '$0.0040', '$0']);
  findAll(container, 'tc-ai-message').forEach((node, i) => {
    expect(node).toBe(nodes[i]);
  });
});

test("a bad model-facts entry is named in the meter's tooltip; prices fall back to the presets", async () => {
  const { widget, container } = render();
  await change(widget, { ...profile(), 'model-facts': '{"gpt-4o-mini": {"price-input": -1}}' });
  const cost = find(container, 'tc-ai-chat-cost');
  expect(cost.attributes.title).toContain(`Provider profile "${PROVIDER}": the field "model-facts" has "price-input": -1 for "gpt-4o-mini"`);
  expect(cost.textContent).toBe('Cost: this turn unknown · chat at least $0.0117');
});

test("the settings tab shows each profile's facts and a bad model-facts entry next to it", () => {
  // The provider setup shows one profile at a time: the one picked.
  const settingsOf = (profile: string) => {
    $tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/provider', text: profile });
    // As in the page: the core macros (tabs) and the global procedures (ai-lingo) imported.
    const widget = $tw.wiki.makeTranscludeWidget('$:/plugins/tiddlyagent/agent/settings', { document: $tw.fakeDocument, importPageMacros: true } as never);
    const container = $tw.fakeDocument.createElement('div');
    widget.render(container as never, null as never);
    const html = (container as unknown as { innerHTML: string }).innerHTML;
    return html.slice(html.indexOf(`data-provider="${profile}"`));
  };
  const section = settingsOf(PROVIDER);
  expect(section).toContain(
    `<div class="tc-ai-bg-problem tc-ai-profile-problem">Provider profile "${PROVIDER}": the field "model-facts" has "price-input": -1 for "gpt-4o-mini"`,
  );
  const openai = settingsOf('$:/plugins/tiddlyagent/agent/providers/openai');
  expect(openai).toContain('gpt-4o-mini: window 128,000 · output 4,096 · images · $0.15 / $0.60 per million tokens in / out');
  expect(openai).toContain('gpt-4.1: window 1,047,576 · output 4,096');
  // ... in the wiki's language.
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(settingsOf('$:/plugins/tiddlyagent/agent/providers/openai')).toContain(
      'gpt-4o-mini：窗口 128,000 · 输出 4,096 · 支持图片 · 每百万词元 输入 $0.15 / 输出 $0.60',
    );
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});
