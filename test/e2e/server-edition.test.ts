// The server edition in real browsers: the demo wiki served with the server plugin, two
// browser contexts (two devices) on it. Turns run on the server; both pages watch the same
// chat stream live, a page reloaded mid-reply finds the turn still running, an approval card
// shown on one page is answered on the other, and no page ever writes a message tiddler.
import type { BrowserContext, Page } from 'playwright-core';
import { connectBrowser, navigate, serveDemoWiki, type ServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

let wiki: ServedWiki;
const contexts: BrowserContext[] = [];
const errors: string[] = [];
/** PUT/DELETE requests the pages sent for agent tiddlers (there must be none: the server writes them). */
const echoWrites: string[] = [];

async function openPage(): Promise<Page> {
  const context = await (await connectBrowser()).newContext({ viewport: { width: 1100, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => {
    const url = decodeURIComponent(r.url());
    if ((r.method() === 'PUT' || r.method() === 'DELETE') && /\/recipes\/default\/tiddlers\/\$:\/ai\//.test(url)) echoWrites.push(`${r.method()} ${url}`);
  });
  await page.goto(`${wiki.url}/`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  return page;
}

const chatIn = (page: Page) => page.locator('.tc-ai-chat[data-chat="Demo chat"]').first();

async function send(page: Page, text: string): Promise<void> {
  await chatIn(page).locator('textarea.tc-ai-chat-input').fill(text);
  await chatIn(page).locator('textarea.tc-ai-chat-input').press('Control+Enter');
}

const streamedLength = (page: Page) =>
  page.evaluate(() => (document.querySelector('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-streaming')?.textContent ?? '').length);

beforeAll(async () => {
  wiki = await serveDemoWiki({ mockDelayMs: 5, edition: 'server' });
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await wiki?.stop();
});

test('two pages watch one chat stream; a reload mid-reply finds the turn still running; both end with the same saved reply', async () => {
  const [a, b] = [await openPage(), await openPage()];
  for (const page of [a, b]) await navigate(page, 'Demo chat');
  const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
  // The reply pauses halfway until the reloaded page shows it streaming (a reload takes as long as it takes).
  let resume!: () => void;
  wiki.mock.queue({ text: `''Shared'' reply: ${words}`, delayMs: 15, pauseAt: 60, resume: new Promise<void>((r) => (resume = r)) });
  await send(a, 'Tell both of us');
  // The page that did not send sees the user's message and the reply stream, live.
  await chatIn(b).locator('.tc-ai-message-user').filter({ hasText: 'Tell both of us' }).waitFor();
  await chatIn(b).locator('.tc-ai-message-streaming').waitFor();
  await b.waitForFunction(() => (document.querySelector('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-streaming')?.textContent ?? '').length > 60);
  expect(await chatIn(b).getAttribute('data-status')).toBe('working');
  expect(await streamedLength(a)).toBeGreaterThan(0);
  // The page that sent reloads mid-reply: the turn goes on on the server and the page picks the stream up again.
  await a.reload({ waitUntil: 'domcontentloaded' });
  await a.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  await navigate(a, 'Demo chat');
  await chatIn(a).locator('.tc-ai-message-streaming').waitFor();
  expect(await chatIn(a).getAttribute('data-status')).toBe('working');
  resume();
  for (const page of [a, b])
    await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  const replyA = await chatIn(a).locator('.tc-ai-message-assistant[data-message]').last().textContent();
  const replyB = await chatIn(b).locator('.tc-ai-message-assistant[data-message]').last().textContent();
  expect(replyA).toContain('word119');
  expect(replyA).toBe(replyB);
  // One user message and one reply, not marked interrupted by the reload.
  const roles = await b.evaluate(() =>
    (window as any).$tw.wiki.filterTiddlers('[field:agent-chat[Demo chat]]').map((t: string) => (window as any).$tw.wiki.getTiddler(t).fields.role),
  );
  expect(roles).toEqual(['user', 'assistant']);
  await b.screenshot({ path: 'output/e2e/server-edition.png' });
  expect(echoWrites).toEqual([]);
  expect(errors).toEqual([]);
});

test('an approval card shown on both pages is answered on one, and the tool runs on the server', async () => {
  const [a, b] = [await openPage(), await openPage()];
  for (const page of [a, b]) await navigate(page, 'Demo chat');
  await send(a, 'mock:tool=wiki-create {"title":"Server note","text":"Written on the server after approval"}');
  for (const page of [a, b]) await chatIn(page).locator('.tc-ai-approval').waitFor();
  expect(await chatIn(b).getAttribute('data-status')).toBe('input-required');
  await chatIn(b).locator('[data-ai-action="approve-once"]').click();
  for (const page of [a, b])
    await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  // The note the tool wrote reached both pages at once (pushed, not polled).
  for (const page of [a, b]) {
    expect(await page.evaluate(() => (window as any).$tw.wiki.getTiddlerText('Server note'))).toBe('Written on the server after approval');
    expect(await chatIn(page).locator('.tc-ai-approval').count()).toBe(0);
  }
  expect(echoWrites).toEqual([]);
  // Neither page compiled the engine (lib.js): a page of the server edition runs no turn, and a
  // chat, its card and its diff need only the page's library (page.js).
  for (const page of [a, b]) {
    expect(
      await page.evaluate(() =>
        Object.entries((window as any).$tw.modules.titles)
          .filter(([t, m]: [string, any]) => t.startsWith('$:/plugins/tiddlyagent/') && m.exports !== undefined)
          .map(([t]) => t),
      ),
    ).toEqual(expect.arrayContaining(['$:/plugins/tiddlyagent/agent/page.js', '$:/plugins/tiddlyagent/agent/ui/chat-widget.js']));
    expect(await page.evaluate(() => (window as any).$tw.modules.titles['$:/plugins/tiddlyagent/agent/lib.js']?.exports)).toBeUndefined();
  }
  expect(errors).toEqual([]);
});

test('the settings tab says whether the server has each key, and shows no password field', async () => {
  const page = await openPage();
  await navigate(page, '$:/plugins/tiddlyagent/agent/settings');
  await page.locator('select.tc-ai-settings-provider-pick').selectOption('$:/plugins/tiddlyagent/agent/providers/openai');
  const key = page.locator('.tc-ai-settings-server-key').first();
  await key.waitFor();
  expect(await key.textContent()).toContain('Not set on the server: set the environment variable openai-api-key');
  expect(await page.locator('.tc-ai-settings input[type="password"]').count()).toBe(0);
  expect(errors).toEqual([]);
});

test('New chat, then a message at once: the chat reaches the server first, the reply comes back, and the chat takes its automatic title', async () => {
  const page = await openPage();
  await page.locator('button[data-ai-action="new-chat"]').first().click();
  const chat = page.locator('.tc-ai-chat[data-chat="Chat"]');
  await chat.waitFor();
  await chat.locator('textarea.tc-ai-chat-input').fill('First words in a new chat');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  // After its first turn the server names the chat (the mock's title: "Chat about" and the first words); the page follows it.
  const titled = page.locator('.tc-ai-chat[data-chat="Chat about First words in"]');
  await titled.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'First words in a new chat' }).waitFor();
  expect(await titled.getAttribute('data-status')).toBe('completed');
  expect(await titled.locator('.tc-ai-chat-status').textContent()).not.toMatch(/does not exist/);
  expect(await page.locator('.tc-ai-chat[data-chat="Chat"]').count()).toBe(0);
  expect(echoWrites).toEqual([]);
  expect(errors).toEqual([]);
});
