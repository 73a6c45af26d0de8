// The small things of issue 24, in a real browser, as a user meets them: the action links under
// messages and in the footer share one readable size and never wrap mid-label; Export is a small
// menu a keyboard can use; every way to make a new chat puts the cursor in its composer; the
// context meter counts no history once every turn is deleted; and the Chats tab's search finds
// words that live only in a parked version of a chat.
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

const CHAT = 'Small things';

const chat = (title = CHAT) => served.page.locator(`.tc-ai-chat[data-chat="${title}"]`);
const settled = (want: string, title = CHAT) =>
  served.page.waitForFunction(([c, s]) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === s, [title, want]);
const focusedChat = () =>
  served.page.evaluate(() =>
    document.activeElement?.matches('textarea.tc-ai-chat-input') ? document.activeElement.closest('.tc-ai-chat')?.getAttribute('data-chat') : null,
  );
const chatCount = () => served.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[has[agent]]').length as number);

async function send(text: string, title = CHAT): Promise<void> {
  await chat(title).locator('textarea.tc-ai-chat-input').fill(text);
  await chat(title).locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await served.page.waitForFunction(
    ([c, t]) => [...document.querySelectorAll(`.tc-ai-chat[data-chat="${c}"] .tc-ai-message-user`)].some((m) => m.textContent?.includes(t)),
    [title, text] as const,
  );
  await settled('completed', title);
}

const served = useServedWiki({ mockDelayMs: 1 });

beforeAll(async () => {
  await served.page.evaluate(
    (c) => (window as any).$tw.wiki.addTiddler({ title: c, agent: '$:/demo/agents/offline-demo', 'agent-status': 'idle', text: '' }),
    CHAT,
  );
  await navigate(served.page, CHAT);
  await chat().waitFor();
  await send('First question about bees');
  await send('Second question about wasps');
});

/** Every labelled action link of the chat: its font size in px and the lines its label takes. */
function actionLinks(): Promise<{ label: string; size: number; lines: number }[]> {
  return chat().evaluate((root) =>
    [...root.querySelectorAll('.tc-ai-turn-actions button, .tc-ai-message-actions button, .tc-ai-chat-footer button')]
      .filter((b) => (b as HTMLElement).checkVisibility() && !b.closest('.tc-ai-branch-switch') && !b.closest('.tc-ai-export-menu'))
      .map((b) => {
        const range = document.createRange();
        range.selectNodeContents(b);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return { label: (b.textContent ?? '').trim(), size: parseFloat(getComputedStyle(b).fontSize), lines: tops.size };
      }),
  );
}

test('the action links share one readable size and never wrap mid-label, on a desktop and at 360 px', async () => {
  for (const width of [1280, 360]) {
    await served.page.setViewportSize({ width, height: 800 });
    await served.page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => resolve(true))));
    const links = await actionLinks();
    const labels = links.map((l) => l.label);
    for (const label of ['Retry', 'Delete turn', 'Copy reply', 'Edit', 'Copy message', 'Show prompt', 'Compact now', 'Copy chat', 'Export'])
      expect(labels).toContain(label);
    const sizes = [...new Set(links.map((l) => l.size))];
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toBeGreaterThanOrEqual(13);
    expect(links.filter((l) => l.lines !== 1)).toEqual([]);
  }
  await served.page.setViewportSize({ width: 1280, height: 900 });
});

