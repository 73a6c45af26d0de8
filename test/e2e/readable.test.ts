// Readable everywhere, in a real browser: every text of a chat (a user message, a reply, an
// error, an incomplete reply, tool steps, an approval card and its Always allow question, the
// rules on tool lines, the turn's diff, Delete turn's question, the composer, the footer)
// reaches WCAG AA contrast in the default palette and in dark core palettes; the chat fits a
// 360 px wide screen; the window follows a streaming reply until the user scrolls the page
// up; every control has a name; and the chat's keyboard shortcuts work.
import { measureContrast, type Offender } from '../helpers/contrast';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const CHAT = 'Readable chat';
const SETTINGS = '$:/plugins/tiddlyagent/agent/settings';
const GUIDE = '$:/plugins/tiddlyagent/agent/getting-started';

const chat = () => served.page.locator(`.tc-ai-chat[data-chat="${CHAT}"]`);

const served = useServedWiki({ mockDelayMs: 5 });

beforeAll(async () => {
  // A turn with a reply, a turn that failed (error bubble, incomplete reply) and changed a tiddler.
  await served.page.evaluate((chat) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({ title: 'Readable note', text: 'Changed since the turn' });
    tw.wiki.addTiddler({ title: chat, agent: '$:/demo/agents/offline-demo', 'agent-status': 'failed', 'agent-allowed-tools': 'wiki-edit', text: '' });
    const messages = [
      { role: 'user', text: 'Summarize [[Readable note]] please' },
      {
        role: 'assistant',
        type: 'text/vnd.tiddlyagent.reply',
        model: 'mock-model',
        text: "''Here is a summary'' of [[Readable note]]:\n\n* one point\n* `code` and //emphasis//",
      },
      { role: 'user', text: 'And now the details' },
      { role: 'assistant', type: 'text/vnd.tiddlyagent.reply', model: 'mock-model', 'agent-finish': 'error', text: 'The details are' },
      { role: 'error', text: 'Could not connect to the provider at http://127.0.0.1:1/v1' },
      // Tool steps: a search with the tiddlers it found as links, a call that failed, a user tool.
      {
        role: 'tool',
        'tool-name': 'wiki-search',
        'tool-call-id': 'c1',
        'tool-args': '{"query":"readable"}',
        'tool-status': 'ok',
        'tool-titles': '[[Readable note]] [[Readable other]]',
        'tool-found': '2',
        text: 'Search for query "readable": 2 tiddlers found; showing 1–2.\n<tiddler-data title="Readable note" modified="">\nChanged since the turn\n</tiddler-data>',
      },
      {
        role: 'tool',
        'tool-name': 'wiki-read',
        'tool-call-id': 'c2',
        'tool-args': '{"title":"Nope"}',
        'tool-status': 'error',
        text: 'Tiddler "Nope" does not exist.',
      },
      {
        role: 'tool',
        'tool-name': 'word-count',
        'tool-call-id': 'c3',
        'tool-args': '{"title":"Readable note"}',
        'tool-status': 'ok',
        text: '"Readable note" has 4 words.',
      },
      // A turn whose writes ran by the user's rules (one still standing, one revoked since) and whose change stands.
      { role: 'user', text: 'Tidy the notes' },
      {
        role: 'tool',
        'tool-name': 'wiki-edit',
        'tool-status': 'ok',
        'tool-args': '{"title":"Readable third"}',
        text: 'Edited "Readable third".',
        'approval-rule': JSON.stringify({ kind: 'chat', tool: 'wiki-edit' }),
      },
      {
        role: 'tool',
        'tool-name': 'wiki-delete',
        'tool-status': 'ok',
        'tool-args': '{"title":"Readable gone"}',
        text: 'Deleted "Readable gone".',
        'approval-rule': JSON.stringify({ kind: 'mode', tool: 'wiki-delete', agent: '$:/demo/agents/offline-demo' }),
      },
    ];
    messages.forEach((m, seq) => {
      tw.wiki.addTiddler({ title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`, 'agent-chat': chat, 'agent-seq': String(seq), ...m });
    });
    tw.wiki.addTiddler({
      title: `$:/ai/todo/${chat}`,
      'agent-chat-todo': chat,
      type: 'text/plain',
      text: '- [x] Read the note\n- [ ] Summarize it\n  - [ ] Check the details',
    });
    tw.wiki.addTiddler({
      title: `$:/ai/journal/${chat}/000000`,
      text: JSON.stringify({
        'Readable other': {
          before: { title: 'Readable other', text: 'The first words', tags: 'Draft' },
          after: { title: 'Readable other', text: 'The second words', tags: 'Draft Done' },
        },
      }),
    });
    tw.wiki.addTiddler({
      title: `$:/ai/journal/${chat}/000008`,
      text: JSON.stringify({ 'Readable third': { before: { title: 'Readable third', text: 'Untidy' }, after: { title: 'Readable third', text: 'Tidy' } } }),
    });
    tw.wiki.addTiddler({
      title: `$:/ai/journal/${chat}/000002`,
      text: JSON.stringify({
        'Readable note': {
          before: { title: 'Readable note', text: 'Old text', tags: 'Draft' },
          after: { title: 'Readable note', text: 'New text', tags: 'Done' },
        },
      }),
    });
  }, CHAT);
  await navigate(served.page, CHAT);
  await chat().waitFor();
  // A real approval card: the mock model calls a tool that needs confirmation.
  await chat()
    .locator('textarea.tc-ai-chat-input')
    .fill('mock:tool=wiki-create {"title":"Readable created","text":"Text of the new tiddler","tags":["One","Two"]}');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat().locator('.tc-ai-approval').waitFor();
  await served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === 'input-required', CHAT);
  // Always allow's question, and Delete turn's on the turn whose change stands.
  await chat().locator('.tc-ai-approval button[data-ai-action="approve-always"]').click();
  await chat().locator('.tc-ai-always').waitFor();
  await chat().locator('[data-turn$="/000008"] button[data-ai-action="delete-turn"]').click();
  await chat().locator('.tc-ai-delete-turn').waitFor();
  // The first turn's diff, and the failed turn's rollback conflict card (the tiddler changed since).
  await chat().locator('[data-turn$="/000000"] button[data-ai-action="show-changes"]').click();
  await chat().locator('[data-turn$="/000002"] button[data-ai-action="rollback"]').click();
  await chat().locator('.tc-ai-rollback-conflict').waitFor();
  // The prompt preview, a chip in the composer.
  await chat().locator('.tc-ai-prompt-show').click();
  await chat().locator('.tc-ai-prompt-preview:not([hidden])').waitFor();
  await chat().locator('textarea.tc-ai-chat-input').fill('[[Readable no');
  await chat().locator('.tc-ai-attach-suggestion').first().click();
  await chat().locator('.tc-ai-composer-chips .tc-ai-chip').waitFor();
});

async function usePalette(palette: string): Promise<void> {
  const before = await served.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await served.page.evaluate((p) => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: p }), palette);
  if (palette !== '$:/palettes/Vanilla') await served.page.waitForFunction((b) => getComputedStyle(document.body).backgroundColor !== b, before);
}

test.each(['$:/palettes/Vanilla', '$:/palettes/SpartanNight', '$:/palettes/CupertinoDark'])('every text of the chat reaches WCAG AA in %s', async (palette) => {
  await usePalette(palette);
  // Open every fold so that what it holds is measured too.
  await chat().evaluate((root) =>
    root.querySelectorAll('details').forEach((d) => {
      (d as HTMLDetailsElement).open = true;
    }),
  );
  for (const part of [
    '.tc-ai-message-user',
    '.tc-ai-message-assistant',
    '.tc-ai-message-error',
    '.tc-ai-message-incomplete',
    '.tc-ai-approval',
    '.tc-ai-diff',
    '.tc-ai-diff-where',
    '.tc-ai-rollback-conflict',
    '.tc-ai-always',
    '.tc-ai-rule-note',
    '.tc-ai-rule-revoke',
    '.tc-ai-rule-revoked',
    '.tc-ai-delete-turn',
    '.tc-ai-turn-actions',
    '.tc-ai-chat-footer',
    '.tc-ai-todo-item',
    '.tc-ai-prompt-message',
    '.tc-ai-chip',
    '.tc-ai-tool-titles a',
    '.tc-ai-tool-error',
    '.tc-ai-tool-code',
    '.tc-ai-tool-result',
    '.tc-ai-tool-args',
  ]) {
    expect(await chat().locator(part).count()).toBeGreaterThan(0);
  }
  const result = await served.page.evaluate(measureContrast, [
    `.tc-ai-chat[data-chat="${CHAT}"]`,
    `.tc-tiddler-frame[data-tiddler-title="${CHAT}"] .tc-ai-chat-header`,
  ]);
  console.log(`${palette}: lowest contrast ${result.lowest}:1 over ${result.count} texts`);
  expect(result.offenders).toEqual([]);
  // An error stays distinct from a reply without colour on its text: its border.
  const borders = await served.page.evaluate((c) => {
    const style = (s: string) => getComputedStyle(document.querySelector(`.tc-ai-chat[data-chat="${c}"] ${s}`)!);
    return [style('.tc-ai-message-error').borderLeftColor, style('.tc-ai-message-assistant').borderLeftColor, style('.tc-ai-message-error').borderLeftWidth];
  }, CHAT);
  expect(borders[0]).not.toBe(borders[1]);
  expect(parseFloat(borders[2]!)).toBeGreaterThanOrEqual(4);
});

test.each(['$:/palettes/Vanilla', '$:/palettes/SpartanNight', '$:/palettes/CupertinoDark'])(
  'every text of each settings tab, the Chats and the Background tab reaches WCAG AA in %s',
  async (palette) => {
    await usePalette(palette);
    await navigate(served.page, SETTINGS);
    const settings = `.tc-tiddler-frame[data-tiddler-title="${SETTINGS}"] .tc-ai-settings`;
    await served.page.locator(settings).waitFor();
    // The story river fades a tiddler in: measure once it is fully there.
    await served.page.waitForFunction((sel) => {
      for (let e: Element | null = document.querySelector(sel); e; e = e.parentElement) if (getComputedStyle(e).opacity !== '1') return false;
      return true;
    }, settings);
    let lowest = Infinity;
    let count = 0;
    const offenders: Offender[] = [];
    const measure = async (selectors: string[]) => {
      const result = await served.page.evaluate(measureContrast, selectors);
      lowest = Math.min(lowest, result.lowest);
      count += result.count;
      offenders.push(...result.offenders);
    };
    for (const tab of ['providers', 'agents', 'search', 'mcp']) {
      await served.page.evaluate(
        (t) => (window as any).$tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/tab', text: `$:/plugins/tiddlyagent/agent/settings/${t}` }),
        tab,
      );
      await served.page.locator(`${settings} .tc-tab-buttons button.tc-tab-selected[data-tab-title="$:/plugins/tiddlyagent/agent/settings/${tab}"]`).waitFor();
      await measure([settings]);
    }
    // The getting-started guide the plugin opens once after install.
    await navigate(served.page, GUIDE);
    await served.page.waitForFunction((sel) => {
      const guide = document.querySelector(sel);
      for (let e: Element | null = guide; e; e = e.parentElement) if (getComputedStyle(e).opacity !== '1') return false;
      return !!guide;
    }, `.tc-tiddler-frame[data-tiddler-title="${GUIDE}"] .tc-ai-guide`);
    await measure([`.tc-tiddler-frame[data-tiddler-title="${GUIDE}"] .tc-ai-guide`]);
    for (const [tab, content] of [
      ['chats', '.tc-ai-sidebar-chats'],
      ['background', '.tc-ai-background'],
    ] as const) {
      await served.page.locator(`.tc-sidebar-tabs-main > .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/${tab}"]`).click();
      await served.page.locator(content).waitFor();
      await measure([content]);
    }
    console.log(`${palette}: settings and sidebar tabs, lowest contrast ${Math.round(lowest * 100) / 100}:1 over ${count} texts`);
    expect(count).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  },
);

test('every control of the chat and the New chat button has an accessible name', async () => {
  await usePalette('$:/palettes/Vanilla');
  const unnamed = await served.page.evaluate((c) => {
    const root = document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)!;
    const scope = [root, root.parentElement!.querySelector('.tc-ai-chat-header')!];
    const controls = [
      ...scope.flatMap((s) => [...s.querySelectorAll(':is(button, textarea, input, select, summary, a)')]),
      ...document.querySelectorAll('[data-ai-action="new-chat"]'),
    ];
    return controls
      .filter((e) => (e as HTMLElement).checkVisibility())
      .filter((e) => {
        const labelled =
          e.getAttribute('aria-label')?.trim() ||
          e.textContent?.trim() ||
          e.getAttribute('title')?.trim() ||
          (e.id && document.querySelector(`label[for="${e.id}"]`)) ||
          e.closest('label');
        return !labelled;
      })
      .map((e) => e.outerHTML.slice(0, 80));
  }, CHAT);
  expect(unnamed).toEqual([]);
  // The composer's input has a name of its own, not only a placeholder.
  expect(await chat().locator('textarea.tc-ai-chat-input').getAttribute('aria-label')).toBe('Message to the agent');
});

test("the composer's attachment chip is a link a keyboard reaches and opens", async () => {
  const link = chat().locator('.tc-ai-composer-chips .tc-ai-chip-link').first();
  const title = (await link.textContent())!;
  // A link to assistive technology (an <a> without href is not one) and in the Tab order.
  expect(await link.evaluate((a) => [a.getAttribute('href'), (a as HTMLAnchorElement).tabIndex])).toEqual([`#${encodeURIComponent(title)}`, 0]);
  await link.focus();
  await served.page.keyboard.press('Enter');
  await served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${title}"]`).waitFor();
  // Opening it navigates in the story, not the browser's location.
  expect(await served.page.evaluate(() => location.hash)).not.toContain(encodeURIComponent(title));
});

test('every control of each settings tab has an accessible name', async () => {
  await usePalette('$:/palettes/Vanilla');
  await navigate(served.page, SETTINGS);
  const settings = `.tc-tiddler-frame[data-tiddler-title="${SETTINGS}"] .tc-ai-settings`;
  const unnamed: string[] = [];
  let controls = 0;
  for (const tab of ['providers', 'agents', 'search', 'mcp']) {
    await served.page.evaluate(
      (t) => (window as any).$tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/tab', text: `$:/plugins/tiddlyagent/agent/settings/${t}` }),
      tab,
    );
    await served.page.locator(`${settings} .tc-tab-buttons button.tc-tab-selected[data-tab-title="$:/plugins/tiddlyagent/agent/settings/${tab}"]`).waitFor();
    const found = await served.page.evaluate((sel) => {
      const all = [...document.querySelector(sel)!.querySelectorAll(':is(button, textarea, input, select, a)')].filter((e) =>
        (e as HTMLElement).checkVisibility(),
      );
      // A field's name: its aria-label or a label around it (a placeholder is not a name); a button's or link's: its text.
      const named = (e: Element) =>
        e.getAttribute('aria-label')?.trim() ||
        e.closest('label')?.textContent?.trim() ||
        (e.id && document.querySelector(`label[for="${e.id}"]`)) ||
        (/^(BUTTON|A)$/.test(e.tagName) && (e.textContent?.trim() || e.getAttribute('title')?.trim()));
      return { count: all.length, unnamed: all.filter((e) => !named(e)).map((e) => e.outerHTML.slice(0, 100)) };
    }, settings);
    controls += found.count;
    unnamed.push(...found.unnamed.map((html) => `${tab}: ${html}`));
  }
  // The getting-started guide's buttons too.
  await navigate(served.page, GUIDE);
  await served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${GUIDE}"] .tc-ai-guide`).waitFor();
  const guide = await served.page.evaluate(
    (g) =>
      [...document.querySelectorAll(`.tc-tiddler-frame[data-tiddler-title="${g}"] .tc-ai-guide :is(button, a, input)`)]
        .filter((e) => !e.textContent?.trim() && !e.getAttribute('aria-label'))
        .map((e) => e.outerHTML.slice(0, 100)),
    GUIDE,
  );
  unnamed.push(...guide.map((html) => `guide: ${html}`));
  expect(controls).toBeGreaterThan(20);
  expect(unnamed).toEqual([]);
});

test('the card says each count right and shows a call once', async () => {
  const card = chat().locator('.tc-ai-approval');
  // One view of the call: what it changes; the exact arguments only folded, no preview besides.
  expect(await card.locator('.tc-ai-approval-changes').textContent()).toContain('Text of the new tiddler');
  expect(await card.locator('.tc-ai-approval-preview').count()).toBe(0);
  expect(await card.locator('.tc-ai-tool-args').count()).toBe(1);
  expect(await card.locator('.tc-ai-tool-args').evaluate((e) => e.parentElement!.tagName)).toBe('DETAILS');
  // The turn's diff says where its change is, in words that agree with the number.
  expect(await chat().locator('[data-turn$="/000000"] .tc-ai-diff-where').allTextContents()).toEqual(['1 change · line 1']);
});

test('at 360 px wide nothing scrolls sideways', async () => {
  await served.page.setViewportSize({ width: 360, height: 740 });
  await chat().locator('.tc-ai-prompt-preview:not([hidden])').waitFor();
  await served.page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => resolve(true))));
  const wide = await served.page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    offenders: [...document.querySelectorAll('.tc-ai-chat *')]
      .filter((e) => e.getBoundingClientRect().right > 361)
      .map((e) => `${e.className || e.tagName}: ${Math.round(e.getBoundingClientRect().right)}`)
      .slice(0, 10),
  }));
  expect(wide.offenders).toEqual([]);
  expect(wide.scrollWidth).toBeLessThanOrEqual(360);
  await chat().locator('.tc-ai-prompt-show').click();
  await served.page.setViewportSize({ width: 1280, height: 900 });
});

