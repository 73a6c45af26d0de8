// The approval card and the turn diff show the change first, and the user can edit the proposed
// text before allowing it (issue 24), judged by what a user sees in Chromium: on a 61-paragraph
// note whose last line the agent edits, and at 360 px on the demo note, the first change is in
// the card's visible area when it opens (bounding boxes: inside the card, not clipped by any box
// around it, inside the window); a created note's card shows its text; several changes step
// with Previous and Next, the full text one click away; the turn's diff is as compact. Editing
// in the card lands the user's version, journaled (Roll back restores the original), in the
// browser edition and in the server edition; a version the write gate refuses shows the refusal
// in the card and lands nothing. Screenshots go to output/i24-card/.
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { measureContrast } from '../helpers/contrast';
import { navigate, useServedWiki, waitForSync, type Edition, type ServedWiki } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

jest.setTimeout(90_000);

const SHOTS = path.join(ROOT, 'output', 'i24-card');
const LONG = 'Long garden note';
const M = '20260102000000000';
const PARAGRAPHS = Array.from(
  { length: 61 },
  (_, i) => `Paragraph ${i + 1}: the garden plan for week ${i + 1}, with notes on watering, weeding and what to plant next.`,
);
const LAST = 'Paragraph 61: the season ends; the beds are covered for winter.';

const chat = (page: Page) => page.locator('.tc-ai-chat[data-chat="Demo chat"]');
const status = (page: Page, value: string) =>
  page.waitForFunction((s) => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === s, value);
const textOf = (page: Page, title: string) => page.evaluate((t) => (window as any).$tw.wiki.getTiddlerText(t) as string | undefined, title);

async function send(page: Page, text: string): Promise<Locator> {
  await chat(page).locator('textarea.tc-ai-chat-input').fill(text);
  await chat(page).locator('textarea.tc-ai-chat-input').press('Control+Enter');
  const card = chat(page).locator('.tc-ai-approval');
  await card.waitFor();
  await status(page, 'input-required');
  return card;
}

/** The long note, saved (in the server edition the server's runner reads it). */
async function addLongNote(page: Page): Promise<void> {
  await page.evaluate(
    ([t, text, m]) => (window as any).$tw.wiki.addTiddler({ title: t, text, tags: 'Garden', created: m, modified: m }),
    [LONG, PARAGRAPHS.join('\n\n'), M],
  );
  await waitForSync(page);
}

/** The agent reads the long note and asks to edit its last line, then replies `reply`. */
function queueLastLineEdit(wiki: ServedWiki, reply: string): void {
  wiki.mock.queue([
    { toolCalls: [{ name: 'wiki-read', arguments: { title: LONG } }] },
    { toolCalls: [{ name: 'wiki-edit', arguments: { title: LONG, modified: M, edits: [{ find: PARAGRAPHS[60], replace: LAST }] } }] },
    { text: reply },
  ]);
}

/**
 * Where the first change of a card (or a turn's diff) is, as the user sees it when it opens:
 * inside the card, not cut off by any box around it that clips (a box scrolling inside the
 * card, or the chat's own list), and inside the window.
 */
function firstChangeInView(view: Locator): Promise<{ inCard: boolean; unclipped: boolean; inWindow: boolean; text: string }> {
  return view.evaluate((root) => {
    const change = root.querySelector('.tc-ai-diff-text :is(ins, del)')!;
    const r = change.getBoundingClientRect();
    const within = (o: DOMRect) => r.top >= o.top - 1 && r.bottom <= o.bottom + 1 && r.left >= o.left - 1 && r.right <= o.right + 1;
    let unclipped = true;
    for (let e = change.parentElement; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (/(auto|scroll|hidden|clip)/.test(`${style.overflowX} ${style.overflowY}`) && !within(e.getBoundingClientRect())) unclipped = false;
    }
    return {
      inCard: within(root.getBoundingClientRect()),
      unclipped,
      inWindow: r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth,
      text: change.textContent ?? '',
    };
  });
}

async function usePalette(page: Page, palette: string): Promise<void> {
  const [before, current] = await page.evaluate(() => [
    getComputedStyle(document.body).backgroundColor,
    (window as any).$tw.wiki.getTiddlerText('$:/palette', '$:/palettes/Vanilla'),
  ]);
  if (current === palette) return;
  await page.evaluate((p) => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: p }), palette);
  await page.waitForFunction((b) => getComputedStyle(document.body).backgroundColor !== b, before);
}