test('Export is a small menu that a keyboard can open, move through, close and choose from', async () => {
  const toggle = chat().locator('button.tc-ai-export-toggle');
  const menu = chat().locator('.tc-ai-export-menu');
  expect(await toggle.getAttribute('aria-haspopup')).toBe('menu');
  expect(await menu.getAttribute('role')).toBe('menu');
  expect(await menu.isVisible()).toBe(false);
  const focused = () => served.page.evaluate(() => document.activeElement?.getAttribute('data-ai-export') ?? document.activeElement?.className ?? '');

  // Enter opens it with the first choice focused; the arrows, Home and End move; Escape closes it and goes back to the button.
  await toggle.focus();
  await served.page.keyboard.press('Enter');
  expect(await menu.isVisible()).toBe(true);
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  expect(await menu.locator('[role="menuitem"]').count()).toBe(3);
  expect(await focused()).toBe('json');
  await served.page.keyboard.press('ArrowDown');
  expect(await focused()).toBe('markdown');
  await served.page.keyboard.press('End');
  expect(await focused()).toBe('wikitext');
  await served.page.keyboard.press('ArrowDown');
  expect(await focused()).toBe('json');
  await served.page.keyboard.press('ArrowUp');
  expect(await focused()).toBe('wikitext');
  await served.page.keyboard.press('Home');
  expect(await focused()).toBe('json');
  await served.page.keyboard.press('Escape');
  expect(await menu.isVisible()).toBe(false);
  expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  expect(await focused()).toContain('tc-ai-export-toggle');
  // The chat's Escape (stop) did not fire: nothing ran.
  expect(await chat().getAttribute('data-status')).toBe('completed');

  // A click elsewhere closes it.
  await toggle.click();
  expect(await menu.isVisible()).toBe(true);
  await chat().locator('.tc-ai-message-user').first().click();
  expect(await menu.isVisible()).toBe(false);

  // ArrowUp on the button opens it at the last choice; Enter chooses it: the menu closes and the transcript opens.
  await toggle.focus();
  await served.page.keyboard.press('ArrowUp');
  expect(await focused()).toBe('wikitext');
  await served.page.keyboard.press('Enter');
  expect(await menu.isVisible()).toBe(false);
  await served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${CHAT} (transcript)"]`).waitFor();
  expect(await chat().locator('.tc-ai-export-result').textContent()).toContain(`${CHAT} (transcript)`);
  expect(served.errors).toEqual([]);
});

test('every way to make a new chat puts the cursor in its composer', async () => {
  await served.page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: 'Bee notes', text: 'Bees like clover.' }));
  const newest = () => served.page.evaluate(() => (window as any).$tw.wiki.getTiddler('$:/HistoryList').fields['current-tiddler'] as string);
  const ways: [string, () => Promise<void>][] = [
    ['the New chat page control', () => served.page.locator('.tc-page-controls button[data-ai-action="new-chat"]').click()],
    [
      'New chat in the Chats tab',
      async () => {
        await served.page.locator('.tc-sidebar-tabs-main > .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/chats"]').click();
        await served.page.locator('.tc-ai-sidebar-chats button[data-ai-action="new-chat"]').click();
      },
    ],
    [
      'Talk with AI in a tiddler toolbar',
      async () => {
        await navigate(served.page, 'Bee notes');
        await served.page.locator('[data-tiddler-title="Bee notes"] button[data-ai-action="talk-with-ai"]').click();
      },
    ],
    [
      'the Alt+Shift+N shortcut',
      async () => {
        await served.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        await served.page.keyboard.press('Alt+Shift+N');
      },
    ],
  ];
  for (const [way, act] of ways) {
    const before = await chatCount();
    await act();
    await served.page.waitForFunction((n) => (window as any).$tw.wiki.filterTiddlers('[has[agent]]').length === n + 1, before);
    const title = await newest();
    await chat(title).waitFor();
    await served.page.waitForFunction(
      (t) => document.activeElement?.matches('textarea.tc-ai-chat-input') && document.activeElement.closest('.tc-ai-chat')?.getAttribute('data-chat') === t,
      title,
    );
    expect({ way, focused: await focusedChat() }).toEqual({ way, focused: title });
    // The composer is where the user can see it.
    expect(
      await chat(title)
        .locator('textarea.tc-ai-chat-input')
        .evaluate((e) => e.getBoundingClientRect().bottom <= window.innerHeight && e.getBoundingClientRect().top >= 0),
    ).toBe(true);
  }
  expect(served.errors).toEqual([]);
});

