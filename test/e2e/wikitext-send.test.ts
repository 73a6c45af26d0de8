// The wikitext API in a real browser against the served demo wiki: a button in a tiddler's body
// with <$action-ai-send> starts a chat with that tiddler attached and the reply arrives (turns in
// the page, and on the server in the server edition); a tm-ai-send button sends into an existing
// chat; a send while a turn runs waits in the chat's queue and is answered after it.
import type { Page } from 'playwright-core';
import { navigate, until, useServedWiki, waitForSync, type Edition } from '../helpers/e2e';

jest.setTimeout(60_000);

const NOTE = 'Trip notes';
const NOTE_TEXT = 'Pack the pomegranate seeds before Friday.';
const SUMMARIZE = `${NOTE_TEXT}\n\n<$button class="summarize-button"><$action-ai-send message="Summarize this tiddler" attachments=<<currentTiddler>>/>Summarize this tiddler</$button>`;

const chatSelector = (title: string) => `.tc-ai-chat[data-chat="${title}"]`;

/** Add a tiddler in the page (as the user's own edit would) and open it. */
async function addAndOpen(page: Page, title: string, text: string): Promise<void> {
  await page.evaluate(([t, x]) => (window as any).$tw.wiki.addTiddler({ title: t, text: x }), [title, text]);
  await navigate(page, title);
}

/** What the page's wiki holds, by filter. */
const filter = (page: Page, expression: string) => page.evaluate((f) => (window as any).$tw.wiki.filterTiddlers(f) as string[], expression);

describe.each(['browser', 'server'] as Edition[])('%s edition', (edition) => {
  const served = useServedWiki({ mockDelayMs: 2, edition });

  test('a "Summarize this tiddler" button starts a chat with the tiddler attached; the reply arrives', async () => {
    await addAndOpen(served.page, NOTE, SUMMARIZE);
    if (edition === 'server') await waitForSync(served.page);
    const before = new Set(await filter(served.page, '[has[agent]]'));
    await served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${NOTE}"] button.summarize-button`).click();
    // The new chat opens in the story river, with the user's message and its chip.
    const chat = served.page
      .locator('.tc-story-river .tc-ai-chat')
      .filter({ has: served.page.locator('.tc-ai-message-user', { hasText: 'Summarize this tiddler' }) });
    await chat.locator(`.tc-ai-message-user .tc-ai-chip[data-title="${NOTE}"]`).waitFor();
    await chat.locator('.tc-ai-message-assistant[data-message]', { hasText: 'Mock reply' }).waitFor();
    // After its first turn the new chat takes its automatic title (the mock's: "Chat about" and the first words).
    await served.page.locator('.tc-story-river .tc-ai-chat[data-chat="Chat about Summarize this tiddler"]').waitFor();
    const made = (await filter(served.page, '[has[agent]]')).filter((t) => !before.has(t));
    expect(made).toHaveLength(1);
    expect(await chat.getAttribute('data-chat')).toBe(made[0]);
    // The model got the tiddler's text with the message.
    expect(served.wiki.mock.requests.some((r: { body?: unknown }) => JSON.stringify(r.body).includes('Pack the pomegranate seeds'))).toBe(true);
    // The chats of the note, by the filter operator.
    expect(await filter(served.page, `[[${NOTE}]aichats[]]`)).toEqual(made);
    expect(served.errors).toEqual([]);
  });
});

describe('tm-ai-send and the queue', () => {
  const served = useServedWiki({ mockDelayMs: 2 });

  const sendButton = (cls: string, message: string) =>
    `<$button class="${cls}"><$action-sendmessage $message="tm-ai-send" chat="Demo chat" message="${message}" attachments="[[Demo notes]]"/>Send</$button>`;

  test('a tm-ai-send button sends into an existing chat, with a tiddler attached', async () => {
    await addAndOpen(served.page, 'Message buttons', sendButton('hello-button', 'Hello from a message'));
    await navigate(served.page, 'Demo chat');
    const chat = served.page.locator(chatSelector('Demo chat'));
    await chat.waitFor();
    await served.page.locator('button.hello-button').click();
    await chat.locator('.tc-ai-message-user', { hasText: 'Hello from a message' }).locator('.tc-ai-chip[data-title="Demo notes"]').waitFor();
    await chat.locator('.tc-ai-message-assistant[data-message]', { hasText: 'Hello from a message' }).waitFor();
    expect(await filter(served.page, '[[Demo chat]aimessages[user]get[text]]')).toEqual(['Hello from a message']);
    expect(served.errors).toEqual([]);
  });

  test("the manual chapter's example button works, and its list of chats about the chapter shows the new chat", async () => {
    const CHAPTER = 'TiddlyAgent Manual: Wikitext API';
    await navigate(served.page, CHAPTER);
    const frame = served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${CHAPTER}"]`);
    await frame.locator('button', { hasText: 'Summarize this tiddler' }).click();
    const chat = served.page.locator('.tc-story-river .tc-ai-chat').filter({ has: served.page.locator(`.tc-ai-chip[data-title="${CHAPTER}"]`) });
    await chat.locator('.tc-ai-message-assistant[data-message]', { hasText: 'Mock reply' }).waitFor();
    const title = (await chat.getAttribute('data-chat'))!;
    await frame.locator('a.tc-tiddlylink', { hasText: title }).waitFor();
    expect(served.errors).toEqual([]);
  });

  test('a send while a turn runs waits in the queue and is answered after it', async () => {
    let release!: () => void;
    served.wiki.mock.queue({ text: 'The held answer', hold: new Promise<void>((resolve) => (release = resolve)) });
    await addAndOpen(served.page, 'Queue buttons', `${sendButton('first-button', 'First in line')}\n\n${sendButton('second-button', 'Second in line')}`);
    const chat = served.page.locator(chatSelector('Demo chat'));
    const requests = served.wiki.mock.requests.length;
    await served.page.locator('button.first-button').click();
    await until(() => served.wiki.mock.requests.length > requests, 'the first request');
    await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'working');
    await served.page.locator('button.second-button').click();
    await chat.locator('.tc-ai-chat-queued .tc-ai-message-queued', { hasText: 'Second in line' }).waitFor();
    release();
    await chat.locator('.tc-ai-message-assistant[data-message]', { hasText: 'Second in line' }).waitFor();
    await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
    const order = await served.page.evaluate(() => {
      const tw = (window as any).$tw;
      return (tw.wiki.filterTiddlers('[[Demo chat]aimessages[]]') as string[])
        .map((t) => tw.wiki.getTiddler(t).fields)
        .map((f: { role: string; text: string }) => `${f.role}: ${f.text.slice(0, 40)}`);
    });
    const tail = order.slice(-4);
    expect(tail[0]).toBe('user: First in line');
    expect(tail[1]).toBe('assistant: The held answer');
    expect(tail[2]).toBe('user: Second in line');
    expect(tail[3]).toMatch(/^assistant: ''Mock reply''/);
    expect(served.errors).toEqual([]);
  });
});
