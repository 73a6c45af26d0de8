// The chat slice in a real browser against the served demo wiki: create a chat, send, see the
// reply stream and render as wikitext, follow a link, Stop, reload, and the API key never
// leaving the browser's password store.
import fs from 'node:fs';
import path from 'node:path';
import { navigate, openPageIn, until, useServedWiki, waitForSync } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

const { defaultReply } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

const SECRET = 'e2e-SECRET-key-do-not-leak-0123456789';
const SCREENSHOT = path.join(ROOT, 'output', 'e2e', 'chat.png');

// The demo's mock provider asks for a key, so the test can follow a real key end to end.
const served = useServedWiki({ mockDelayMs: 25, providerFields: { 'api-key-name': 'mock-api-key' } });

beforeAll(async () => {
  // These tests follow one chat called "Chat" through several turns: no automatic title here
  // (chats-sidebar.test.ts shows it).
  await served.page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/auto-title', text: 'no' }));
});

const chatSelector = (title: string) => `.tc-ai-chat[data-chat="${title}"]`;

async function sendInChat(title: string, text: string) {
  const chat = served.page.locator(chatSelector(title));
  await chat.locator('textarea.tc-ai-chat-input').fill(text);
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
}

test('the API key is entered in the settings and kept in the password store only', async () => {
  // The settings tab of the control panel, opened as a tiddler of its own.
  await navigate(served.page, '$:/plugins/tiddlyagent/agent/settings');
  await served.page.locator('select.tc-ai-settings-provider-pick').selectOption('$:/demo/providers/mock-llm');
  const provider = served.page.locator('.tc-ai-settings-provider[data-provider="$:/demo/providers/mock-llm"]');
  const saved = () => served.page.evaluate(() => (window as any).$tw.utils.getPassword('mock-api-key'));
  // Picking the provider re-renders its form on TiddlyWiki's next refresh: on a busy machine the
  // first typing can land in the form being replaced, so type and save again until it is kept.
  for (let attempt = 0; attempt < 3 && (await saved()) !== SECRET; attempt++) {
    await provider.locator('input[type="password"]').fill(SECRET);
    await provider.locator('button.tc-ai-settings-save').click();
  }
  expect(await saved()).toBe(SECRET);
});

test('New chat creates a chat; the reply streams, renders as wikitext and is written once', async () => {
  await served.page.locator('button[data-ai-action="new-chat"]').first().click();
  const chat = served.page.locator(chatSelector('Chat'));
  await chat.waitFor();
  const messagePuts: string[] = [];
  served.page.on('request', (request) => {
    if (request.method() === 'PUT' && request.url().includes(encodeURIComponent('$:/ai/messages/Chat/'))) messagePuts.push(decodeURIComponent(request.url()));
  });

  await sendInChat('Chat', 'Hello agent, what can you do?');
  // The user's message is a tiddler at once; the reply streams into its own bubble first.
  await chat.locator('.tc-ai-message-user').filter({ hasText: 'Hello agent' }).waitFor();
  const streaming = chat.locator('.tc-ai-message-streaming .tc-ai-message-body');
  await streaming.filter({ hasText: 'Mock reply' }).waitFor();
  expect(await chat.getAttribute('data-status')).toBe('working');
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[field:agent-chat[Chat]role[assistant]]').length)).toBe(0);

  const reply = chat.locator('.tc-ai-message-assistant[data-message]');
  await reply.waitFor();
  await chat.locator('.tc-ai-message-streaming').waitFor({ state: 'detached' });
  expect(await chat.getAttribute('data-status')).toBe('completed');
  // Rendered as wikitext: ''bold'' becomes <strong>, [[link]] a working tiddler link.
  expect(await reply.locator('strong').first().textContent()).toBe('Mock reply');
  // In the reply's text (its sources show the cited title again, as a chip under it).
  const link = reply.locator('.tc-ai-message-body a.tc-tiddlylink', { hasText: 'Welcome to TiddlyAgent' });
  expect(await link.count()).toBe(1);

  const stored = await served.page.evaluate(() => {
    const tw = (window as any).$tw;
    const title = tw.wiki.filterTiddlers('[field:agent-chat[Chat]role[assistant]]')[0];
    return tw.wiki.getTiddler(title).getFieldStrings();
  });
  expect(stored.text).toBe(defaultReply('Hello agent, what can you do?'));
  expect(stored.type).toBe('text/vnd.tiddlyagent.reply');
  expect(served.wiki.mock.requests.at(-1).headers.authorization).toBe(`Bearer ${SECRET}`);

  await waitForSync(served.page);
  const replyPuts = messagePuts.filter((url) => url.endsWith(stored.title));
  expect(replyPuts).toHaveLength(1);

  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await served.page.screenshot({ path: SCREENSHOT, fullPage: false });

  await link.click();
  await served.page.locator('[data-tiddler-title="Welcome to TiddlyAgent"]').first().waitFor();
});

