// Throwaway: screenshots of the approval card and the turn diff (before/after), prefix from SHOT_PREFIX.
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ROOT } from '../helpers/tw';
import { navigate, openWiki, serveDemoWiki, type ServedWiki } from '../helpers/e2e';

jest.setTimeout(120_000);
const SHOTS = path.join(ROOT, 'output', 'i24-card');
const P = process.env.SHOT_PREFIX ?? 'before';
let wiki: ServedWiki;
let context: BrowserContext;
let page: Page;
const LONG = 'Long note';
const paragraphs = Array.from({ length: 61 }, (_, i) => `Paragraph ${i + 1}: the garden plan for week ${i + 1}, with notes on watering, weeding and what to plant next.`);

beforeAll(async () => {
  wiki = await serveDemoWiki({ mockDelayMs: 5 });
  ({ context, page } = await openWiki(wiki));
  await page.evaluate(([t, text]) => (window as any).$tw.wiki.addTiddler({ title: t, text, tags: 'Garden', created: '20260101000000000', modified: '20260102000000000' }), [LONG, paragraphs.join('\n\n')]);
});
afterAll(async () => {
  await context?.close();
  await wiki?.stop();
});
const chat = () => page.locator('.tc-ai-chat[data-chat="Demo chat"]');
async function palette(p: string) {
  await page.evaluate((x) => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: x }), p);
  await page.waitForTimeout(300);
}
async function send(text: string) {
  await chat().locator('textarea.tc-ai-chat-input').fill(text);
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat().locator('.tc-ai-approval').waitFor();
  await page.waitForTimeout(300);
}
async function deny() {
  await chat().locator('button[data-ai-action="approve-deny"]').click();
  await chat().locator('.tc-ai-approval').waitFor({ state: 'detached' });
  await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') !== 'working');
}
test('shots', async () => {
  await navigate(page, 'Demo chat');
  await chat().waitFor();
  const modified = '20260102000000000';
  wiki.mock.queue([
    { toolCalls: [{ name: 'wiki-read', arguments: { title: LONG } }] },
    { toolCalls: [{ name: 'wiki-edit', arguments: { title: LONG, modified, edits: [{ find: paragraphs[60], replace: 'Paragraph 61: the season ends; the beds are covered for winter.' }] } }] },
    { text: 'Done.' },
  ]);
  await send('Change the last paragraph of the long note');
  await chat().locator('.tc-ai-approval').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, `${P}-long-edit-desktop.png`) });
  await chat().locator('.tc-ai-approval').screenshot({ path: path.join(SHOTS, `${P}-long-edit-card-desktop.png`) });
  await palette('$:/palettes/SpartanNight');
  await chat().locator('.tc-ai-approval').screenshot({ path: path.join(SHOTS, `${P}-long-edit-card-dark.png`) });
  await palette('$:/palettes/Vanilla');
  await page.setViewportSize({ width: 360, height: 740 });
  await chat().locator('.tc-ai-approval').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, `${P}-long-edit-360.png`) });
  await page.setViewportSize({ width: 1280, height: 900 });
  await deny();
  await send('mock:tool=wiki-create {"title":"Created note","text":"A new note written by the agent.\\n\\nIt has two paragraphs.","tags":["Garden"]}');
  await chat().locator('.tc-ai-approval').screenshot({ path: path.join(SHOTS, `${P}-created-card-desktop.png`) });
  await deny();
  // The demo tour at 360 px.
  await page.setViewportSize({ width: 360, height: 740 });
  await send('Show me what you can do');
  await chat().locator('.tc-ai-approval').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, `${P}-demo-note-360.png`) });
  await chat().locator('.tc-ai-approval').screenshot({ path: path.join(SHOTS, `${P}-demo-note-card-360.png`) });
  await palette('$:/palettes/SpartanNight');
  await page.screenshot({ path: path.join(SHOTS, `${P}-demo-note-360-dark.png`) });
  await palette('$:/palettes/Vanilla');
  await chat().locator('button[data-ai-action="approve-once"]').click();
  await page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  const actions = chat().locator('.tc-ai-turn-actions').last();
  await actions.locator('button[data-ai-action="show-changes"]').click();
  await actions.locator('.tc-ai-diff').waitFor();
  await actions.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, `${P}-turn-diff-360.png`) });
  await page.setViewportSize({ width: 1280, height: 900 });
  await actions.screenshot({ path: path.join(SHOTS, `${P}-turn-diff-desktop.png`) });
});
