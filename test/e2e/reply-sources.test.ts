// Sources that stay honest (issue 27 item 1) in a real browser: the mock model reads two notes
// and cites one; the reply shows them as chips (real links; a click opens the tiddler). The
// user edits the cited note: the reply is marked "sources changed since", and "Check again"
// sends a turn that asks the agent to re-read it; that turn's reply is not marked.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/tw';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const SHOTS = path.join(ROOT, 'output', 'e2e');
const NOTE = 'Orchard notes';
const OTHER = 'Orchard map';

const served = useServedWiki({ mockDelayMs: 5 });

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  await served.page.evaluate(
    ([note, other]) => {
      const wiki = (window as any).$tw.wiki;
      wiki.addTiddler({ title: note, text: 'Apples ripen in September.', created: '20260101000000000', modified: '20260102000000000' });
      wiki.addTiddler({ title: other, text: 'Three rows of apple trees.', created: '20260101000000000', modified: '20260102000000000' });
    },
    [NOTE, OTHER],
  );
});

test('a reply with source chips is marked when its cited note changes, and Check again runs a turn', async () => {
  const { page } = served;
  served.wiki.mock.queue([
    {
      toolCalls: [
        { name: 'wiki-read', arguments: { title: NOTE } },
        { name: 'wiki-read', arguments: { title: OTHER } },
      ],
    },
    { text: `Apples ripen in September, says [[${NOTE}]].` },
    { toolCalls: [{ name: 'wiki-read', arguments: { title: NOTE } }] },
    { text: `[[${NOTE}]] now says October, not September.` },
  ]);
  await navigate(page, NOTE);
  await page.locator(`[data-tiddler-title="${NOTE}"] button[data-ai-action="talk-with-ai"]`).click();
  const chat = page.locator(`.tc-ai-chat[data-chat="Chat about ${NOTE}"]`);
  await chat.waitFor();
  await chat.locator('textarea.tc-ai-chat-input').fill('When do the apples ripen?');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');

  const first = chat.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Apples ripen in September' });
  await first.waitFor();
  const chips = first.locator('.tc-ai-message-sources a.tc-ai-source');
  await chips.first().waitFor();
  expect(await chips.evaluateAll((els) => els.map((e) => [e.getAttribute('data-title'), e.getAttribute('href'), e.className]))).toEqual([
    [NOTE, `#${encodeURIComponent(NOTE)}`, 'tc-ai-chip tc-tiddlylink tc-ai-source tc-ai-source-cited'],
    [OTHER, `#${encodeURIComponent(OTHER)}`, 'tc-ai-chip tc-tiddlylink tc-ai-source tc-ai-source-read'],
  ]);
  const changed = first.locator('.tc-ai-sources-changed');
  expect(await changed.isVisible()).toBe(false);

  // A click on a chip opens its tiddler in the story.
  await first.locator(`a.tc-ai-source[data-title="${OTHER}"]`).click();
  await page.locator(`.tc-story-river [data-tiddler-title="${OTHER}"]`).waitFor();

  // The user edits the cited note (an unrelated edit marking nothing: test/integration/reply-sources.test.ts).
  await page.evaluate((t) => {
    const wiki = (window as any).$tw.wiki;
    wiki.addTiddler(new (window as any).$tw.Tiddler(wiki.getTiddler(t), { text: 'Apples ripen in October.', modified: '20260301000000000' }));
  }, NOTE);
  await changed.waitFor({ state: 'visible' });
  expect(await changed.textContent()).toContain(`Sources changed since this reply: ${NOTE}`);
  await first.screenshot({ path: path.join(SHOTS, 'reply-sources-changed.png') });

  // Check again: a message asking the agent to re-read the note, and a new turn.
  await changed.locator('button[data-ai-action="check-sources"]').click();
  const again = chat.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'now says October' });
  await again.waitFor();
  const asked = served.wiki.mock.requests.find((r: any) =>
    r.body.messages.some((m: any) => m.role === 'user' && String(m.content).includes('changed since your reply')),
  );
  expect(asked).toBeDefined();
  // The title is quoted data in the user's message, and the button is off until another change.
  expect(asked.body.messages.some((m: any) => m.role === 'user' && String(m.content).includes(JSON.stringify(NOTE)))).toBe(true);
  expect(await changed.locator('button[data-ai-action="check-sources"]').isDisabled()).toBe(true);
  await again.locator(`a.tc-ai-source-cited[data-title="${NOTE}"]`).waitFor();
  expect(await again.locator('.tc-ai-sources-changed').isVisible()).toBe(false);
  // The first reply stays marked: its version of the note is still not the wiki's.
  expect(await changed.isVisible()).toBe(true);
});