// A browser-only wiki compiles the engine (lib.js) when a turn first needs it, not to show a
// chat: the chat reads as a quiet one until then, and once a send makes the runner, the chat
// already shown follows the turn live.
test('showing a chat compiles no engine; the first send does, and the shown chat streams its reply', async () => {
  const errors: string[] = [];
  const page = await openPageIn(served.context, served.wiki, errors);
  try {
    const compiled = (title: string) => page.evaluate((t) => (window as any).$tw.modules.titles[t]?.exports !== undefined, title);
    await navigate(page, 'Chat');
    const chat = page.locator(chatSelector('Chat'));
    await chat.locator('.tc-ai-message-assistant[data-message]').first().waitFor();
    expect(await chat.getAttribute('data-status')).toBe('completed');
    expect(await compiled('$:/plugins/tiddlyagent/agent/page.js')).toBe(true);
    expect(await compiled('$:/plugins/tiddlyagent/agent/lib.js')).toBe(false);
    const replies = await chat.locator('.tc-ai-message-assistant[data-message]').count();
    await chat.locator('textarea.tc-ai-chat-input').fill('And once more');
    await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
    await chat.locator('.tc-ai-message-streaming .tc-ai-message-body').filter({ hasText: 'Mock reply' }).waitFor();
    await page.waitForFunction(([sel, n]) => document.querySelectorAll(`${sel} .tc-ai-message-assistant[data-message]`).length > (n as number), [
      chatSelector('Chat'),
      replies,
    ] as const);
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('data-status') === 'completed', chatSelector('Chat'));
    expect(await compiled('$:/plugins/tiddlyagent/agent/lib.js')).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
});

test('a send during a turn is queued; Stop aborts the HTTP request and keeps the partial reply, marked incomplete', async () => {
  const chat = served.page.locator(chatSelector('Chat'));
  await chat.scrollIntoViewIfNeeded();
  const before = served.wiki.mock.requests.length;
  await sendInChat('Chat', 'mock:slow please write a lot');
  await chat
    .locator('.tc-ai-message-streaming .tc-ai-message-body')
    .filter({ hasText: /\w+ \w+ \w+/ })
    .waitFor();
  // A message sent during the turn waits, shown as queued; Stop drops it with the turn.
  await sendInChat('Chat', 'and one more thing');
  await chat.locator('.tc-ai-message-queued').filter({ hasText: 'and one more thing' }).waitFor();
  expect(await chat.locator('.tc-ai-chat-status').textContent()).toContain('1 queued');
  await chat.locator('button.tc-ai-chat-stop').click();
  await chat.locator('.tc-ai-message-queued').waitFor({ state: 'detached' });
  // the queued words are not lost: they are back in the input
  expect(await chat.locator('textarea.tc-ai-chat-input').inputValue()).toBe('and one more thing');
  await chat.locator('textarea.tc-ai-chat-input').fill('');
  await until(() => served.wiki.mock.requests.length > before && served.wiki.mock.requests.at(-1).aborted === true, 'the mock to see the request aborted');
  await chat.locator('.tc-ai-message-streaming').waitFor({ state: 'detached' });
  expect(await chat.getAttribute('data-status')).toBe('canceled');
  const partial = chat.locator('.tc-ai-message-assistant[data-message]').last();
  expect(await partial.locator('.tc-ai-message-incomplete').count()).toBe(1);
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.getTiddler('Chat').fields['agent-status'])).toBe('canceled');
});

test('an HTTP error ends the turn with a clear error in the chat', async () => {
  const chat = served.page.locator(chatSelector('Chat'));
  await sendInChat('Chat', 'mock:401');
  const error = chat.locator('.tc-ai-message-error').last();
  await error.filter({ hasText: '401' }).waitFor();
  expect(await chat.getAttribute('data-status')).toBe('failed');
});

