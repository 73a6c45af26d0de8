// The UI's words follow the wiki's language: <<ai-lingo>> in wikitext and lingo() in the
// chat widget read the zh-Hans translation while $:/language names zh-Hans, and fall back to
// English for a key without one.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import { lingo } from '../../src/agent/ui/lingo';

let $tw: TW;
beforeAll(async () => {
  $tw = await bootWiki();
});

function render(text: string): string {
  // The page template imports the globals ($:/core/config/GlobalImportFilter); so does this.
  return $tw.wiki.renderText('text/plain', 'text/vnd.tiddlywiki', `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${text}`);
}

test('English by default, Chinese while $:/language is zh-Hans, English for an untranslated key', () => {
  $tw.wiki.deleteTiddler('$:/language');
  expect(render('<<ai-lingo "Send">>')).toBe('Send');
  expect(lingo($tw.wiki, 'Send')).toBe('Send');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  expect(render('<<ai-lingo "Send">>')).toBe('发送');
  expect(lingo($tw.wiki, 'Send')).toBe('发送');
  $tw.wiki.addTiddler({ title: '$:/plugins/tiddlyagent/agent/language/OnlyEnglish', text: 'Only English' });
  expect(render('<<ai-lingo "OnlyEnglish">>')).toBe('Only English');
  expect(lingo($tw.wiki, 'OnlyEnglish')).toBe('Only English');
  $tw.wiki.deleteTiddler('$:/language');
});

// Every English key has a Chinese translation and no translation is left for a key that is
// gone; a translation keeps every $placeholder$ and wikitext link/format of its English text.
const LANGUAGE = '$:/plugins/tiddlyagent/agent/language/';
function keys(prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const title of $tw.wiki.filterTiddlers(`[all[shadows]prefix[${prefix}]]`) as string[]) {
    const key = title.slice(prefix.length);
    // English keys only: translations (`<code>/…`) and the lingo procedure are not UI strings.
    if (prefix === LANGUAGE && (/^[a-z]{2}-[A-Za-z]+\//.test(key) || key === 'lingo')) continue;
    out.set(key, $tw.wiki.getTiddlerText(title) ?? '');
  }
  return out;
}

test('zh-Hans translates every en-GB key, has no stale key, and keeps placeholders and wikitext markup', () => {
  const english = keys(LANGUAGE);
  const chinese = keys(`${LANGUAGE}zh-Hans/`);
  expect(english.size).toBeGreaterThan(150);
  expect([...english.keys()].filter((k) => !chinese.has(k))).toEqual([]);
  expect([...chinese.keys()].filter((k) => !english.has(k))).toEqual([]);
  const marks = (text: string) => [...text.matchAll(/\$[a-z]+\$|\/\/|<\/?small>|\$:\/[\w/]+/gi)].map((m) => m[0]).sort();
  for (const [key, text] of english) {
    expect({ key, marks: marks(chinese.get(key)!) }).toEqual({ key, marks: marks(text) });
    expect({ key, blank: !chinese.get(key)!.trim() }).toEqual({ key, blank: !text.trim() });
  }
});

test("the English prompt words in the language tiddlers are the engine's own defaults", () => {
  const { ENGLISH_PROMPT_WORDS } = require('../../src/agent/engine/prompt-words') as typeof import('../../src/agent/engine/prompt-words');
  for (const [name, text] of Object.entries(ENGLISH_PROMPT_WORDS))
    expect({ name, text: $tw.wiki.getTiddlerText(`${LANGUAGE}Prompt/Words/${name}`) }).toEqual({ name, text });
});

test('the Chats and Background sidebar tabs, a status badge and a schedule read Chinese under zh-Hans', () => {
  $tw.wiki.addTiddler({ title: 'Lingo chat', agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'working' });
  $tw.wiki.addTiddler({
    title: 'Lingo schedule',
    tags: '$:/tags/AI/Schedule',
    'agent-chat': 'Lingo chat',
    'schedule-kind': 'interval',
    'schedule-interval': '300',
    'schedule-active-hours': '09:00-17:00',
    'schedule-next-run': '2030-01-07T09:00:00.000Z',
    'schedule-message': '检查花园',
  });
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    const chats = render('{{$:/plugins/tiddlyagent/agent/ui/sidebar/chats}}');
    expect(chats).toContain('空闲');
    expect(chats).toContain('处理中');
    expect(chats).not.toMatch(/\bworking\b/);
    const background = render('{{$:/plugins/tiddlyagent/agent/ui/sidebar/background}}');
    expect(background).toContain('定时任务和闹钟');
    expect(background).toContain('每 5 分钟 一次，仅在 09:00-17:00');
    expect(background).toContain('下次：');
    // Nothing left in English but names, ISO-like times and the tags/fields it quotes.
    const english = background
      .replace(/Lingo \w+|\$:\/[\w/]+|agent-heartbeat-interval|alarm-clock|schedule-task|TiddlyAgent|Wiki Assistant/g, '')
      .match(/[A-Za-z]{2,}/g);
    expect(english).toBeNull();
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
    $tw.wiki.deleteTiddler('Lingo schedule');
    $tw.wiki.deleteTiddler('Lingo chat');
  }
});

