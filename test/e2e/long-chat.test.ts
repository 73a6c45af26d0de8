// A long chat in a real browser, server edition: "Show prompt" shows the next request with its
// sections and tokens, as plain text (a reply's wikitext is not rendered there); "Compact now"
// summarizes the older turns on the server, the chat shows them collapsed as "compacted" with
// the summary, and the preview then carries the summary instead of them. A reload keeps it all.
import type { BrowserContext, Page } from 'playwright-core';
import { connectBrowser, navigate, openPageIn, serveDemoWiki, type ServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

let wiki: ServedWiki;
let context: BrowserContext;
const errors: string[] = [];

beforeAll(async () => {
  wiki = await serveDemoWiki({ mockDelayMs: 1, edition: 'server' });
  context = await (await connectBrowser()).newContext({ viewport: { width: 1200, height: 900 } });
});
afterAll(async () => {
  await context?.close();
  await wiki?.stop();
});

async function openChat(): Promise<Page> {
  const page = await openPageIn(context, wiki, errors);
  await navigate(page, 'Demo chat');
  return page;
}
const chatIn = (page: Page) => page.locator('.tc-ai-chat[data-chat="Demo chat"]').first();
const messageCount = (page: Page) =>
  page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[field:agent-chat[Demo chat]has[agent-seq]]').length as number);

async function send(page: Page, text: string): Promise<void> {
  const before = await messageCount(page);
  await chatIn(page).locator('textarea.tc-ai-chat-input').fill(text);
  await chatIn(page).locator('textarea.tc-ai-chat-input').press('Control+Enter');
  // The user's message and the reply have reached this page.
  await page.waitForFunction((n) => (window as any).$tw.wiki.filterTiddlers('[field:agent-chat[Demo chat]has[agent-seq]]').length >= n + 2, before);
  await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
}

test('Show prompt, Compact now, and a reload', async () => {
  const page = await openChat();
  for (const text of ["First turn about <<now>> and ''bold''", 'Second turn', 'Third turn', 'Fourth turn']) await send(page, text);
  const chat = chatIn(page);

  await chat.locator('.tc-ai-prompt-show').click();
  const preview = chat.locator('.tc-ai-prompt-preview:not([hidden])');
  await preview.waitFor();
  expect(await preview.locator('.tc-ai-prompt-head').textContent()).toMatch(/Next request to mock-model: about [\d,]+ of [\d,]+ tokens/);
  const sections = await preview.locator('.tc-ai-prompt-section').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')));
  expect(sections).toEqual(expect.arrayContaining(['system', 'history', 'tools']));
  // Plain text: the user's wikitext is shown as written, not rendered.
  expect(await preview.locator('.tc-ai-prompt-section[data-section="history"]').textContent()).toContain("user: First turn about <<now>> and ''bold''");

  await chat.locator('.tc-ai-prompt-compact').click();
  await chat.locator('.tc-ai-message-summary').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-compacted').length === 4);
  // The preview was asked again: the summary stands where the first two turns were.
  await page.waitForFunction(() =>
    document.querySelector('.tc-ai-prompt-section[data-section="history"]')?.textContent?.includes('Summary of the earlier conversation'),
  );
  expect(await preview.locator('.tc-ai-prompt-section[data-section="history"]').textContent()).not.toContain('First turn');
  // A compacted message opens on a click.
  const first = chat.locator('.tc-ai-message-compacted').first();
  expect(await first.locator('.tc-ai-message-body').isVisible()).toBe(false);
  await first.locator('.tc-ai-message-compacted-badge').click();
  expect(await first.locator('.tc-ai-message-body').isVisible()).toBe(true);

  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  await navigate(page, 'Demo chat');
  await page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-compacted').length === 4);
  expect(await chatIn(page).locator('.tc-ai-message-summary').count()).toBe(1);
  expect(await messageCount(page)).toBe(9);
  expect(errors).toEqual([]);
});
