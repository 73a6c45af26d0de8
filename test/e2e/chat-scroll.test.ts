// A long chat in a real browser, with the page as its one scroll container: opened from a
// link, it shows its newest messages and its composer and fills in the rest of its window (the
// list never scrolls inside itself); "Show older" adds older messages above without moving
// the message the reader was at; a streaming reply stays in view while the user is at the
// chat's end, stops pulling the window once they scroll up, and is followed again when they
// scroll back down; no spinner animates while the reply streams.
import type { Locator } from 'playwright-core';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const CHAT = 'Long chat';
let list: Locator;

const served = useServedWiki({ mockDelayMs: 5 });

beforeAll(async () => {
  await served.page.evaluate((chat) => {
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
  list = served.page.locator(`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-chat-messages`);
});

/** Pixels between the bottom of the window and the chat's end (its composer). */
const fromEnd = () =>
  served.page.evaluate((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)!.getBoundingClientRect().bottom - window.innerHeight, CHAT);
const atEnd = () =>
  served.page.waitForFunction(
    (c) => Math.abs(document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)!.getBoundingClientRect().bottom - window.innerHeight) < 40,
    CHAT,
  );
const scrollY = () => served.page.evaluate(() => window.scrollY);
const streamed = () => served.page.evaluate(() => document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0);

test('a long chat opened from a link shows its newest messages and its composer, then fills in the rest of its window', async () => {
  await navigate(served.page, CHAT);
  await list.waitFor();
  await served.page.waitForFunction((chat) => document.querySelectorAll(`.tc-ai-chat[data-chat="${chat}"] .tc-ai-message[data-message]`).length === 50, CHAT);
  const titles = await list.locator('.tc-ai-message[data-message]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-message')));
  expect(titles[0]).toBe(`$:/ai/messages/${CHAT}/000070`);
  expect(titles[49]).toBe(`$:/ai/messages/${CHAT}/000119`);
  await atEnd();
  expect(
    await served.page
      .locator(`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-message[data-message$="/000119"]`)
      .evaluate((e) => e.getBoundingClientRect().top < window.innerHeight),
  ).toBe(true);
  // The list holds all fifty without a scroll box of its own: the page scrolls.
  expect(await list.evaluate((e) => ({ overflow: getComputedStyle(e).overflowY, fits: e.scrollHeight <= e.clientHeight + 1 }))).toEqual({
    overflow: 'visible',
    fits: true,
  });
  expect(await list.locator('.tc-ai-chat-older').textContent()).toContain('70');
});

test('Show older adds older messages above and keeps the reader at the message they were at', async () => {
  const older = list.locator('.tc-ai-chat-older');
  // The reader scrolls up to the top of the window.
  const first = list.locator('.tc-ai-message[data-message$="/000070"]');
  await served.page.mouse.move(600, 400);
  while (await first.evaluate((e) => e.getBoundingClientRect().top < 80)) await served.page.mouse.wheel(0, -2000);
  await served.page.waitForTimeout(100);
  const before = await first.evaluate((e) => e.getBoundingClientRect().top);
  await older.click();
  await served.page.waitForFunction((chat) => document.querySelectorAll(`.tc-ai-chat[data-chat="${chat}"] .tc-ai-message[data-message]`).length === 100, CHAT);
  expect(Math.abs((await first.evaluate((e) => e.getBoundingClientRect().top)) - before)).toBeLessThan(3);
  expect(await older.textContent()).toContain('20');
  // It stays there: nothing pulls the window back to the end.
  await served.page.waitForTimeout(300);
  expect(Math.abs((await first.evaluate((e) => e.getBoundingClientRect().top)) - before)).toBeLessThan(3);
});

test('a streaming reply is followed until the user scrolls up, and again once they are back at the end', async () => {
  const words = Array.from({ length: 40 }, (_, p) => `Paragraph ${p} with ''some'' words that keep the reply streaming for a while.`).join('\n\n');
  // The reply pauses three times (the mock's pauseAt, in words) while the test looks, so no
  // check depends on how fast a loaded machine streams.
  const resumes: (() => void)[] = [];
  const pauses = [0, 1, 2].map(() => new Promise<void>((r) => resumes.push(r)));
  served.wiki.mock.queue({ text: words, delayMs: 2, pauseAt: [60, 160, 260], resume: pauses });
  const input = served.page.locator(`.tc-ai-chat[data-chat="${CHAT}"] textarea.tc-ai-chat-input`);
  await input.fill('Write a long reply');
  await input.press('Control+Enter');
  await served.page.locator('.tc-ai-message-streaming').waitFor();
  await served.page.waitForFunction(() => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > 300);
  // The streaming text is the sign of life: the status line's spinner is not animating meanwhile.
  expect(await served.page.locator(`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-chat-status`).evaluate((el) => getComputedStyle(el, '::before').display)).toBe(
    'none',
  );
  // At the end: the growing reply and the composer stay in view.
  await atEnd();
  // The user scrolls up to read: the reply keeps growing below, the window stays where they put it.
  await served.page.mouse.move(600, 400);
  await served.page.mouse.wheel(0, -800);
  await served.page.waitForFunction(
    () => document.querySelector('.tc-ai-chat[data-chat="Long chat"]')!.getBoundingClientRect().bottom - window.innerHeight > 400,
  );
  // Wherever the wheel left the window, it has come to rest (two frames without a change).
  await served.page.waitForFunction(
    () =>
      new Promise((resolve) => {
        const y = window.scrollY;
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.scrollY === y)));
      }),
  );
  const top = await scrollY();
  const before = await streamed();
  resumes[0]!();
  await served.page.waitForFunction((n) => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > n + 200, before);
  expect(Math.abs((await scrollY()) - top)).toBeLessThan(2);
  expect(await fromEnd()).toBeGreaterThan(400);
  // Back at the chat's end: followed again.
  await served.page.mouse.wheel(0, (await fromEnd()) + 100);
  await atEnd();
  const again = await streamed();
  resumes[1]!();
  await served.page.waitForFunction((n) => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > n + 200, again);
  await atEnd();
  resumes[2]!();
  await served.page.waitForFunction((chat) => document.querySelector(`.tc-ai-chat[data-chat="${chat}"]`)?.getAttribute('data-status') === 'completed', CHAT);
  expect(served.errors).toEqual([]);
});
