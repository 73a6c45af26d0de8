// The agent working on a note in a real browser: "Talk with AI" attaches the note, the mock
// model searches, then edits it after the user approves; the turn's diff shows the change,
// Roll back restores the note exactly, and the attachment chip opens the note.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/tw';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const SHOTS = path.join(ROOT, 'output', 'e2e');
const NOTE = 'Garden plan';
const TEXT = 'Plant tomatoes in May.\nWater the beans daily.';

const served = useServedWiki({ mockDelayMs: 5 });

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  await served.page.evaluate(
    ([title, text]) => (window as any).$tw.wiki.addTiddler({ title, text, tags: 'Garden', created: '20260101000000000', modified: '20260102000000000' }),
    [NOTE, TEXT],
  );
});

const noteFields = () => served.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.getFieldStrings(), NOTE);

test('search, approved edit, diff, roll back and attachment chip', async () => {
  const before = await noteFields();
  served.wiki.mock.queue([
    { toolCalls: [{ name: 'wiki-search', arguments: { query: 'tomatoes' } }] },
    { toolCalls: [{ name: 'wiki-edit', arguments: { title: NOTE, modified: before.modified, edits: [{ find: 'in May', replace: 'in June' }] } }] },
    { text: "I moved the tomatoes to ''June''." },
  ]);

  // "Talk with AI" on the note starts a chat with the note attached.
  await navigate(served.page, NOTE);
  const noteFrame = served.page.locator(`[data-tiddler-title="${NOTE}"]`);
  await noteFrame.locator('button[data-ai-action="talk-with-ai"]').click();
  const chat = served.page.locator(`.tc-ai-chat[data-chat="Chat about ${NOTE}"]`);
  await chat.waitFor();
  expect(await chat.locator('.tc-ai-composer-chips .tc-ai-chip').getAttribute('data-title')).toBe(NOTE);
  await chat.locator('textarea.tc-ai-chat-input').fill('Move the planting to June');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');

  // wiki-search runs by itself (a read tool); wiki-edit waits for the user.
  const card = chat.locator('.tc-ai-approval');
  await card.waitFor();
  expect(await card.textContent()).toContain('wiki-edit');
  expect(await chat.locator('.tc-ai-message-tool[data-tool="wiki-search"][data-tool-status="ok"]').count()).toBe(1);
  expect((await noteFields()).text).toBe(TEXT);
  await card.screenshot({ path: path.join(SHOTS, 'approval-card.png') });
  await chat.locator('button[data-ai-action="approve-once"]').click();
  await chat.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'I moved the tomatoes' }).waitFor();
  expect((await noteFields()).text).toBe('Plant tomatoes in June.\nWater the beans daily.');

  // The model saw the attachment as labelled data, and the search result.
  const first = served.wiki.mock.requests.find((r: any) =>
    r.body.messages.some((m: any) => m.role === 'user' && String(m.content).includes('Move the planting')),
  );
  const user = first.body.messages.find((m: any) => m.role === 'user');
  expect(user.content).toContain(`<tiddler-data title="${NOTE}"`);
  expect(user.content).toContain('untrusted data');
  const searchResult = served.wiki.mock.requests[1].body.messages.find((m: any) => m.role === 'tool');
  expect(searchResult.content).toContain(NOTE);

  // The turn's action bar: the diff shows the change word by word.
  const actions = chat.locator('.tc-ai-turn-actions').last();
  expect(await actions.locator('button[data-ai-action="show-changes"]').textContent()).toBe('1 tiddler changed');
  await actions.locator('button[data-ai-action="show-changes"]').click();
  const diff = actions.locator('.tc-ai-diff');
  await diff.waitFor();
  const deleted = (await diff.locator('.tc-ai-diff-removed').allTextContents()).join(' ');
  const inserted = (await diff.locator('.tc-ai-diff-added').allTextContents()).join(' ');
  expect(deleted).toMatch(/^May\b/);
  expect(inserted).toMatch(/^June\b/);
  expect(deleted + inserted).not.toContain('tomatoes'); // unchanged words are not marked
  await chat.screenshot({ path: path.join(SHOTS, 'turn-diff.png') });

  // Roll back restores every field of the note.
  await actions.locator('button[data-ai-action="rollback"]').click();
  await served.page.waitForFunction((t) => (window as any).$tw.wiki.getTiddlerText(t) === 'Plant tomatoes in May.\nWater the beans daily.', NOTE);
  expect(await noteFields()).toEqual(before);
  await chat.locator('.tc-ai-turn-rolled-back').waitFor();

  // The chip on the user's message opens the note.
  await served.page.evaluate((t) => {
    const tw = (window as any).$tw;
    const story = tw.wiki.getTiddlerList('$:/StoryList').filter((title: string) => title !== t);
    tw.wiki.addTiddler({ title: '$:/StoryList', list: story });
  }, NOTE);
  await noteFrame.waitFor({ state: 'detached' });
  await chat.locator('.tc-ai-message-user .tc-ai-chip').first().click();
  await noteFrame.waitFor();
  expect(served.errors).toEqual([]);
});
