// Edit, regenerate, branch in a real browser against the served demo wiki: edit an earlier
// user message and resend (the chat forks, "‹ 2/2 ›" on the message switches between the
// branches), Retry a reply twice and browse its versions 1/3 2/3 3/3, and copy a message
// and the whole chat (what reaches the clipboard is read from the page's copy event).
import { useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const served = useServedWiki({ mockDelayMs: 2 });

beforeAll(async () => {
  // The chat keeps its title "Chat" (no automatic title after its first turn: chats-sidebar.test.ts tests that).
  await served.page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/auto-title', text: 'no' }));
  // What a copy puts on the clipboard: the text selected when the copy event fires.
  await served.page.evaluate(() => {
    const w = window as any;
    w.copied = [];
    document.addEventListener('copy', (e) => w.copied.push((e.target as HTMLTextAreaElement).value ?? String(document.getSelection())));
  });
});

const chat = () => served.page.locator('.tc-ai-chat[data-chat="Chat"]');
const done = () =>
  served.page.waitForFunction(
    () =>
      document.querySelector('.tc-ai-chat[data-chat="Chat"]')?.getAttribute('data-status') === 'completed' &&
      !document.querySelector('.tc-ai-message-streaming'),
  );

async function send(text: string) {
  const before = await chat().locator('.tc-ai-message-assistant[data-message]').count();
  await chat().locator('textarea.tc-ai-chat-input').fill(text);
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await served.page.waitForFunction(
    (n) => document.querySelectorAll('.tc-ai-chat[data-chat="Chat"] .tc-ai-message-assistant[data-message]').length > n,
    before,
  );
  await done();
}

/** Wait until the chat shows exactly these user messages, and one reply holding each of `replies`. */
async function shows(users: string[], replies: string[]) {
  await served.page.waitForFunction(
    ({ u, r }) => {
      const of = (role: string) =>
        [...document.querySelectorAll(`.tc-ai-chat[data-chat="Chat"] .tc-ai-message-${role}[data-message] .tc-ai-message-body`)].map(
          (e) => e.textContent ?? '',
        );
      const answers = of('assistant');
      return JSON.stringify(of('user')) === JSON.stringify(u) && answers.length === r.length && r.every((words, i) => answers[i]!.includes(words));
    },
    { u: users, r: replies },
  );
}

/** The words of the mock's default reply to `text` (scripts/mock-llm.cjs). */
const answerTo = (text: string) => `You wrote: ${text}`;

test('edit an earlier message and resend: the chat forks, and the switch on that message goes between the two branches', async () => {
  await served.page.locator('button[data-ai-action="new-chat"]').first().click();
  await chat().waitFor();
  await send('First question');
  await send('Second question');
  const first = chat().locator('.tc-ai-message-user[data-message]').first();

  await first.locator('[data-ai-action="edit-message"]').click();
  const box = first.locator('textarea.tc-ai-message-edit-box');
  expect(await box.inputValue()).toBe('First question');
  expect(await box.getAttribute('aria-label')).toBe('Edit your message');
  await box.fill('Edited question');
  await first.locator('[data-ai-action="edit-send"]').click();
  await shows(['Edited question'], [answerTo('Edited question')]);
  await done();

  const switcher = chat().locator('.tc-ai-message-user[data-message]').first().locator('.tc-ai-branch-switch');
  expect(await switcher.locator('.tc-ai-branch-position').textContent()).toBe('2/2');
  expect(await switcher.getAttribute('aria-label')).toBe('Versions');
  await switcher.getByRole('button', { name: 'Previous version' }).click();
  await shows(['First question', 'Second question'], [answerTo('First question'), answerTo('Second question')]);
  const back = chat().locator('.tc-ai-message-user[data-message]').first().locator('.tc-ai-branch-switch');
  expect(await back.locator('.tc-ai-branch-position').textContent()).toBe('1/2');
  expect(await back.getByRole('button', { name: 'Previous version' }).isDisabled()).toBe(true);
  await back.getByRole('button', { name: 'Next version' }).click();
  await shows(['Edited question'], [answerTo('Edited question')]);
  // The other branch is kept as tiddlers, hidden under $:/ai/branches/.
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[prefix[$:/ai/branches/Chat/]has[agent-seq]]').length)).toBe(4);
});

test('Retry twice keeps each reply as a version: 1/3 2/3 3/3', async () => {
  served.wiki.mock.queue({ text: 'Second version.' });
  served.wiki.mock.queue({ text: 'Third version.' });
  const retry = async () => {
    await chat().locator('[data-ai-action="retry"]').click();
    await done();
  };
  await retry();
  await shows(['Edited question'], ['Second version.']);
  await retry();
  await shows(['Edited question'], ['Third version.']);
  const reply = () => chat().locator('.tc-ai-message-assistant[data-message]').first();
  const position = () => reply().locator('.tc-ai-branch-position').textContent();
  expect(await position()).toBe('3/3');
  await reply().getByRole('button', { name: 'Previous version' }).click();
  await shows(['Edited question'], ['Second version.']);
  expect(await position()).toBe('2/3');
  await reply().getByRole('button', { name: 'Previous version' }).click();
  await shows(['Edited question'], [answerTo('Edited question')]);
  expect(await position()).toBe('1/3');
  await reply().getByRole('button', { name: 'Next version' }).click();
  await shows(['Edited question'], ['Second version.']);
  await reply().getByRole('button', { name: 'Next version' }).click();
  await shows(['Edited question'], ['Third version.']);
  expect(await position()).toBe('3/3');
});

test('Copy message and Copy chat put the words on the clipboard', async () => {
  await chat().locator('.tc-ai-message-user[data-message]').first().locator('[data-ai-action="copy-message"]').click();
  await chat().locator('[data-ai-action="copy-chat"]').click();
  const copied = (await served.page.evaluate(() => (window as any).copied)) as string[];
  expect(copied[0]).toBe('Edited question');
  expect(copied[1]).toBe('**You:**\n\nEdited question\n\n**Assistant:**\n\nThird version.');
  expect(served.errors).toEqual([]);
});