/** Every text under `selector` reaches WCAG AA in the default and two dark palettes, and every control it shows has a name. */
async function readable(page: Page, selector: string): Promise<void> {
  for (const palette of ['$:/palettes/Vanilla', '$:/palettes/SpartanNight', '$:/palettes/CupertinoDark']) {
    await usePalette(page, palette);
    const result = await page.evaluate(measureContrast, [selector]);
    expect({ palette, texts: result.count > 5, offenders: result.offenders }).toEqual({ palette, texts: true, offenders: [] });
  }
  await usePalette(page, '$:/palettes/Vanilla');
  const unnamed = await page.evaluate(
    (sel) =>
      [...document.querySelectorAll(`${sel} :is(button, textarea, input, select, summary, a)`)]
        .filter((e) => (e as HTMLElement).checkVisibility())
        .filter((e) => !(e.getAttribute('aria-label')?.trim() || e.textContent?.trim()))
        .map((e) => e.outerHTML.slice(0, 80)),
    selector,
  );
  expect(unnamed).toEqual([]);
}

const CARD = '.tc-ai-chat[data-chat="Demo chat"] .tc-ai-approval';

/**
 * Edit before allowing, as a user does it: Edit puts the cursor at the agent's change; they
 * replace the rest of that line with their own words and allow their version. It lands,
 * the model is told, and Roll back brings the original back.
 */
async function editAndAllow(page: Page, wiki: ServedWiki, edition: Edition): Promise<void> {
  await addLongNote(page);
  queueLastLineEdit(wiki, 'Your version of the last line landed.');
  const card = await send(page, 'Change the last paragraph of the long note');
  await card.locator('button[data-ai-action="approve-edit"]').click();
  const box = card.locator('textarea.tc-ai-approval-edit-box');
  await box.waitFor();
  expect(await box.getAttribute('aria-label')).toBe(`Your version of the text of ${LONG}`);
  // The cursor is where the agent's change starts: the rest of the line is the agent's words.
  expect(
    await box.evaluate((b: HTMLTextAreaElement) =>
      b.value.slice(b.selectionStart, b.value.indexOf('\n', b.selectionStart) === -1 ? undefined : b.value.indexOf('\n', b.selectionStart)),
    ),
  ).toBe('season ends; the beds are covered for winter.');
  expect(await box.evaluate((b: HTMLTextAreaElement) => b === document.activeElement && b.scrollTop > 0)).toBe(true);
  await page.keyboard.press('Shift+End');
  await page.keyboard.type('beds are mulched, and I say so.');
  if (edition === 'browser') await card.screenshot({ path: path.join(SHOTS, 'after-edit-card-desktop.png') });
  await card.locator('button[data-ai-action="approve-edited"]').click();
  await chat(page).locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Your version of the last line landed.' }).waitFor();
  await status(page, 'completed');
  const mine = [...PARAGRAPHS.slice(0, 60), 'Paragraph 61: the beds are mulched, and I say so.'].join('\n\n');
  await page.waitForFunction(([t, text]) => (window as any).$tw.wiki.getTiddlerText(t) === text, [LONG, mine]);
  const told = wiki.mock.requests.at(-1).body.messages.at(-1);
  expect(told).toMatchObject({ role: 'tool', content: expect.stringContaining('The user edited your proposed text before allowing it') });
  expect(told.content).toContain(`- ${LAST}\n+ Paragraph 61: the beds are mulched, and I say so.`);

  // The turn's diff shows what landed, the user's words, compact; Roll back restores the original.
  const actions = chat(page).locator('.tc-ai-turn-actions').last();
  await actions.locator('button[data-ai-action="show-changes"]').click();
  expect(await actions.locator('.tc-ai-diff-where').textContent()).toBe('1 change · line 121');
  expect(await actions.locator('.tc-ai-diff-text ins').allTextContents()).toEqual(['beds are mulched, and I say so']);
  await actions.locator('button[data-ai-action="rollback"]').click();
  await actions.locator('.tc-ai-turn-rolled-back').waitFor();
  await page.waitForFunction(([t, text]) => (window as any).$tw.wiki.getTiddlerText(t) === text, [LONG, PARAGRAPHS.join('\n\n')]);
}

/** A version the write gate refuses: the card says why, keeps waiting, and nothing lands. `look` sees the card then. */
async function refusedEdit(page: Page, wiki: ServedWiki, look?: () => Promise<void>): Promise<void> {
  const before = await textOf(page, LONG);
  queueLastLineEdit(wiki, 'Nothing was changed.');
  const card = await send(page, 'Change the last paragraph again');
  await card.locator('button[data-ai-action="approve-edit"]').click();
  const box = card.locator('textarea.tc-ai-approval-edit-box');
  await box.press('Control+End');
  await page.keyboard.type('\n\n<script>alert(1)</script>');
  await card.locator('button[data-ai-action="approve-edited"]').click();
  const refusal = card.locator('.tc-ai-approval-refused');
  await refusal.waitFor();
  expect(await refusal.getAttribute('role')).toBe('alert');
  expect(await refusal.locator('.tc-ai-approval-refused-headline').textContent()).toMatch(/^Your version cannot be written/);
  expect(await refusal.locator('.tc-ai-approval-refused-reason').textContent()).toMatch(/^Refused: .*script/);
  expect(await chat(page).getAttribute('data-status')).toBe('input-required');
  expect(await textOf(page, LONG)).toBe(before);
  await look?.();
  // Cancel: the card as it was; Deny ends the turn, nothing written.
  await card.locator('button[data-ai-action="approve-edit-cancel"]').click();
  await card.locator('.tc-ai-approval-changes').waitFor();
  await card.locator('button[data-ai-action="approve-deny"]').click();
  await status(page, 'completed');
  expect(await textOf(page, LONG)).toBe(before);
}

