// A chat opened while a reply streams starts from the text streamed so far (the event bus's
// snapshot) and then follows the stream, instead of showing nothing until the reply is saved.
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const served = useServedWiki({ mockDelayMs: 5 });

test('a second view of the chat, opened mid-reply, shows the partial reply and then the whole one', async () => {
  await navigate(served.page, 'Demo chat');
  const first = served.page.locator('.tc-ai-chat[data-chat="Demo chat"]').first();
  const words = Array.from({ length: 160 }, (_, i) => `word${i}`).join(' ');
  // The reply pauses (the mock's pauseAt, in words) until the second view has shown it streaming.
  let resume!: () => void;
  served.wiki.mock.queue({ text: `''Long'' reply: ${words}`, delayMs: 8, pauseAt: 30, resume: new Promise<void>((r) => (resume = r)) });
  await first.locator('textarea.tc-ai-chat-input').fill('Write a long reply');
  await first.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await first.locator('.tc-ai-message-streaming').waitFor();
  // Some text has arrived; now another tiddler embeds the same chat.
  await served.page.waitForFunction(() => (document.querySelector('.tc-ai-message-streaming')?.textContent ?? '').length > 40);
  await served.page.evaluate(() => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({ title: 'Chat elsewhere', text: '<$ai-chat chat="Demo chat"/>' });
    new tw.Story({ wiki: tw.wiki }).navigateTiddler('Chat elsewhere');
  });
  const second = served.page.locator('[data-tiddler-title="Chat elsewhere"] .tc-ai-chat');
  await second.locator('.tc-ai-message-streaming').waitFor();
  await served.page.waitForFunction(
    () => (document.querySelector('[data-tiddler-title="Chat elsewhere"] .tc-ai-message-streaming')?.textContent ?? '').length > 40,
  );
  expect(await second.getAttribute('data-status')).toBe('working');
  resume();
  // Both views end with the same saved reply.
  await served.page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Demo chat"][data-status="completed"]').length === 2);
  const replies = await served.page.locator('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-assistant[data-message]').allTextContents();
  expect(replies.length).toBe(2);
  expect(replies[0]).toBe(replies[1]);
  expect(served.errors).toEqual([]);
});
