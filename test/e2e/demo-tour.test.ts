// The offline demo's guided tour, as a newcomer follows the welcome tiddler: "Show me what you
// can do" in the Demo chat makes the mock model search (a tool line), ask to edit "Demo notes"
// (an approval card), and explain; the diff shows the change and Roll back brings the note back
// as shipped. The run takes the manual's screenshots in the default palette, a dark one, at
// 360 px and in Chinese (into output/manual/; `npm run shots` also copies them to files/manual/,
// served at /files/manual/), checks the manual shows them, and that the committed ones are the
// size this run took them at.
import fs from 'node:fs';
import path from 'node:path';
import { navigate, useServedWiki } from '../helpers/e2e';
import { manualShot, staleShots } from '../helpers/manual-shots';
import { ROOT } from '../helpers/tw';

const { TOUR_REPLACE } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

const SHOTS = ['tour-light.png', 'tour-dark.png', 'tour-narrow.png', 'tour-zh-Hans.png'];
const NOTE = 'Demo notes';
const SHIPPED = fs
  .readFileSync(path.join(ROOT, 'wiki', 'tiddlers', `${NOTE}.tid`), 'utf8')
  .split(/\n\n/)
  .slice(1)
  .join('\n\n');

// The shipped demo's languages (zh-Hans), and its files/ folder (served at /files/ from the wiki folder on each request).
const served = useServedWiki({ mockDelayMs: 5, languages: true, prepare: (wiki) => fs.symlinkSync(path.join(ROOT, 'files'), path.join(wiki.dir, 'files')) });

const chat = () => served.page.locator('.tc-ai-chat[data-chat="Demo chat"]');
const frame = () => served.page.locator('[data-tiddler-title="Demo chat"]');
const note = () => served.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.getFieldStrings(), NOTE);
/** Set a config tiddler as the control panel would; null deletes it (back to the default). */
const setTiddler = (title: string, text: string | null) =>
  served.page.evaluate(([t, x]) => (x === null ? (window as any).$tw.wiki.deleteTiddler(t) : (window as any).$tw.wiki.addTiddler({ title: t, text: x })), [
    title,
    text,
  ] as const);

/** The turn's diff, opened (a re-render after a palette or language change may have closed it). */
async function openDiff(): Promise<void> {
  const actions = chat().locator('.tc-ai-turn-actions').last();
  if (!(await actions.locator('.tc-ai-diff').isVisible())) await actions.locator('button[data-ai-action="show-changes"]').click();
  await actions.locator('.tc-ai-diff').waitFor();
}

async function shot(name: string): Promise<void> {
  await openDiff();
  await manualShot(frame(), name);
}

test('the tour: a search, an edit the user approves, the diff, and Roll back to the shipped note', async () => {
  const shipped = await note();
  expect(shipped.text).toBe(SHIPPED);
  await navigate(served.page, 'Demo chat');
  await chat().locator('textarea.tc-ai-chat-input').fill('Show me what you can do');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');

  // The search runs by itself; the edit waits in a card that shows the change.
  const card = chat().locator('.tc-ai-approval');
  await card.waitFor();
  expect(await chat().locator('.tc-ai-message-tool[data-tool="wiki-search"][data-tool-status="ok"]').count()).toBe(1);
  expect(await card.textContent()).toContain('wiki-edit');
  expect(await card.textContent()).toContain(NOTE);
  // The changed line first; no field changes (the new `modified` stamp is no change to decide about).
  expect(await card.locator('.tc-ai-diff-field').count()).toBe(0);
  expect(await card.locator('.tc-ai-diff-text del').allTextContents()).toEqual(['waiting for the tour']);
  expect((await note()).text).toBe(SHIPPED);
  await card.locator('button[data-ai-action="approve-once"]').click();

  const reply = chat().locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Guided tour' });
  await reply.waitFor();
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  expect((await note()).text).toContain(TOUR_REPLACE);
  expect(await reply.locator('a.tc-tiddlylink', { hasText: NOTE }).count()).toBeGreaterThan(0);
  expect(served.wiki.mock.requests.map((r: { reply: string }) => r.reply)).toEqual(['tour', 'tour', 'tour']);

  const actions = chat().locator('.tc-ai-turn-actions').last();
  expect(await actions.locator('button[data-ai-action="show-changes"]').textContent()).toBe('1 tiddler changed');
  await openDiff();
  expect((await actions.locator('.tc-ai-diff .tc-ai-diff-added').allTextContents()).join(' ')).toContain('changed by the demo agent');

  // The manual's screenshots: the chat after the tour, diff open.
  await shot('tour-light.png');
  const background = () => served.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  await setTiddler('$:/palette', '$:/palettes/SpartanNight');
  await served.page.waitForFunction((before) => getComputedStyle(document.body).backgroundColor !== before, light);
  await shot('tour-dark.png');
  await setTiddler('$:/palette', null);
  await served.page.waitForFunction((before) => getComputedStyle(document.body).backgroundColor === before, light);
  await served.page.setViewportSize({ width: 360, height: 900 });
  await shot('tour-narrow.png');
  await served.page.setViewportSize({ width: 1280, height: 900 });
  await setTiddler('$:/language', '$:/languages/zh-Hans');
  await served.page.waitForFunction(() => /[\u4e00-\u9fff]/.test(document.querySelector('.tc-sidebar-scrollable')?.textContent ?? ''));
  await shot('tour-zh-Hans.png');
  await setTiddler('$:/language', null);

  // Roll back: the note is back exactly as shipped.
  await chat().locator('.tc-ai-turn-actions').last().locator('button[data-ai-action="rollback"]').click();
  await chat().locator('.tc-ai-turn-rolled-back').waitFor();
  await served.page.waitForFunction(([t, text]) => (window as any).$tw.wiki.getTiddlerText(t) === text, [NOTE, SHIPPED]);
  expect(await note()).toEqual(shipped);
  expect(served.errors).toEqual([]);
});

test('the manual shows the screenshots, served from files/manual/', async () => {
  for (const name of SHOTS) {
    const res = await fetch(`${served.wiki.url}/files/manual/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
  }
  await navigate(served.page, 'TiddlyAgent Manual: Getting started');
  const images = served.page.locator('[data-tiddler-title="TiddlyAgent Manual: Getting started"] img');
  await images.first().waitFor();
  expect(await images.count()).toBeGreaterThanOrEqual(4);
  await served.page.waitForFunction(() =>
    [...document.querySelectorAll('[data-tiddler-title="TiddlyAgent Manual: Getting started"] img')].every(
      (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
    ),
  );
});

test('the committed screenshots are the size this run took them at (npm run shots refreshes them)', () => {
  expect(staleShots(SHOTS)).toEqual([]);
});