describe('browser edition', () => {
  const served = useServedWiki({ mockDelayMs: 5 });

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await navigate(served.page, 'Demo chat');
    await chat(served.page).waitFor();
  });

  test("a long note's last line: the change is in the card's visible area when it opens, not the text from the top", async () => {
    await addLongNote(served.page);
    queueLastLineEdit(served.wiki, 'Left the note as it was.');
    const card = await send(served.page, 'Change the last paragraph of the long note');
    const seen = await firstChangeInView(card);
    expect(seen).toEqual({ inCard: true, unclipped: true, inWindow: true, text: expect.stringContaining('garden plan for week 61') });
    expect(await card.locator('.tc-ai-diff-where').textContent()).toBe('1 change · line 121');
    expect(await card.locator('.tc-ai-diff-text').textContent()).not.toContain('Paragraph 1:');
    // Only what changes: the note's type, tags and dates stay as they are, so they are not listed.
    expect(await card.locator('.tc-ai-diff-field').count()).toBe(0);
    // The full text is one click away, and back.
    await card.locator('button[data-ai-action="diff-full"]').click();
    expect(await card.locator('.tc-ai-diff-text').textContent()).toContain('Paragraph 1:');
    expect(await card.locator('.tc-ai-diff-where').textContent()).toBe('Full text, 1 change marked');
    await card.locator('button[data-ai-action="diff-full"]').click();
    expect(await card.locator('.tc-ai-diff-text').textContent()).not.toContain('Paragraph 1:');
    await served.page.screenshot({ path: path.join(SHOTS, 'after-long-edit-desktop.png') });
    await usePalette(served.page, '$:/palettes/SpartanNight');
    await card.screenshot({ path: path.join(SHOTS, 'after-long-edit-card-dark.png') });
    await usePalette(served.page, '$:/palettes/Vanilla');
    await card.locator('button[data-ai-action="approve-deny"]').click();
    await status(served.page, 'completed');
  });

  test("at 360 px, the demo note's change is in the card's visible area, every line wraps, and the turn's diff is as compact", async () => {
    await served.page.setViewportSize({ width: 360, height: 740 });
    try {
      const card = await send(served.page, 'Show me what you can do');
      expect(await firstChangeInView(card)).toEqual({ inCard: true, unclipped: true, inWindow: true, text: 'waiting for the tour' });
      const wide = await card.evaluate((root) =>
        [...root.querySelectorAll('*')]
          .filter((e) => e.getBoundingClientRect().right > root.getBoundingClientRect().right + 1)
          .map((e) => e.className || e.tagName),
      );
      expect(wide).toEqual([]);
      await served.page.screenshot({ path: path.join(SHOTS, 'after-demo-note-360.png') });
      await usePalette(served.page, '$:/palettes/SpartanNight');
      await served.page.screenshot({ path: path.join(SHOTS, 'after-demo-note-360-dark.png') });
      await usePalette(served.page, '$:/palettes/Vanilla');
      await card.locator('button[data-ai-action="approve-once"]').click();
      await status(served.page, 'completed');
      const actions = chat(served.page).locator('.tc-ai-turn-actions').last();
      await actions.locator('button[data-ai-action="show-changes"]').click();
      const diff = actions.locator('.tc-ai-turn-panel');
      await diff.locator('.tc-ai-diff').waitFor();
      await diff.scrollIntoViewIfNeeded();
      expect(await firstChangeInView(diff)).toMatchObject({ inCard: true, unclipped: true, text: 'waiting for the tour' });
      expect(await diff.locator('.tc-ai-diff-text ins').first().textContent()).toContain('changed by the demo agent');
      await served.page.screenshot({ path: path.join(SHOTS, 'after-turn-diff-360.png') });
      await actions.locator('button[data-ai-action="rollback"]').click();
      await chat(served.page).locator('.tc-ai-turn-rolled-back').last().waitFor();
    } finally {
      await served.page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  test("a created note's card shows its text", async () => {
    const card = await send(
      served.page,
      'mock:tool=wiki-create {"title":"Created note","text":"A new note written by the agent.\\n\\nIt has two paragraphs.","tags":["Garden"]}',
    );
    expect(await card.locator('.tc-ai-diff-title').textContent()).toBe('Created note · created');
    expect(await card.locator('.tc-ai-diff-where').textContent()).toBe('Text of the new tiddler');
    expect(await card.locator('.tc-ai-diff-text').textContent()).toBe('A new note written by the agent.\n\nIt has two paragraphs.');
    expect(await card.locator('.tc-ai-diff-text').isVisible()).toBe(true);
    expect(await card.locator('.tc-ai-diff-field-name').allTextContents()).toEqual(['tags']);
    await card.screenshot({ path: path.join(SHOTS, 'after-created-card-desktop.png') });
    await card.locator('button[data-ai-action="approve-deny"]').click();
    await status(served.page, 'completed');
  });

  test('several changes: the card says how many and steps through them with Previous and Next', async () => {
    const text = [...PARAGRAPHS];
    text[1] = 'Paragraph 2: sow the peas.';
    text[29] = 'Paragraph 30: pick the beans.';
    text[59] = 'Paragraph 60: dig the potatoes.';
    served.wiki.mock.queue([
      { toolCalls: [{ name: 'wiki-read', arguments: { title: LONG } }] },
      { toolCalls: [{ name: 'wiki-update', arguments: { title: LONG, modified: M, text: text.join('\n\n') } }] },
      { text: 'Updated.' },
    ]);
    const card = await send(served.page, 'Rewrite three paragraphs');
    const where = card.locator('.tc-ai-diff-where');
    const shown = () => card.locator('.tc-ai-diff-text ins').allTextContents();
    const [previous, next] = [card.locator('button[data-ai-action="diff-previous"]'), card.locator('button[data-ai-action="diff-next"]')];
    expect(await where.textContent()).toBe('Change 1 of 3 · line 3');
    expect(await shown()).toEqual(['sow the peas']);
    expect(await previous.isDisabled()).toBe(true);
    await next.click();
    expect(await where.textContent()).toBe('Change 2 of 3 · line 59');
    expect(await shown()).toEqual(['pick the beans']);
    expect(await firstChangeInView(card)).toMatchObject({ inCard: true, unclipped: true, inWindow: true });
    await next.click();
    expect(await where.textContent()).toBe('Change 3 of 3 · line 119');
    expect(await next.isDisabled()).toBe(true);
    await card.screenshot({ path: path.join(SHOTS, 'after-several-changes-card-desktop.png') });
    await readable(served.page, CARD);
    await previous.click();
    expect(await where.textContent()).toBe('Change 2 of 3 · line 59');
    await card.locator('button[data-ai-action="diff-full"]').click();
    expect(await where.textContent()).toBe('Full text, 3 changes marked');
    expect(await card.locator('.tc-ai-diff-text ins').allTextContents()).toEqual(['sow the peas', 'pick the beans', 'dig the potatoes']);
    expect(await previous.isVisible()).toBe(false);
    await card.locator('button[data-ai-action="approve-deny"]').click();
    await status(served.page, 'completed');
  });

  test("editing in the card lands the user's version, journaled: Roll back restores the original", async () => {
    await editAndAllow(served.page, served.wiki, 'browser');
    expect(served.errors).toEqual([]);
  });

  test('an edited version the write gate refuses shows the refusal in the card and lands nothing; the editor reads well in every palette', async () => {
    await refusedEdit(served.page, served.wiki, async () => {
      await chat(served.page)
        .locator('.tc-ai-approval')
        .screenshot({ path: path.join(SHOTS, 'after-edit-refused-card-desktop.png') });
      await readable(served.page, CARD);
    });
    await chat(served.page).locator('.tc-ai-approval').waitFor({ state: 'detached' });
    expect(served.errors).toEqual([]);
  });
});

describe('server edition', () => {
  const served = useServedWiki({ mockDelayMs: 5, edition: 'server' });

  beforeAll(async () => {
    await navigate(served.page, 'Demo chat');
    await chat(served.page).waitFor();
  });

  test("editing in the card lands the user's version on the server, journaled: Roll back restores the original", async () => {
    await editAndAllow(served.page, served.wiki, 'server');
    // The server holds the original again (its own copy, not only the page's).
    const res = await fetch(`${served.wiki.url}/recipes/default/tiddlers/${encodeURIComponent(LONG)}`);
    expect(((await res.json()) as { text: string }).text).toBe(PARAGRAPHS.join('\n\n'));
    expect(served.errors).toEqual([]);
  });

  test('an edited version the write gate refuses shows the refusal in the card and lands nothing', async () => {
    await refusedEdit(served.page, served.wiki);
    expect(served.errors).toEqual([]);
  });
});
