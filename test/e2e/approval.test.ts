// A turn in a real browser where the mock model calls a tool that needs confirmation: the
// card shows the call, survives a reload, and "Allow once" runs it and brings the answer;
// unless the user changed the tiddler meanwhile, even keeping its `modified`: then the write
// is refused as a conflict.
import { navigate, useServedWiki, waitForSync } from '../helpers/e2e';

jest.setTimeout(60_000);

const served = useServedWiki({ mockDelayMs: 5 });

const chat = () => served.page.locator('.tc-ai-chat[data-chat="Demo chat"]');

test('a tool call that needs confirmation waits in a card, survives a reload, and runs when allowed', async () => {
  await chat().locator('textarea.tc-ai-chat-input').fill('mock:tool=wiki-create {"title":"E2E note","text":"Written by the agent after approval"}');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');

  const card = chat().locator('.tc-ai-approval');
  await card.waitFor();
  expect(await card.textContent()).toContain('wiki-create');
  expect(await card.locator('.tc-ai-tool-args').textContent()).toContain('E2E note');
  // The card shows what would land: the title and the text (a default type and the dates a write stamps are no change to decide about).
  const changes = card.locator('.tc-ai-approval-changes');
  expect(await changes.locator('.tc-ai-diff-title').textContent()).toContain('E2E note');
  expect(await changes.locator('.tc-ai-diff-text').textContent()).toBe('Written by the agent after approval');
  expect(await changes.locator('.tc-ai-diff-field').count()).toBe(0);
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'input-required');
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.tiddlerExists('E2E note'))).toBe(false);

  // The pending approval is a tiddler: a reload shows the same card.
  await waitForSync(served.page);
  await served.page.reload({ waitUntil: 'domcontentloaded' });
  await served.page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  await navigate(served.page, 'Demo chat');
  await chat().locator('.tc-ai-approval').waitFor();
  expect(await chat().getAttribute('data-status')).toBe('input-required');

  await chat().locator('button[data-ai-action="approve-once"]').click();
  const answer = chat().locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'The tool returned' });
  await answer.waitFor();
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  const note = await served.page.evaluate(() => (window as any).$tw.wiki.getTiddlerText('E2E note'));
  expect(note).toBe('Written by the agent after approval');
  expect(await chat().locator('.tc-ai-approval').count()).toBe(0);
  expect(await chat().locator('.tc-ai-message-tool[data-tool-status="ok"]').count()).toBe(1);
  expect(served.errors).toEqual([]);
});

test('a user\'s edit with $timestamp="no" while the write waits is kept: after a reload, "Allow once" refuses the write as a conflict, shown in the chat', async () => {
  const title = 'E2E shared note';
  const modified = '20260101000000000';
  // The note, and a button that changes it the way a user's action wikitext can: keeping its modified.
  await served.page.evaluate(
    ([t, m]) => {
      const tw = (window as any).$tw;
      tw.wiki.addTiddler({ title: t, text: 'The original words.', modified: m });
      tw.wiki.addTiddler({
        title: 'E2E quiet edit',
        text: `<$button class="e2e-quiet-edit">Mark<$action-setfield $tiddler="${t}" $field="text" $value="The user's words." $timestamp="no"/></$button>`,
      });
    },
    [title, modified],
  );
  await waitForSync(served.page);
  served.wiki.mock.queue([
    { toolCalls: [{ name: 'wiki-read', arguments: { title } }] },
    { toolCalls: [{ name: 'wiki-update', arguments: { title, modified, text: "The agent's words." } }] },
  ]);
  const before = served.wiki.mock.requests.length;
  await chat().locator('textarea.tc-ai-chat-input').fill('Rewrite the shared note.');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat().locator('.tc-ai-approval').waitFor();

  await navigate(served.page, 'E2E quiet edit');
  await served.page.locator('button.e2e-quiet-edit').click();
  expect(await served.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t).getFieldString('modified'), title)).toBe(modified);
  await waitForSync(served.page);
  await served.page.reload({ waitUntil: 'domcontentloaded' });
  await served.page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  await navigate(served.page, 'Demo chat');
  await chat().locator('.tc-ai-approval').waitFor();
  await chat().locator('button[data-ai-action="approve-once"]').click();

  const refused = chat().locator('.tc-ai-message-tool[data-tool="wiki-update"][data-tool-status="error"]');
  await refused.waitFor();
  expect(await refused.locator('.tc-ai-tool-error').textContent()).toContain(`"${title}" changed since you read it`);
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  expect(await served.page.evaluate((t) => (window as any).$tw.wiki.getTiddlerText(t), title)).toBe("The user's words.");
  // The model got the refusal as the call's result.
  expect(served.wiki.mock.requests.at(-1).body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('changed since you read it') });
  expect(served.wiki.mock.requests.length).toBe(before + 3);
  expect(served.errors).toEqual([]);
});

test('ask-question shows a card; the answer returns to the same turn', async () => {
  const before = served.wiki.mock.requests.length;
  await chat()
    .locator('textarea.tc-ai-chat-input')
    .fill('mock:tool=ask-question {"question":"Which season?","inputType":"single-select","options":["Spring","Autumn"]}');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  const card = chat().locator('.tc-ai-question');
  await card.waitFor();
  expect(await card.locator('.tc-ai-card-title').textContent()).toBe('Which season?');
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'input-required');
  await card.getByLabel('Autumn').check();
  await card.locator('button[data-ai-action="answer"]').click();
  await chat().locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Clarifications' }).waitFor();
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
  // One request asked, the next carried the answer as the tool result, in the same turn.
  const followUp = served.wiki.mock.requests[before + 1].body.messages;
  expect(followUp.at(-1)).toMatchObject({ role: 'tool' });
  expect(followUp.at(-1).content).toContain('A: Autumn');
  expect(followUp.filter((m: any) => m.role === 'user').length).toBe(
    served.wiki.mock.requests[before].body.messages.filter((m: any) => m.role === 'user').length,
  );
});

test('Cancel on a question ends the turn without a reply', async () => {
  const answers = chat().locator('.tc-ai-message-assistant[data-message]:not(.tc-ai-message-empty)');
  const replies = await answers.count();
  await chat().locator('textarea.tc-ai-chat-input').fill('mock:tool=ask-question {"question":"Really?","inputType":"text"}');
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat().locator('.tc-ai-question').waitFor();
  await chat().locator('button[data-ai-action="dismiss"]').click();
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'canceled');
  // The status arrives on the runner's event bus; the card goes with the next wiki refresh.
  await chat().locator('.tc-ai-question').waitFor({ state: 'detached' });
  // no reply with text was added (the tool-calling reply has none)
  expect(await answers.count()).toBe(replies);
});
