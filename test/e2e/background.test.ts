// Background work in real browsers. Server edition: the model sets an alarm, the chat gets a
// clock badge, the background panel lists the alarm (running on the server), and Cancel
// removes it on the server too. Browser-only wiki: an alarm fires in the open page, and the
// woken turn shows what sent it.
import type { BrowserContext, Page } from 'playwright-core';
import { connectBrowser, navigate, openPageIn, useServedWiki, type ServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

const contexts: BrowserContext[] = [];
const errors: string[] = [];

async function openPage(wiki: ServedWiki): Promise<Page> {
  const context = await (await connectBrowser()).newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await openPageIn(context, wiki, errors);
  await navigate(page, 'Demo chat');
  return page;
}

const chatIn = (page: Page) => page.locator('.tc-ai-chat[data-chat="Demo chat"]').first();

async function send(page: Page, text: string): Promise<void> {
  await chatIn(page).locator('textarea.tc-ai-chat-input').fill(text);
  await chatIn(page).locator('textarea.tc-ai-chat-input').press('Control+Enter');
}

async function openBackgroundTab(page: Page): Promise<void> {
  await page.locator('.tc-sidebar-tabs-main .tc-tab-buttons button', { hasText: 'Background' }).click();
  await page.locator('.tc-ai-background').waitFor();
}

afterAll(async () => {
  for (const context of contexts) await context.close();
});

describe('server edition', () => {
  const served = useServedWiki({ mockDelayMs: 2, edition: 'server', open: false });

  test('the model sets an alarm; the panel lists it as running on the server; Cancel removes it there too', async () => {
    const page = await openPage(served.wiki);
    await send(page, 'mock:tool=alarm-clock {"delaySeconds":3600,"message":"Check the garden"}');
    await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
    await chatIn(page).locator('.tc-ai-message-assistant', { hasText: 'Alarm set for' }).waitFor();
    // The chat's header and its entry in the chat list carry the clock badge.
    await page.locator('.tc-tiddler-frame[data-tiddler-title="Demo chat"] .tc-ai-chat-header .tc-ai-clock-badge').waitFor();

    await openBackgroundTab(page);
    const panel = page.locator('.tc-ai-background');
    expect(await panel.locator('[data-where]').getAttribute('data-where')).toBe('server');
    const item = panel.locator('[data-schedule^="$:/ai/schedules/Demo chat/"]');
    await item.waitFor();
    expect(await item.locator('.tc-ai-bg-message').textContent()).toBe('Check the garden');
    expect(await item.locator('.tc-ai-bg-timing').textContent()).toMatch(/^once at /);
    expect(await item.locator('.tc-ai-bg-state').textContent()).toMatch(/^Next: .+Runs: 0$/);
    const title = (await item.getAttribute('data-schedule'))!;
    const onServer = async () => (await fetch(`${served.wiki.url}/recipes/default/tiddlers/${encodeURIComponent(title)}`)).status;
    expect(await onServer()).toBe(200);
    await page.screenshot({ path: 'output/e2e/background-panel.png' });

    await item.locator('button', { hasText: 'Cancel' }).click();
    await item.waitFor({ state: 'detached' });
    await page.waitForFunction(() => !document.querySelector('.tc-tiddler-frame[data-tiddler-title="Demo chat"] .tc-ai-chat-header .tc-ai-clock-badge'));
    for (let i = 0; i < 100 && (await onServer()) !== 404; i++) await page.waitForTimeout(100);
    expect(await onServer()).toBe(404);
    expect(errors).toEqual([]);
  });

  test("a sub-agent's approval shows in the parent's chat; allowing it there lets the child and then the parent finish; the card links to the child chat", async () => {
    const page = await openPage(served.wiki);
    const childTask = 'mock:tool=wiki-create {"title":"From the child","text":"child wrote this"}';
    await send(page, `mock:tool=spawn-agent ${JSON.stringify({ task: childTask })}`);
    const card = chatIn(page).locator('.tc-ai-subagents .tc-ai-subagent-card');
    await card.waitFor();
    expect(await chatIn(page).locator('.tc-ai-subagent-head').textContent()).toMatch(/Sub-agent.*Sub-task: mock:tool=wiki-create.*Waiting for you/);
    expect(await card.textContent()).toContain('From the child');
    await page.screenshot({ path: 'output/e2e/sub-agent-approval.png' });
    await card.locator('button', { hasText: /once/i }).first().click();
    await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
    await chatIn(page).locator('.tc-ai-subagents').waitFor({ state: 'hidden' });
    expect((await fetch(`${served.wiki.url}/recipes/default/tiddlers/From%20the%20child`)).status).toBe(200);
    const result = chatIn(page).locator('.tc-ai-message-tool[data-tool="spawn-agent"]').last();
    expect(await result.getAttribute('data-tool-status')).toBe('ok');
    await result.locator('.tc-ai-chat-link').click();
    const child = page.locator('.tc-tiddler-frame[data-tiddler-title^="$:/ai/sub-agents/Demo chat/"] .tc-ai-chat');
    await child.waitFor();
    expect(await child.getAttribute('data-status')).toBe('completed');
    expect(await child.locator('.tc-ai-message-tool[data-tool="wiki-create"]').getAttribute('data-tool-status')).toBe('ok');
    expect(errors).toEqual([]);
  });
});

describe('browser-only wiki', () => {
  const served = useServedWiki({ mockDelayMs: 2, edition: 'browser', open: false });

  test('an alarm fires in the open page, as a turn marked as scheduled; the panel says schedules run only while a page is open', async () => {
    const page = await openPage(served.wiki);
    await send(page, 'mock:tool=alarm-clock {"delaySeconds":1,"message":"Wake in the page"}');
    // The woken turn's message is the schedule's, marked with what sent it (the first message only quotes it).
    const woken = chatIn(page).locator('.tc-ai-message-user:has(.tc-ai-message-source)');
    await woken.waitFor();
    expect(await woken.locator('.tc-ai-message-source').textContent()).toContain('Scheduled');
    expect(await woken.locator('.tc-ai-message-body').textContent()).toBe('Wake in the page');
    await page.waitForFunction(() => {
      const chat = document.querySelector('.tc-ai-chat[data-chat="Demo chat"]');
      return chat?.getAttribute('data-status') === 'completed' && chat.querySelectorAll('.tc-ai-message-assistant[data-message]').length >= 2;
    });
    await openBackgroundTab(page);
    expect(await page.locator('.tc-ai-background [data-where]').getAttribute('data-where')).toBe('page');
    // The alarm did its work and is gone.
    expect(await page.locator('.tc-ai-background [data-schedule]').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  test('a scheduled run that asks a question: the panel shows what it waits for and until when; unanswered, it ends with a line saying so', async () => {
    const page = await openPage(served.wiki);
    const addSchedule = (title: string) =>
      page.evaluate((t) => {
        const tw = (window as any).$tw;
        tw.wiki.addTiddler({
          title: t,
          tags: '$:/tags/AI/Schedule',
          'agent-chat': 'Demo chat',
          'schedule-kind': 'at',
          'schedule-at': new Date(Date.now() + 500).toISOString(),
          'schedule-message': 'mock:tool=ask-question {"question":"Which colour for the digest?"}',
        });
      }, title);
    await addSchedule('E2E waiting schedule');
    await openBackgroundTab(page);
    const waiting = page.locator('.tc-ai-background [data-waiting="Demo chat"]');
    await waiting.waitFor({ timeout: 30_000 });
    expect(await waiting.locator('.tc-ai-bg-waits').textContent()).toContain('Asks: Which colour for the digest?');
    // A run no user started waits 600 s by default: the panel says until when.
    expect(await waiting.locator('.tc-ai-bg-until').textContent()).toMatch(/^Waits until \S.*\d{2}:\d{2}$/);
    await chatIn(page).locator('.tc-ai-question').waitFor();
    await page.screenshot({ path: 'output/e2e/background-waiting.png' });
    await chatIn(page).locator('.tc-ai-question-cancel').click();
    await waiting.waitFor({ state: 'detached' });

    // With a short unattended timeout, nobody answering ends the run with a line saying what it waited for.
    await page.evaluate(() => {
      const tw = (window as any).$tw;
      const agent = tw.wiki.getTiddler(tw.wiki.getTiddler('Demo chat').fields.agent);
      tw.wiki.addTiddler(new tw.Tiddler(agent, { 'agent-unattended-timeout': '1' }));
    });
    await addSchedule('E2E unanswered schedule');
    const line = chatIn(page).locator('.tc-ai-message-error [data-error-kind="unanswered"]');
    await line.waitFor({ timeout: 30_000 });
    expect(await line.locator('.tc-ai-error-headline').textContent()).toBe('Nobody answered in time, so this run ended');
    expect(await line.locator('.tc-ai-error-detail').textContent()).toContain('the question "Which colour for the digest?"');
    await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'failed');
    expect(await page.locator('.tc-ai-background [data-waiting]').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
