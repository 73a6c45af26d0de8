// The side model (issue 26 item 3): an agent's `agent-side-model` answers its chat titles and
// compactions instead of the chat's model, a model of the same provider, and the cost view
// counts those calls at the side model's price. A real TiddlyWiki in Node, the mock LLM over
// HTTP (it records the model each request names and reports the usage it is told), the chat
// widget rendered in TiddlyWiki's fake DOM for the cost.
import { agentLib, bootWiki, find, type TW } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

let $tw: TW;
let mock: any;
let count = 0;
const PROVIDER = 'Side provider';

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1, models: ['gpt-4.1', 'gpt-4o-mini'] });
  // gpt-4.1: $2.00 per million input tokens; gpt-4o-mini: $0.15.
  $tw = await bootWiki([{ title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'gpt-4.1' }]);
});
afterAll(async () => {
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();
const fields = (title: string) => ($tw.wiki.getTiddler(title)?.getFieldStrings() ?? {}) as Record<string, string>;
const million = { prompt_tokens: 1_000_000, completion_tokens: 0 };
const thousand = { prompt_tokens: 1_000, completion_tokens: 0 };
const isTitleRequest = (r: any) => String(r.body.messages[0]?.content).startsWith('Name this chat:');

/** An agent on the mock (gpt-4.1 for chats) with these fields, and a chat of it titled `title` (or the next free "Chat N"). */
function setup(agentFields: Record<string, string>, title?: string): string {
  const agent = `Side agent ${++count}`;
  $tw.wiki.addTiddler({
    title: agent,
    tags: '$:/tags/AI/Agent',
    'agent-provider': PROVIDER,
    'agent-model': 'gpt-4.1',
    text: 'You are a test agent.',
    ...agentFields,
  });
  let chat = title ?? 'Chat';
  for (let n = 1; !title && $tw.wiki.tiddlerExists(chat); n++) chat = `Chat ${n}`;
  $tw.wiki.addTiddler({ title: chat, agent, 'agent-status': 'idle', text: '' });
  return chat;
}

/** The chat's cost meter, as the <$ai-chat> widget renders it. */
function meter(chat: string) {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return find(container, 'tc-ai-chat-cost');
}

test("the automatic title is asked of the side model, and counted at the side model's price", async () => {
  const chat = setup({ 'agent-side-model': 'gpt-4o-mini' });
  const from = mock.requests.length;
  mock.queue({ text: 'Prune in winter.', usage: thousand });
  mock.queueTitles({ text: 'Pruning apple trees', usage: million });
  expect(await runner().submit({ kind: 'send', chat, text: 'When do I prune apple trees?' })).toMatchObject({ status: 'completed' });
  const requests = mock.requests.slice(from);
  expect(requests.filter(isTitleRequest).map((r: any) => r.body.model)).toEqual(['gpt-4o-mini']);
  expect(requests.filter((r: any) => !isTitleRequest(r)).map((r: any) => r.body.model)).toEqual(['gpt-4.1']);
  expect(fields('Pruning apple trees')).toMatchObject({
    'agent-title-model': 'gpt-4o-mini',
    'agent-title-tokens-in': '1000000',
    'agent-title-tokens-out': '0',
  });
  // The reply: 1,000 tokens at gpt-4.1 ($0.0020); the title: a million at gpt-4o-mini ($0.15, not $2).
  const cost = meter('Pruning apple trees');
  expect(cost.textContent).toBe('Cost: this turn $0.0020 · chat $0.1520');
  expect(cost.attributes.title).toContain('The automatic title: $0.1500 (gpt-4o-mini)');
});

test("without a side model the title is asked of the chat's model and counted at its price", async () => {
  const chat = setup({});
  const from = mock.requests.length;
  mock.queue({ text: 'Water weekly.', usage: thousand });
  mock.queueTitles({ text: 'Watering the beds', usage: million });
  await runner().submit({ kind: 'send', chat, text: 'How often do I water the beds?' });
  expect(
    mock.requests
      .slice(from)
      .filter(isTitleRequest)
      .map((r: any) => r.body.model),
  ).toEqual(['gpt-4.1']);
  expect(meter('Watering the beds').textContent).toBe('Cost: this turn $0.0020 · chat $2.00');
});

test("compaction asks the side model, and its summary is priced at the side model's price", async () => {
  const chat = setup({ 'agent-side-model': 'gpt-4o-mini', 'agent-context-window': '8000', 'agent-compact-at': '40' }, `Long side chat ${count}`);
  const store = new (agentLib($tw).ChatStore)(agentLib($tw).createTiddlyWikiPort($tw.wiki));
  for (let i = 1; i <= 4; i++) {
    store.appendMessage(chat, { role: 'user', text: `OLDTURN${i} ${'words about the garden plan '.repeat(60)}` });
    store.appendMessage(chat, { role: 'assistant', text: `OLDTURN${i} answer ${'words about the garden plan '.repeat(60)}` });
  }
  const from = mock.requests.length;
  mock.queue({ text: 'SUMMARY: a garden was planned.', usage: million });
  mock.queue({ text: 'Done.', usage: thousand });
  expect(await runner().submit({ kind: 'send', chat, text: 'And now?' })).toMatchObject({ status: 'completed' });
  const requests = mock.requests.slice(from);
  expect(requests.map((r: any) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4.1']);
  expect(JSON.stringify(requests[1].body.messages)).toContain('SUMMARY: a garden was planned.');
  const summary = ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]field:agent-compaction[yes]]`) as string[]).map(fields)[0]!;
  expect(summary).toMatchObject({ model: 'gpt-4o-mini', 'tokens-in': '1000000' });
  // The summary ($0.15 at gpt-4o-mini) and the reply ($0.0020 at gpt-4.1): this turn and the chat.
  expect(meter(chat).textContent).toBe('Cost: this turn $0.1520 · chat $0.1520');
});

test("the compaction request fits the side model's window when it is smaller than the chat model's", async () => {
  // gpt-4.1's window is about a million tokens, gpt-4o-mini's 128,000: past 10% of the first, the
  // older turns (about 200,000 tokens) are summarized by the second, so the request drops its oldest.
  const chat = setup({ 'agent-side-model': 'gpt-4o-mini', 'agent-compact-at': '10' }, `Big side chat ${count}`);
  const store = new (agentLib($tw).ChatStore)(agentLib($tw).createTiddlyWikiPort($tw.wiki));
  const words = 'a'.repeat(4 * 20_000); // 20,000 tokens each
  for (let i = 1; i <= 5; i++) {
    store.appendMessage(chat, { role: 'user', text: `BIGTURN${i} ${words}` });
    store.appendMessage(chat, { role: 'assistant', text: `BIGTURN${i} ${words}` });
  }
  const from = mock.requests.length;
  mock.queue({ text: 'SUMMARY: big turns.', usage: thousand });
  mock.queue({ text: 'Done.', usage: thousand });
  expect(await runner().submit({ kind: 'send', chat, text: 'And now?' })).toMatchObject({ status: 'completed' });
  const [summaryRequest] = mock.requests.slice(from);
  expect(summaryRequest.body.model).toBe('gpt-4o-mini');
  const sent = JSON.stringify(summaryRequest.body.messages);
  expect(sent.length / 4).toBeLessThan(128_000);
  expect(sent).toContain('BIGTURN4'); // the newest of the older turns stays
  expect(sent).not.toContain('BIGTURN1 ');
});

test('the agent settings offer the side model and the result rounds, in both languages', () => {
  const AGENT = '$:/plugins/tiddlyagent/agent/agents/wiki-assistant';
  $tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/agent', text: AGENT });
  // As a page shows it: with the global procedures (ai-lingo) imported.
  const form = () => {
    const html = $tw.wiki.renderText(
      'text/html',
      'text/vnd.tiddlywiki',
      '\\import [all[shadows+tiddlers]tag[$:/tags/Global]]\n{{$:/plugins/tiddlyagent/agent/settings/agents}}',
    );
    const { JSDOM } = require('jsdom');
    return (new JSDOM(`<body>${html}</body>`).window.document.body as HTMLElement).querySelector(`.tc-ai-settings-agent[data-agent="${AGENT}"]`)!;
  };
  const row = (label: string) => [...form().querySelectorAll('tr')].find((tr) => tr.querySelector('th')?.textContent === label);
  try {
    expect(row('Side model')!.textContent).toContain('chat titles, compaction and summaries');
    expect(row('Tool results expire')!.querySelector('input')!.getAttribute('placeholder')).toBe('{"web-fetch": 2}');
    expect(row('Tool results expire')!.textContent).toContain('wiki-read 4');
    $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
    expect(row('辅助模型')!.textContent).toContain('对话标题、压缩和摘要');
    expect(row('工具结果过期')!.textContent).toContain('wiki-read 4 轮');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});
