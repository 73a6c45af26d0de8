// The UI in Chinese, in a real browser: with $:/language set to zh-Hans, a chat holding a user
// message, a reply, a tool line, a denied call, an error, a setup error with its hint, an
// incomplete reply and an approval card, with its composer, status line and footer, the page
// controls, the Chats and Background sidebar tabs show no English UI word (in text, tooltips,
// aria-labels or placeholders). What the user or the model wrote, tiddler titles, tool names,
// model ids and code are not UI words and are left out. Switched back to en-GB, the same page
// reads English again, without a reload. Beyond the controls: a new chat's first turn takes a
// Chinese title, and the demo's welcome tiddler and translated manual chapters read Chinese,
// their links leading to Chinese chapters, and English again once switched back.
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const served = useServedWiki({ mockDelayMs: 5, languages: true });

const CHAT = 'Demo chat';
const chat = () => served.page.locator(`.tc-ai-chat[data-chat="${CHAT}"]`);

/**
 * The UI chrome looked at: the page controls, the sidebar's tab captions, the two TiddlyAgent
 * tabs, the search results (the Ranked tab), the chat's frame and every tiddler's toolbar (Talk with AI).
 */
const REGIONS = [
  '.tc-page-controls',
  '.tc-sidebar-tabs-main > .tc-tab-buttons',
  '.tc-ai-sidebar-chats',
  '.tc-ai-background',
  '.tc-sidebar-search .tc-search-results',
  `.tc-tiddler-frame[data-tiddler-title="${CHAT}"]`,
  '.tc-tiddler-frame .tc-tiddler-controls',
];
/** Not UI words: what the user or the model wrote, tool output, titles, field names and values, model ids, code. */
const NOT_UI = [
  '.tc-ai-message-user > .tc-ai-message-body',
  '.tc-ai-message-assistant > .tc-ai-message-body',
  '.tc-ai-error-detail',
  '.tc-ai-tool-error',
  '.tc-ai-tool-value',
  '.tc-ai-message-model',
  '.tc-ai-diff-title > a',
  '.tc-ai-diff-field-name',
  '.tc-ai-diff-field-value',
  '.tc-ai-diff-text',
  '.tc-ai-bg-message',
  '.tc-ai-bg-caption',
  '.tc-ai-chats-agent-name',
  'a.tc-tiddlylink',
  'option',
  'pre',
  'code',
  '.tc-title',
  '.tc-subtitle',
  '.tc-tags-wrapper',
  '.tc-ai-chat-notes',
  // TiddlyWiki's tiddlyweb plugin writes its button's tooltip in English in every language (upstream, not ours).
  '[class~="tc-btn-%24%3A%2Fcore%2Fui%2FButtons%2Fsave-wiki"]',
];
/** Names and codes that read the same in every language: proper nouns, keys, tool, field and model names. */
const ALLOWED = new Set([
  'TiddlyAgent',
  'TiddlyWiki',
  'MCP',
  'JSON',
  'Markdown',
  'json',
  'md',
  'tid',
  'MB',
  'ChatGPT',
  'conversations',
  'TidGi',
  'Tools',
  'URL',
  'API',
  'AI',
  'Ctrl',
  'Enter',
  'Esc',
  'wiki-create',
  'wiki-search',
  'alarm-clock',
  'schedule-task',
  'agent-heartbeat-interval',
  'model-facts',
  'price-input',
  'price-output',
  'mock-model',
]);

interface Found {
  where: string;
  text: string;
}