test('a chunk of the stream that cannot be read marks the reply damaged: its words kept, marked incomplete, a note saying so, and Retry', async () => {
  const chat = served.page.locator(chatSelector('Chat'));
  served.wiki.mock.queue({ text: 'Before the bad chunk, after it.', inject: { 3: 'data: {"choices":[{"delta":{"content":"bro\n\n' } });
  await sendInChat('Chat', 'a reply that breaks');
  const error = chat.locator('.tc-ai-message-error').last();
  await error.locator('[data-error-kind="damaged"]').waitFor();
  expect(await error.locator('.tc-ai-error-headline').textContent()).toBe('Part of the reply could not be read');
  expect(await error.locator('.tc-ai-error-detail').textContent()).toMatch(/not valid JSON.*The partial reply above is kept and marked incomplete/s);
  const partial = chat.locator('.tc-ai-message-assistant[data-message]').last();
  expect((await partial.locator('.tc-ai-message-body').textContent())?.trim()).toBe('Before the bad');
  expect(await partial.locator('.tc-ai-message-incomplete').count()).toBe(1);
  expect(await chat.getAttribute('data-status')).toBe('failed');

  // Retry answers the turn again, whole, in place of the damaged reply and its note.
  await chat.locator('[data-ai-action="retry"]').last().click();
  await served.page.waitForFunction((c) => document.querySelector(c)?.getAttribute('data-status') === 'completed', chatSelector('Chat'));
  const answer = chat.locator('.tc-ai-message-assistant[data-message]').last();
  await answer.filter({ hasText: 'You wrote' }).filter({ hasText: 'a reply that breaks' }).waitFor();
  expect(await answer.locator('.tc-ai-message-incomplete').count()).toBe(0);
  expect(await chat.locator('[data-error-kind="damaged"]').count()).toBe(0);
});

test('a reload shows the history; a reload during a turn leaves the chat interrupted', async () => {
  await sendInChat('Chat', 'mock:slow and then reload');
  const chat = served.page.locator(chatSelector('Chat'));
  await chat.locator('.tc-ai-message-streaming .tc-ai-message-body').filter({ hasText: /\w+/ }).waitFor();
  await sendInChat('Chat', 'queued before the reload');
  await chat.locator('.tc-ai-message-queued').waitFor();
  await waitForSync(served.page); // the user's message, the queue and the `working` status reached the server
  await served.page.reload({ waitUntil: 'domcontentloaded' });
  await served.page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  await navigate(served.page, 'Chat');
  const reloaded = served.page.locator(chatSelector('Chat'));
  await reloaded.waitFor();
  expect(await reloaded.getAttribute('data-status')).toBe('interrupted');
  const texts = await reloaded.locator('.tc-ai-message[data-message] .tc-ai-message-body').allTextContents();
  expect(texts.some((t) => t.includes('Hello agent'))).toBe(true);
  expect(texts.some((t) => t.includes('Mock reply'))).toBe(true);
  expect(texts.some((t) => t.includes('mock:slow and then reload'))).toBe(true);
  expect(texts.at(-1)).toMatch(/interrupted/);
  // the message queued behind the interrupted turn is back in the input, not lost
  expect(await reloaded.locator('textarea.tc-ai-chat-input').inputValue()).toBe('queued before the reload');
});

test('the key is absent from the served HTML, tiddlers.json, the saved HTML and the wiki folder', async () => {
  const html = await (await fetch(`${served.wiki.url}/`)).text();
  const json = await (await fetch(`${served.wiki.url}/recipes/default/tiddlers.json`)).text();
  expect(html).toContain('$:/plugins/tiddlyagent/agent');
  expect(json).toContain('Chat');
  expect(html).not.toContain(SECRET);
  expect(json).not.toContain(SECRET);
  const saved = await served.page.evaluate(() => (window as any).$tw.wiki.renderTiddler('text/plain', '$:/core/save/all'));
  expect(saved.length).toBeGreaterThan(100000);
  expect(saved).not.toContain(SECRET);
  for (const file of fs.readdirSync(path.join(served.wiki.dir, 'tiddlers'))) {
    expect(fs.readFileSync(path.join(served.wiki.dir, 'tiddlers', file), 'utf8')).not.toContain(SECRET);
  }
  expect(served.errors).toEqual([]);
});