test('an error message shows a headline in the UI language above its technical detail; one without a kind shows its text', () => {
  const chat = 'Lingo error chat';
  $tw.wiki.addTiddler({ title: chat, agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'failed' });
  const message = (seq: number, fields: Record<string, string>) => ({
    title: `$:/ai/msg/${chat}/${seq}`,
    'agent-chat': chat,
    'agent-seq': String(seq),
    role: 'error',
    type: 'text/plain',
    ...fields,
  });
  $tw.wiki.addTiddler(message(0, { 'error-kind': 'network', text: 'Could not connect to http://127.0.0.1:9/v1 (connection refused).' }));
  $tw.wiki.addTiddler(message(1, { text: 'An old error without a kind.' }));
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
    const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
    const container = $tw.fakeDocument.createElement('div');
    widget.render(container, null);
    const html = container.innerHTML as string;
    expect(html).toContain('<div class="tc-ai-error-headline">无法连接到模型服务器</div>');
    expect(html).toContain('Could not connect to http://127.0.0.1:9/v1 (connection refused).');
    expect(html).toContain('An old error without a kind.');
    expect(html).toContain('>错误<');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});

test('a tool call that did not run to its end shows a line in the UI language, from its fields; the English the model was sent stays in its details', () => {
  const chat = 'Lingo tool chat';
  $tw.wiki.addTiddler({ title: chat, agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'completed' });
  const message = (seq: number, fields: Record<string, string>) => ({
    title: `$:/ai/msg/${chat}/${seq}`,
    'agent-chat': chat,
    'agent-seq': String(seq),
    role: 'tool',
    'tool-name': 'wiki-create',
    'tool-call-id': `c${seq}`,
    'tool-args': '{"title":"Note"}',
    ...fields,
  });
  $tw.wiki.addTiddler(message(0, { 'tool-status': 'denied', 'tool-outcome': 'user-denied', approval: 'deny', text: 'The user denied it.' }));
  $tw.wiki.addTiddler(message(1, { 'tool-status': 'denied', 'tool-outcome': 'expired', text: 'Nobody confirmed it in time, so it was denied.' }));
  $tw.wiki.addTiddler(message(2, { 'tool-status': 'timeout', text: 'The tool wiki-create did not finish within 30 s and was given up.' }));
  $tw.wiki.addTiddler(message(3, { 'tool-status': 'denied', 'tool-outcome': 'canceled', text: 'The MCP session ended.' }));
  // Written before tool-outcome existed: the user's Deny is on the message.
  $tw.wiki.addTiddler(message(4, { 'tool-status': 'denied', approval: 'deny', text: 'Denied: the user denied it.' }));
  // A failure that is no outcome keeps its own text.
  $tw.wiki.addTiddler(message(5, { 'tool-status': 'error', text: 'Refused: "$:/x" is a system tiddler.' }));
  const html = (): string => {
    const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
    const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
    const container = $tw.fakeDocument.createElement('div');
    widget.render(container, null);
    return container.innerHTML as string;
  };
  // Each call's line, as read: its words without the markup (a title is a link).
  const lines = (text: string) => [...text.matchAll(/<div class="tc-ai-tool-step">(.*?)<\/div>/g)].map((m) => (m[1] ?? '').replace(/<[^>]*>/g, ''));
  try {
    const english = html();
    expect(lines(english)).toEqual([
      'You did not allow the agent to create Note',
      'Did not create Note: Nobody confirmed it in time, so it was not run.',
      'Gave up trying to create Note: it took too long',
      'Did not create Note: Canceled: the session or turn it belonged to has ended.',
      'You did not allow the agent to create Note',
      'Not allowed to create Note: "$:/x" is a system tiddler.',
    ]);
    $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
    const chinese = html();
    expect(lines(chinese)).toEqual([
      '你没有允许代理创建 Note',
      '没有创建 Note：没有人及时确认，所以它没有执行。',
      '创建 Note耗时太长，已放弃',
      '没有创建 Note：已取消：它所属的会话或本轮已经结束。',
      '你没有允许代理创建 Note',
      '不允许创建 Note："$:/x" is a system tiddler.',
    ]);
    // What the model was sent stays, one click away.
    expect(chinese).toMatch(/<pre class="tc-ai-tool-result">The user denied it\.<\/pre>/);
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});

test('a setup error a new user meets carries a hint, shown in Chinese under zh-Hans (the English detail already says it in English)', async () => {
  const add = (f: Record<string, string>) => $tw.wiki.addTiddler(f);
  delete process.env.OPENAI_API_KEY;
  add({
    title: 'Hint OpenAI',
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': 'https://api.openai.com/v1',
    'default-model': 'gpt-test',
    'api-key-name': 'openai-api-key',
  });
  add({
    title: 'Hint custom key',
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': 'https://llm.example/v1',
    'default-model': 'm',
    'api-key-name': 'my-own-key',
  });
  add({ title: 'Hint no model', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'https://llm.example/v1' });
  const cases: [string, string, string, RegExp][] = [
    ['no-key-server', 'Hint OpenAI', '服务器从环境变量读取密钥', /No API key is set for the provider "Hint OpenAI"/],
    ['key-refused', 'Hint custom key', '只使用其所有者允许的密钥', /not one this server may use/],
    ['no-provider', 'Hint missing profile', '为这个智能体选择服务商', /The provider profile "Hint missing profile" does not exist/],
    ['no-model', 'Hint no model', '为服务商选择默认模型', /No model is set/],
  ];
  const render = (chat: string): string => {
    const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
    const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
    const container = $tw.fakeDocument.createElement('div');
    widget.render(container, null);
    return container.innerHTML as string;
  };
  for (const [hint, provider, chinese, detail] of cases) {
    const agent = `Hint agent ${hint}`;
    add({ title: agent, tags: '$:/tags/AI/Agent', 'agent-provider': provider, text: 'A test agent.' });
    const chat = `Hint chat ${hint}`;
    add({ title: chat, agent, 'agent-status': 'idle' });
    await agentLib($tw).getLocalRunner().submit({ kind: 'send', chat, text: 'hello' });
    const error = $tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]role[error]]`).map((t: string) => $tw.wiki.getTiddler(t).fields)[0];
    expect({ hint, kind: error['error-kind'], stored: error['error-hint'] }).toEqual({ hint, kind: 'config', stored: hint });
    expect(error.text).toMatch(detail);
    expect(render(chat)).not.toContain('tc-ai-error-hint');
    $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
    try {
      const html = render(chat);
      expect(html).toContain(
        `<div class="tc-ai-error-hint">${$tw.wiki.getTiddlerText(`$:/plugins/tiddlyagent/agent/language/zh-Hans/Error/Hint/${hint}`)}</div>`,
      );
      expect(html).toContain(chinese);
      expect(html).toMatch(detail);
    } finally {
      $tw.wiki.deleteTiddler('$:/language');
    }
  }
  // Without a hint of its own, an error's kind may have one: an address the owner's rules refuse.
  const chat = 'Hint chat refused';
  add({ title: chat, agent: 'Hint agent no-model', 'agent-status': 'failed' });
  add({
    title: `$:/ai/msg/${chat}/0`,
    'agent-chat': chat,
    'agent-seq': '0',
    role: 'error',
    'error-kind': 'refused',
    text: 'http://10.0.0.5/v1 is a private address. The server\'s owner can allow it by adding "10.0.0.5" to "allowHosts" in the TiddlyAgent configuration (TIDDLYAGENT_CONFIG).',
  });
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(render(chat)).toContain('<div class="tc-ai-error-hint">服务器的所有者可以在 TiddlyAgent 配置中允许这个地址');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});

test("the English refusals in the language tiddlers are the runner's own", () => {
  const { REFUSALS } = require('../../src/agent/runner/refusals') as typeof import('../../src/agent/runner/refusals');
  for (const [name, text] of Object.entries(REFUSALS)) expect({ name, text: $tw.wiki.getTiddlerText(`${LANGUAGE}Refused/${name}`) }).toEqual({ name, text });
});

test("a zh-Hans user reads the runner's refusals in Chinese, with the English detail after it", async () => {
  const { requestErrorText } = require('../../src/agent/ui/runner-error') as typeof import('../../src/agent/ui/runner-error');
  const chat = 'Refusal chat';
  $tw.wiki.addTiddler({ title: chat, agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'idle' });
  const runner = agentLib($tw).getLocalRunner();
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => e,
    );
  const stop = await refusal(runner.submit({ kind: 'stop', chat }));
  const missing = await refusal(runner.submit({ kind: 'send', chat: 'No such chat', text: 'hi' }));
  const taken = await refusal(runner.submit({ kind: 'rename', chat, to: 'Welcome to TiddlyAgent' }));
  expect(requestErrorText($tw.wiki, stop)).toBe('"Refusal chat" has no turn to stop.');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(requestErrorText($tw.wiki, stop)).toBe('“Refusal chat”没有正在进行的轮次可以停止。 ("Refusal chat" has no turn to stop.)');
    expect(requestErrorText($tw.wiki, missing)).toBe('对话“No such chat”不存在。 (The chat "No such chat" does not exist.)');
    expect(requestErrorText($tw.wiki, taken)).toMatch(
      /^已有名为“Welcome to TiddlyAgent”的条目，请换一个标题。 \(A tiddler called "Welcome to TiddlyAgent" already exists/,
    );
    // A refusal that has no reason of the list (the write gate's own words) reads as it is.
    expect(requestErrorText($tw.wiki, new Error('Refused: the text holds a script.'))).toBe('Refused: the text holds a script.');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
});