/** The UI's words in the regions: text nodes and the title, aria-label, placeholder and alt attributes. */
function uiTexts(): Promise<Found[]> {
  return served.page.evaluate(
    ([regions, notUi]) => {
      const found: { where: string; text: string }[] = [];
      const skip = notUi.join(',');
      const describe = (e: Element) =>
        `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;
      for (const selector of regions) {
        for (const root of Array.from(document.querySelectorAll(selector))) {
          const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
          for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
            if (node.nodeType === Node.TEXT_NODE) {
              const parent = node.parentElement!;
              if (parent.closest(skip) || parent.closest('style, script')) continue;
              const text = node.textContent!.trim();
              if (text) found.push({ where: describe(parent), text });
            } else {
              const element = node as Element;
              if (element.closest(skip)) continue;
              for (const name of ['title', 'aria-label', 'placeholder', 'alt']) {
                const value = element.getAttribute(name)?.trim();
                if (value) found.push({ where: `${describe(element)}[${name}]`, text: value });
              }
            }
          }
        }
      }
      return found;
    },
    [REGIONS, NOT_UI] as const,
  );
}

/** Runs of Latin letters that are not allowed names (tiddler titles like $:/tags/… are left out). */
function englishWords(found: Found[]): string[] {
  const words: string[] = [];
  for (const { where, text } of found) {
    // Titles are names, not UI words: system titles, and the chat's own title inside a label.
    const bare = text
      .replace(/\$:\/[\x21-\x7e]+/g, ' ')
      .split(CHAT)
      .join(' ');
    for (const word of bare.match(/[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*/g) ?? []) {
      if (word.length > 1 && !ALLOWED.has(word)) words.push(`${word} (${where}: "${text}")`);
    }
  }
  return words;
}

const setLanguage = (language: string) => served.page.evaluate((l) => (window as any).$tw.wiki.addTiddler({ title: '$:/language', text: l }), language);
/** The demo provider's `api-key-name` (undefined: none, as shipped). */
const setProviderKeyName = (name: string | undefined) =>
  served.page.evaluate((n) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler('$:/demo/providers/mock-llm'), { 'api-key-name': n }));
  }, name);
const status = () => chat().getAttribute('data-status');
const waitForStatus = (...wanted: string[]) =>
  served.page.waitForFunction(([sel, w]) => w.includes(document.querySelector(sel)?.getAttribute('data-status') ?? ''), [
    `.tc-ai-chat[data-chat="${CHAT}"]`,
    wanted,
  ] as const);

async function send(text: string): Promise<void> {
  await chat().locator('textarea.tc-ai-chat-input').fill(text);
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
}

/** A turn: sent, then ended in one of these states. */
async function turn(text: string, ...ends: string[]): Promise<void> {
  const before = await chat().locator('[data-message]').count();
  await send(text);
  await served.page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length > n, [
    `.tc-ai-chat[data-chat="${CHAT}"] [data-message]`,
    before,
  ] as const);
  await waitForStatus(...ends);
}

async function openTab(caption: string, content: string): Promise<void> {
  await served.page.locator(`.tc-sidebar-tabs-main > .tc-tab-buttons button[data-tab-title="${caption}"]`).click();
  await served.page.locator(content).waitFor();
}

/** The UI's words with the Chats tab open, then the Background tab, then the ranked search results (which cover the tabs). */
async function sidebarAndPage(): Promise<Found[]> {
  const search = served.page.locator('.tc-sidebar-search input[type="search"]');
  await search.fill('');
  await openTab('$:/plugins/tiddlyagent/agent/ui/sidebar/chats', '.tc-ai-sidebar-chats');
  const chats = await uiTexts();
  await openTab('$:/plugins/tiddlyagent/agent/ui/sidebar/background', '.tc-ai-background [data-schedule]');
  const background = await uiTexts();
  await search.fill('demo');
  const ranked = served.page.locator('.tc-sidebar-search button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/search-results"]');
  await ranked.click();
  await served.page.locator('.tc-sidebar-search button.tc-tab-selected[data-tab-title="$:/plugins/tiddlyagent/agent/ui/search-results"]').waitFor();
  await served.page.locator('.tc-sidebar-search .tc-search-results a.tc-tiddlylink').first().waitFor();
  return [...chats, ...background, ...(await uiTexts())];
}

test('in zh-Hans, a chat with every kind of message, its composer and footer, the page controls and the sidebar tabs hold no English UI word', async () => {
  await setLanguage('$:/languages/zh-Hans');
  await navigate(served.page, CHAT);
  await chat().waitFor();

  await turn('你好', 'completed');
  // A tool that runs by itself (a tool line), and leaves an alarm for the Background panel.
  await turn('mock:tool=alarm-clock {"delaySeconds":3600,"message":"浇花"}', 'completed');
  await chat().locator('.tc-ai-message-tool[data-tool="alarm-clock"][data-tool-status="ok"]').waitFor();
  // An error with its kind: the provider refuses the key.
  await turn('mock:401', 'failed');
  await chat().locator('.tc-ai-error-headline').waitFor();
  // A setup error a new user meets: the provider needs a key this browser does not have.
  await setProviderKeyName('zh-test-key');
  await turn('你好', 'failed');
  await chat().locator('.tc-ai-error-hint').waitFor();
  expect(await chat().locator('.tc-ai-error-hint').textContent()).toContain('控制台 → 设置 → TiddlyAgent → 服务商');
  await setProviderKeyName(undefined);
  // A write the user denies: the line says so in Chinese (the model was told in English).
  await turn('mock:tool=wiki-create {"title":"被拒绝的笔记","text":"不要写"}', 'input-required');
  await chat().locator('.tc-ai-approval button.tc-ai-approve-deny').click();
  await waitForStatus('completed');
  const denied = chat().locator('.tc-ai-message-tool[data-tool="wiki-create"][data-tool-status="denied"] .tc-ai-tool-step');
  expect(await denied.textContent()).toBe('你没有允许代理创建 被拒绝的笔记');
  // An incomplete reply: stopped while it streams.
  await send('mock:stall');
  await chat().locator('.tc-ai-message-streaming').filter({ hasText: 'Mock' }).waitFor();
  await chat().locator('button.tc-ai-chat-stop').click();
  await waitForStatus('canceled');
  await chat().locator('.tc-ai-message-incomplete').waitFor();
  // A write that waits for the user: the approval card.
  await turn('mock:tool=wiki-create {"title":"新笔记","text":"代理写的"}', 'input-required');
  await chat().locator('.tc-ai-approval').waitFor();
  // The footer's buttons, and the prompt they show.
  await chat().locator('.tc-ai-prompt-show').click();
  await chat().locator('.tc-ai-prompt-preview:not([hidden]) .tc-ai-prompt-section').first().waitFor();
  // A tiddler whose toolbar offers Talk with AI.
  await navigate(served.page, 'Demo notes');
  await served.page.locator('[data-ai-action="talk-with-ai"]').first().waitFor();

  const found = await sidebarAndPage();

  // Every part was there, in Chinese.
  const all = found.map((f) => f.text).join('\n');
  for (const part of [
    '.tc-ai-error-headline',
    '.tc-ai-error-hint',
    '.tc-ai-message-incomplete',
    '.tc-ai-tool-step',
    '.tc-ai-approval .tc-ai-card-title',
    '.tc-ai-prompt-head',
    '.tc-ai-chat-send',
    '.tc-ai-chat-status',
    '.tc-ai-chat-meter',
    '.tc-ai-prompt-compact',
  ]) {
    const text = (await chat().locator(part).first().textContent()) ?? '';
    expect({ part, chinese: /[\u4e00-\u9fff]/.test(text) }).toEqual({ part, chinese: true });
  }
  expect(all).toMatch(/[\u4e00-\u9fff]/);
  expect(await status()).toBe('input-required');
  expect(englishWords(found)).toEqual([]);
  expect(served.errors).toEqual([]);
});

test('switched back to en-GB, the same page reads English again, without a reload', async () => {
  await setLanguage('$:/languages/en-GB');
  await served.page.waitForFunction(() => /Allow once/.test(document.querySelector('.tc-ai-approval')?.textContent ?? ''));
  const found = await sidebarAndPage();
  const all = found.map((f) => f.text).join('\n');
  // In English the error's detail says what to do: no hint line; the denied call's line is English.
  expect(await chat().locator('.tc-ai-error-hint').count()).toBe(0);
  expect(await chat().locator('.tc-ai-message-tool[data-tool-status="denied"] .tc-ai-tool-step').first().textContent()).toBe(
    'You did not allow the agent to create 被拒绝的笔记',
  );
  for (const words of [
    'Allow once',
    'Deny',
    'Send',
    'Show prompt',
    'Compact now',
    'incomplete',
    'The provider refused the API key',
    'Waiting for you',
    'Chats',
    'Background',
    'Schedules and alarms',
    'new chat',
    'Ranked',
    'Best matches first',
    'talk with AI',
  ]) {
    expect(all).toContain(words);
  }
  expect(found.filter((f) => /[\u4e00-\u9fff]/.test(f.text))).toEqual([]);
  expect(served.errors).toEqual([]);
});

test('in zh-Hans, every tab of the settings holds no English UI word', async () => {
  await setLanguage('$:/languages/zh-Hans');
  await navigate(served.page, '$:/plugins/tiddlyagent/agent/settings');
  const settings = served.page.locator('.tc-tiddler-frame[data-tiddler-title="$:/plugins/tiddlyagent/agent/settings"] .tc-ai-settings');
  await settings.waitFor();
  const found: Found[] = [];
  const tabs = ['providers', 'agents', 'search', 'mcp'];
  for (const tab of tabs) {
    await served.page.evaluate(
      (t) => (window as any).$tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/tab', text: `$:/plugins/tiddlyagent/agent/settings/${t}` }),
      tab,
    );
    await settings.locator(`.tc-tab-buttons button.tc-tab-selected[data-tab-title="$:/plugins/tiddlyagent/agent/settings/${tab}"]`).waitFor();
    found.push(...(await settingsTexts()));
  }
  // The provider tab of a profile with facts lists them in Chinese (model ids stay as they are).
  await served.page.evaluate(() =>
    (window as any).$tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/tab', text: '$:/plugins/tiddlyagent/agent/settings/providers' }),
  );
  await served.page.evaluate(() =>
    (window as any).$tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/provider', text: '$:/plugins/tiddlyagent/agent/providers/openai' }),
  );
  await served.page.waitForFunction(() => /窗口/.test(document.querySelector('.tc-ai-settings .tc-ai-profile-facts li')?.textContent ?? ''));
  expect(found.length).toBeGreaterThan(40);
  // Names of products, and the demo agent's own caption (data, named in "New chats use"), stay as they are.
  const names = new Set([
    'OpenAI',
    'Claude',
    'Desktop',
    'Code',
    'Cursor',
    'ID',
    'Streamable',
    'HTTP',
    'LM',
    'Studio',
    'llama',
    'cpp',
    'vLLM',
    'OpenRouter',
    'Ollama',
    'Chat',
    'Completions',
  ]);
  const withoutCaption = found.map((f) => ({ ...f, text: f.text.replace('Offline demo assistant (mock LLM)', '') }));
  expect(englishWords(withoutCaption).filter((w) => !names.has(w.split(' ')[0]!))).toEqual([]);
  expect(served.errors).toEqual([]);

  /** The settings' words, leaving out the profiles' own descriptions, JSON examples and facts lines. */
  function settingsTexts(): Promise<Found[]> {
    return served.page.evaluate(
      ([notUi]) => {
        const out: { where: string; text: string }[] = [];
        // Left out: the profiles' own descriptions, JSON and host examples, addresses, the facts lines (model ids).
        const skip = [
          ...notUi,
          '.tc-ai-settings-description',
          '.tc-ai-settings-json',
          '.tc-ai-settings-web-allow',
          'a.tc-tiddlylink-external',
          '.tc-ai-profile-facts',
        ].join(',');
        const root = document.querySelector('.tc-tiddler-frame[data-tiddler-title="$:/plugins/tiddlyagent/agent/settings"] .tc-ai-settings')!;
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
        for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
          if (node.nodeType === Node.TEXT_NODE) {
            const parent = node.parentElement!;
            if (parent.closest(skip)) continue;
            const text = node.textContent!.trim();
            if (text) out.push({ where: parent.className || parent.tagName, text });
          } else {
            const element = node as Element;
            if (element.closest(skip)) continue;
            for (const name of ['title', 'aria-label', 'placeholder', 'alt']) {
              const value = element.getAttribute(name)?.trim();
              if (value) out.push({ where: `${element.className || element.tagName}[${name}]`, text: value });
            }
          }
        }
        return out;
      },
      [NOT_UI] as const,
    );
  }
});

test('in zh-Hans, a new chat\'s first turn takes a Chinese title: a short noun phrase, not "Chat about"', async () => {
  await setLanguage('$:/languages/zh-Hans');
  await served.page.locator('.tc-page-controls [data-ai-action="new-chat"]').click();
  const fresh = served.page.locator('.tc-story-river .tc-ai-chat[data-chat="对话"]');
  await fresh.locator('textarea.tc-ai-chat-input').fill('你好，请帮我整理花园笔记。');
  await fresh.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  // The mock answers the Chinese title request in Chinese: the message's subject.
  const titled = served.page.locator('.tc-story-river .tc-ai-chat[data-chat="整理花园笔记"]');
  await titled.locator('.tc-ai-message-assistant[data-message]').waitFor();
  const request = served.wiki.mock.requests.find((r: { body: { messages?: { role: string; content: unknown }[] } }) =>
    String(r.body?.messages?.[0]?.content ?? '').startsWith('为这段对话命名：'),
  );
  expect(request).toBeDefined();
  const chats = await served.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[has[agent]]') as string[]);
  expect(chats).toContain('整理花园笔记');
  expect(chats.filter((t) => /Chat about/.test(t))).toEqual([]);
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.tiddlerExists('对话'))).toBe(false);
  expect(served.errors).toEqual([]);
});

/** The demo's translated pages (the English titles) and the Chinese captions they show in zh-Hans. */
const PAGES: [string, string][] = [
  ['Welcome to TiddlyAgent', '欢迎使用 TiddlyAgent'],
  ['TiddlyAgent Manual', 'TiddlyAgent 手册'],
  ['TiddlyAgent Manual: Getting started', 'TiddlyAgent 手册：入门'],
  ['TiddlyAgent Manual: Providers', 'TiddlyAgent 手册：服务商'],
  ['TiddlyAgent Manual: Approvals and rollback', 'TiddlyAgent 手册：审批与回滚'],
  ['TiddlyAgent Manual: Security', 'TiddlyAgent 手册：安全'],
  ['TiddlyAgent Manual: Who may do what', 'TiddlyAgent 手册：谁可以做什么'],
];
const frame = (title: string) => served.page.locator(`.tc-story-river .tc-tiddler-frame[data-tiddler-title="${title}"]`);
const hanCount = (text: string) => (text.match(/[\u4e00-\u9fff]/g) ?? []).length;

test('in zh-Hans, the welcome tiddler and each translated manual chapter read Chinese, and their links open Chinese chapters', async () => {
  await setLanguage('$:/languages/zh-Hans');
  for (const [title, caption] of PAGES) {
    await navigate(served.page, title);
    await frame(title).locator('.tc-ai-demo-translation[lang="zh-Hans"]').waitFor();
    expect(await frame(title).locator('.tc-title').textContent()).toBe(caption);
    const body = (await frame(title).locator('.tc-tiddler-body').textContent()) ?? '';
    expect({ title, chinese: hanCount(body) > 50 }).toEqual({ title, chinese: true });
  }
  // Links between chapters, as a reader follows them: the welcome tiddler to Providers, Providers to Who may do what, that to Security.
  const follow = async (from: string, label: string, to: string, caption: string) => {
    await served.page.evaluate((t) => (window as any).$tw.wiki.addTiddler({ title: '$:/StoryList', list: [t] }), from);
    const link = frame(from).locator('.tc-tiddler-body a.tc-tiddlylink', { hasText: label }).first();
    expect(await link.getAttribute('class')).not.toContain('tc-tiddlylink-missing');
    await link.click();
    await frame(to).locator('.tc-ai-demo-translation[lang="zh-Hans"]').waitFor();
    expect(await frame(to).locator('.tc-title').textContent()).toBe(caption);
  };
  await follow('Welcome to TiddlyAgent', '服务商', 'TiddlyAgent Manual: Providers', 'TiddlyAgent 手册：服务商');
  await follow('TiddlyAgent Manual: Providers', '谁可以做什么', 'TiddlyAgent Manual: Who may do what', 'TiddlyAgent 手册：谁可以做什么');
  await follow('TiddlyAgent Manual: Who may do what', '安全', 'TiddlyAgent Manual: Security', 'TiddlyAgent 手册：安全');
  await follow('TiddlyAgent Manual: Security', '审批与回滚', 'TiddlyAgent Manual: Approvals and rollback', 'TiddlyAgent 手册：审批与回滚');
  // The manual's contents lead to each chapter under its Chinese caption.
  await follow('TiddlyAgent Manual', 'TiddlyAgent 手册：入门', 'TiddlyAgent Manual: Getting started', 'TiddlyAgent 手册：入门');
  expect(served.errors).toEqual([]);
});

test('switched back to en-GB, the open pages read English at once, and their links work', async () => {
  await served.page.evaluate(() =>
    (window as any).$tw.wiki.addTiddler({ title: '$:/StoryList', list: ['Welcome to TiddlyAgent', 'TiddlyAgent Manual: Security'] }),
  );
  await frame('TiddlyAgent Manual: Security').locator('.tc-ai-demo-translation').waitFor();
  await setLanguage('$:/languages/en-GB');
  for (const title of ['Welcome to TiddlyAgent', 'TiddlyAgent Manual: Security']) {
    await served.page.waitForFunction(
      (t) => document.querySelector(`.tc-tiddler-frame[data-tiddler-title="${t}"] .tc-title`)?.textContent?.trim() === t,
      title,
    );
    expect(await frame(title).locator('.tc-ai-demo-translation').count()).toBe(0);
    expect(hanCount((await frame(title).locator('.tc-tiddler-body').textContent()) ?? '')).toBe(0);
  }
  await frame('Welcome to TiddlyAgent').locator('.tc-tiddler-body a.tc-tiddlylink', { hasText: 'Providers' }).first().click();
  await frame('TiddlyAgent Manual: Providers').waitFor();
  expect(await frame('TiddlyAgent Manual: Providers').locator('.tc-title').textContent()).toBe('TiddlyAgent Manual: Providers');
  await frame('TiddlyAgent Manual: Providers').locator('.tc-tiddler-body a.tc-tiddlylink', { hasText: 'Who may do what' }).first().click();
  await frame('TiddlyAgent Manual: Who may do what').locator('.tc-tiddler-body').filter({ hasText: "The owner's configuration" }).waitFor();
  expect(served.errors).toEqual([]);
});