test('after every turn is deleted, the context meter counts no history', async () => {
  await navigate(served.page, CHAT);
  const meter = chat().locator('.tc-ai-chat-meter');
  const history = async () => Number(/history ([\d,]+)/.exec((await meter.textContent()) ?? '')?.[1]?.replace(/,/g, ''));
  expect(await history()).toBeGreaterThan(0);
  while ((await chat().locator('button[data-ai-action="delete-turn"]').count()) > 0) {
    const turns = await chat().locator('button[data-ai-action="delete-turn"]').count();
    await chat().locator('button[data-ai-action="delete-turn"]').last().click();
    await served.page.waitForFunction(([c, n]) => document.querySelectorAll(`.tc-ai-chat[data-chat="${c}"] button[data-ai-action="delete-turn"]`).length < n, [
      CHAT,
      turns,
    ] as const);
  }
  expect(await chat().locator('.tc-ai-message[data-message]').count()).toBe(0);
  await served.page.waitForFunction(
    (c) => / history 0\)/.test(document.querySelector(`.tc-ai-chat[data-chat="${c}"] .tc-ai-chat-meter`)?.textContent ?? ''),
    CHAT,
  );
  const text = (await meter.textContent()) ?? '';
  const [, total, , system, tools] = /Context: ([\d,]+) \/ ([\d,]+) tokens \(system ([\d,]+) · tools ([\d,]+) · history 0\)/
    .exec(text)!
    .map((n) => Number(String(n).replace(/,/g, '')));
  expect(total).toBe(system! + tools!);
  // The chat keeps it: a page opening the chat shows the same.
  expect(JSON.parse(await served.page.evaluate((c) => (window as any).$tw.wiki.getTiddler(c).fields['agent-context-usage'], CHAT))).toMatchObject({
    history: 0,
  });
  expect(served.errors).toEqual([]);
});

test("the Chats tab's search finds words that live only in a parked version of a chat", async () => {
  const title = 'Branchy chat';
  await served.page.evaluate(
    (c) => (window as any).$tw.wiki.addTiddler({ title: c, agent: '$:/demo/agents/offline-demo', 'agent-status': 'idle', text: '' }),
    title,
  );
  await navigate(served.page, title);
  await chat(title).waitFor();
  await send('Tell me about marmalade', title);
  // Edit and resend: the marmalade question and its answer are parked as a version.
  await chat(title).locator('button[data-ai-action="edit-message"]').click();
  await chat(title).locator('textarea.tc-ai-message-edit-box').fill('Tell me about honey');
  await chat(title).locator('button[data-ai-action="edit-send"]').click();
  await served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"] .tc-ai-branch-switch`) !== null, title);
  await settled('completed', title);
  expect((await chat(title).locator('.tc-ai-message-user').allTextContents()).some((t) => t.includes('marmalade'))).toBe(false);

  await served.page.locator('.tc-sidebar-tabs-main > .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/chats"]').click();
  const search = served.page.locator('.tc-ai-sidebar-chats input.tc-ai-chats-search');
  const listed = () => served.page.locator(`.tc-ai-sidebar-chats .tc-ai-chats-item[data-chat="${title}"]`).count();
  await search.fill('marmalade');
  await served.page.waitForFunction((c) => !!document.querySelector(`.tc-ai-sidebar-chats .tc-ai-chats-item[data-chat="${c}"]`), title);
  expect(await listed()).toBe(1);
  // The shown version's words still find it; words in neither do not.
  await search.fill('honey');
  await served.page.waitForFunction((c) => !!document.querySelector(`.tc-ai-sidebar-chats .tc-ai-chats-item[data-chat="${c}"]`), title);
  await search.fill('quince');
  await served.page.waitForFunction((c) => !document.querySelector(`.tc-ai-sidebar-chats .tc-ai-chats-item[data-chat="${c}"]`), title);
  expect(await listed()).toBe(0);
  await search.fill('');
  expect(served.errors).toEqual([]);
});