test('the page follows a streaming reply until the user scrolls it up', async () => {
  await chat().locator('button[data-ai-action="approve-deny"]').click();
  await served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') !== 'input-required', CHAT);
  await served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') !== 'working', CHAT);
  await served.page.evaluate(() => window.scrollTo(0, 0));
  const long = (n: number) => Array.from({ length: n }, (_, p) => `Paragraph ${p} of a reply that keeps streaming for a while.`).join('\n\n');
  const streamed = () => served.page.evaluate(() => document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0);
  const completed = () =>
    served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === 'completed', CHAT);
  // Each reply stops half way (the mock's pauseAt, a word count) until the test has looked, so
  // what is checked mid-stream does not depend on how fast a loaded machine streams.
  const paused = () => {
    let resume!: () => void;
    return { resume: new Promise<void>((r) => (resume = r)), go: () => resume() };
  };

  const first = paused();
  served.wiki.mock.queue({ text: long(40), delayMs: 2, pauseAt: 220, resume: first.resume });
  const startY = await served.page.evaluate(() => window.scrollY);
  await chat().locator('textarea.tc-ai-chat-input').fill('A long reply please');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  // The reply grows; the window scrolls with it and keeps the composer in view.
  await served.page.waitForFunction(() => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > 1000);
  await served.page.waitForFunction((y) => window.scrollY > y, startY);
  await served.page.waitForFunction(
    (c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"] .tc-ai-chat-composer`)!.getBoundingClientRect().bottom <= window.innerHeight + 2,
    CHAT,
  );
  first.go();
  await completed();

  // The user scrolls the page up while the next reply streams: the window stays where they put it.
  const second = paused();
  served.wiki.mock.queue({ text: long(60), delayMs: 2, pauseAt: 80, resume: second.resume });
  await chat().locator('textarea.tc-ai-chat-input').fill('Another long reply');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await served.page.waitForFunction(() => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > 300);
  const followedTo = await served.page.evaluate(() => window.scrollY);
  // The wheel over the page's margin scrolls the window, not the chat's list.
  await served.page.mouse.move(5, 450);
  await served.page.mouse.wheel(0, -300);
  await served.page.waitForFunction((y) => window.scrollY < y, followedTo);
  // Wherever the wheel left the window, it has come to rest (two frames without a change).
  await served.page.waitForFunction(
    () =>
      new Promise((resolve) => {
        const y = window.scrollY;
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.scrollY === y)));
      }),
  );
  const readingAt = await served.page.evaluate(() => window.scrollY);
  const before = await streamed();
  second.go();
  // The rest of the reply (over 2,000 characters) arrives and the window does not move.
  await completed();
  const reply = await chat().locator('.tc-ai-message-assistant[data-message]').last().textContent();
  expect(reply!.length).toBeGreaterThan(before + 2000);
  expect(Math.abs((await served.page.evaluate(() => window.scrollY)) - readingAt)).toBeLessThan(2);

  // Retry asks for a new reply: the window follows it again, as after a send.
  const third = paused();
  served.wiki.mock.queue({ text: long(60), delayMs: 2, pauseAt: 300, resume: third.resume });
  const retryFrom = await served.page.evaluate(() => window.scrollY);
  await chat().locator('[data-ai-action="retry"]').last().click();
  await served.page.waitForFunction(() => (document.querySelector('.tc-ai-message-streaming')?.textContent?.length ?? 0) > 1500);
  await served.page.waitForFunction((y) => window.scrollY > y, retryFrom);
  third.go();
  await completed();
});

