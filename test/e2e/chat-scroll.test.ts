// The chat's list in a real browser: a long chat opens at its end with its newest messages
// and fills in the rest of its window; a streaming reply stays in view while the user is at
// the end, stops pulling the view once they scroll up, and is followed again when they
// scroll back down; no spinner animates while the reply streams.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { navigate, openWiki, serveDemoWiki, type ServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const CHAT = 'Long chat';
let wiki: ServedWiki;
let context: BrowserContext;
let page: Page;
let errors: string[];
let list: Locator;

beforeAll(async () => {
  wiki = await serveDemoWiki({ mockDelayMs: 5 });
  ({ context, page, errors } = await openWiki(wiki));
  await page.evaluate((chat) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({ title: chat, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed', text: '' });
    for (let seq = 0; seq < 120; seq++) {
      const role = seq % 2 ? 'assistant' : 'user';
      tw.wiki.addTiddler({
        title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`,
        'agent-chat': chat,
        'agent-seq': String(seq),
        role,
        type: role === 'assistant' ? 'text/vnd.tiddlyagent.reply' : 'text/plain',
        text: role === 'assistant' ? `''Reply ${seq}.''\n\n* one point\n* another point\n\nAnd a closing line.` : `Question ${seq}?`,
      });
    }
  }, CHAT);
  list = page.locator(`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-chat-messages`);
});

afterAll(async () => {
  await context?.close();
  await wiki?.stop();
});

/** Pixels between the bottom of the list's view and the end of its content. */
const fromEnd = () => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
const scrollTop = () => list.evaluate((el) => el.scrollTop);
const streamed = () => page.evaluate(() => document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0);

test('a long chat opens at its end and then fills in the rest of its window', async () => {
  await navigate(page, CHAT);
  await list.waitFor();
  await page.waitForFunction((chat) => document.querySelectorAll(`.tc-ai-chat[data-chat="${chat}"] .tc-ai-message[data-message]`).length === 50, CHAT);
  const titles = await list.locator('.tc-ai-message[data-message]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-message')));
  expect(titles[0]).toBe(`$:/ai/messages/${CHAT}/000070`);
  expect(titles[49]).toBe(`$:/ai/messages/${CHAT}/000119`);
  await page.waitForFunction(() => {
    const el = document.querySelector('.tc-ai-chat-messages')!;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  });
  expect(await list.locator('.tc-ai-chat-older').textContent()).toContain('70');
});

test('a streaming reply is followed until the user scrolls up, and again once they are back at the end', async () => {
  const words = Array.from({ length: 40 }, (_, p) => `Paragraph ${p} with ''some'' words that keep the reply streaming for a while.`).join('\n\n');
  wiki.mock.queue({ text: words, delayMs: 12 });
  const input = page.locator(`.tc-ai-chat[data-chat="${CHAT}"] textarea.tc-ai-chat-input`);
  await input.fill('Write a long reply');
  await input.press('Control+Enter');
  await page.locator('.tc-ai-message-streaming').waitFor();
  await page.waitForFunction(() => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > 300);
  // The streaming text is the sign of life: the status line's spinner is not animating meanwhile.
  expect(await page.locator(`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-chat-status`).evaluate((el) => getComputedStyle(el, '::before').display)).toBe('none');
  // At the end: the growing reply stays in view.
  await page.waitForFunction(() => {
    const el = document.querySelector('.tc-ai-chat-messages')!;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  });
  // The user scrolls up to read: the reply keeps growing below, the view stays where they put it.
  await list.hover();
  await page.mouse.wheel(0, -800);
  await page.waitForFunction(() => {
    const el = document.querySelector('.tc-ai-chat-messages')!;
    return el.scrollHeight - el.scrollTop - el.clientHeight > 400;
  });
  await page.waitForTimeout(150);
  const top = await scrollTop();
  const before = await streamed();
  await page.waitForFunction((n) => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > n + 200, before);
  expect(Math.abs((await scrollTop()) - top)).toBeLessThan(2);
  expect(await fromEnd()).toBeGreaterThan(400);
  // Back at the end: followed again.
  await page.mouse.wheel(0, 100_000);
  await page.waitForFunction(() => {
    const el = document.querySelector('.tc-ai-chat-messages')!;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  });
  const again = await streamed();
  await page.waitForFunction((n) => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > n + 200, again);
  expect(await fromEnd()).toBeLessThan(40);
  await page.waitForFunction((chat) => document.querySelector(`.tc-ai-chat[data-chat="${chat}"]`)?.getAttribute('data-status') === 'completed', CHAT);
  expect(errors).toEqual([]);
});