test('keyboard shortcuts: focus the composer, send, stop, new chat', async () => {
  await served.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await served.page.keyboard.press('Alt+Shift+C');
  expect(
    await served.page.evaluate(
      () => document.activeElement?.classList.contains('tc-ai-chat-input') && document.activeElement.closest('.tc-ai-chat')?.getAttribute('data-chat'),
    ),
  ).toBe(CHAT);
  served.wiki.mock.queue({ text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), delayMs: 30 });
  await served.page.keyboard.type('Sent by the keyboard');
  await served.page.keyboard.press('Control+Enter');
  await served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === 'working', CHAT);
  expect(served.wiki.mock.requests.at(-1)?.body.messages.at(-1).content).toContain('Sent by the keyboard');
  await served.page.keyboard.press('Alt+Shift+X');
  await served.page.waitForFunction((c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === 'canceled', CHAT);
  const chats = await served.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[has[agent]]').length);
  await served.page.keyboard.press('Alt+Shift+N');
  await served.page.waitForFunction((n) => (window as any).$tw.wiki.filterTiddlers('[has[agent]]').length === n + 1, chats);
  // The shortcuts are listed in the control panel with their descriptions.
  const described = await served.page.evaluate(() =>
    ['ai-send', 'ai-stop', 'ai-new-chat', 'ai-focus'].map((k) => (window as any).$tw.wiki.getTiddlerText(`$:/config/ShortcutInfo/${k}`) ?? ''),
  );
  expect(described.every((d: string) => d.length > 0)).toBe(true);
  expect(served.errors).toEqual([]);
});
