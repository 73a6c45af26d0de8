// The Chats tab in a real browser, as a user works with it: each chat's agent, search by title
// and by message words, filters by agent and by status, rename (an open chat follows it; a
// system title is refused with a clear message), archive and unarchive, delete to the bin,
// restore and delete forever, New chat with a chosen agent, and the automatic title after a
// chat's first turn.
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const DEMO_AGENT = '$:/demo/agents/offline-demo';
const RESEARCHER = '$:/plugins/tiddlyagent/agent/agents/researcher';

const tab = () => served.page.locator('.tc-ai-sidebar-chats');
const item = (chat: string) => tab().locator(`.tc-ai-chats-item[data-chat="${chat}"]`);
const listed = () =>
  tab()
    .locator('.tc-ai-chats-item')
    .evaluateAll((items) => items.map((i) => i.getAttribute('data-chat')));
const fields = (title: string) => served.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.getFieldStrings() ?? null, title);

async function showOnly(expected: string[]): Promise<void> {
  const shown = served.page.waitForFunction(
    (want) =>
      JSON.stringify([...document.querySelectorAll('.tc-ai-sidebar-chats .tc-ai-chats-item')].map((i) => i.getAttribute('data-chat'))) === JSON.stringify(want),
    expected,
    { timeout: 5000 },
  );
  await shown.catch(async () => expect(await listed()).toEqual(expected));
}

async function manage(chat: string, action: string): Promise<void> {
  if ((await item(chat).locator('.tc-ai-chats-actions').count()) === 0) await item(chat).locator('button.tc-ai-chats-manage').click();
  await item(chat).locator(`button.tc-ai-chats-${action}`).click();
}

const served = useServedWiki({ mockDelayMs: 5 });

beforeAll(async () => {
  await served.page.evaluate(
    ([demo, researcher]) => {
      const tw = (window as any).$tw;
      const chat = (title: string, agent: string, status: string, modified: string, words: string) => {
        tw.wiki.addTiddler({ title, agent, 'agent-status': status, modified, text: '' });
        tw.wiki.addTiddler({ title: `$:/ai/messages/${title}/000000`, 'agent-chat': title, 'agent-seq': '0', role: 'user', text: words });
      };
      chat('Garden chat', demo!, 'completed', '20260103000000000', 'How deep do I sow pomegranate seeds?');
      chat('Research chat', researcher!, 'idle', '20260102000000000', 'Find the notes about bees');
      chat('Broken chat', demo!, 'failed', '20260101000000000', 'This one failed');
      // The demo's own chat is out of the way: archived.
      tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler('Demo chat'), { 'agent-archived': 'yes' }));
    },
    [DEMO_AGENT, RESEARCHER],
  );
  await served.page.locator('.tc-sidebar-tabs-main > .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/chats"]').click();
  await tab().waitFor();
});

test("the tab lists chats newest first with each chat's agent, and searches titles and messages", async () => {
  await showOnly(['Garden chat', 'Research chat', 'Broken chat']);
  expect(await item('Research chat').locator('.tc-ai-chats-agent-name').textContent()).toBe('Researcher (read-only)');
  expect(await item('Garden chat').locator('.tc-ai-chats-agent-name').textContent()).toBe('Offline demo assistant (mock LLM)');
  // A word only a message holds, then a word of a title.
  await tab().locator('input.tc-ai-chats-search').fill('pomegranate');
  await showOnly(['Garden chat']);
  await tab().locator('input.tc-ai-chats-search').fill('research');
  await showOnly(['Research chat']);
  await tab().locator('input.tc-ai-chats-search').fill('nothing like this');
  await tab().locator('.tc-ai-chats-empty').filter({ hasText: 'No chat matches.' }).waitFor();
  await tab().locator('input.tc-ai-chats-search').fill('');
  await showOnly(['Garden chat', 'Research chat', 'Broken chat']);
});

test('filters by agent and by status', async () => {
  await tab().locator('select.tc-ai-chats-agent').selectOption(RESEARCHER);
  await showOnly(['Research chat']);
  await tab().locator('select.tc-ai-chats-agent').selectOption('');
  await tab().locator('select.tc-ai-chats-view').selectOption('failed');
  await showOnly(['Broken chat']);
  await tab().locator('select.tc-ai-chats-view').selectOption('active');
  await showOnly(['Garden chat', 'Research chat', 'Broken chat']);
});

test('rename moves the chat and its messages; the open chat follows; a system title is refused', async () => {
  await navigate(served.page, 'Garden chat');
  await served.page.locator('.tc-ai-chat[data-chat="Garden chat"]').waitFor();
  await item('Garden chat').locator('button.tc-ai-chats-manage').click();
  await item('Garden chat').locator('input.tc-ai-chats-rename-input').fill('$:/core/ui/PageTemplate');
  await item('Garden chat').locator('button.tc-ai-chats-rename').click();
  await item('Garden chat').locator('[role="alert"]').filter({ hasText: 'is a system title' }).waitFor();
  await item('Garden chat').locator('input.tc-ai-chats-rename-input').fill('Seed chat');
  await item('Garden chat').locator('button.tc-ai-chats-rename').click();
  await item('Seed chat').waitFor();
  expect(await fields('Garden chat')).toBeNull();
  expect((await fields('$:/ai/messages/Seed chat/000000'))?.['agent-chat']).toBe('Seed chat');
  await served.page.locator('.tc-story-river .tc-ai-chat[data-chat="Seed chat"]').waitFor();
  await served.page.locator('.tc-story-river [data-tiddler-title="Garden chat"]').waitFor({ state: 'detached' });
});

test('archive hides a chat but under Archived; unarchive brings it back', async () => {
  await manage('Research chat', 'archive');
  await showOnly(['Seed chat', 'Broken chat']);
  await tab().locator('select.tc-ai-chats-view').selectOption('archived');
  await showOnly(['Demo chat', 'Research chat']);
  await manage('Research chat', 'unarchive');
  await showOnly(['Demo chat']);
  await tab().locator('select.tc-ai-chats-view').selectOption('active');
  await showOnly(['Seed chat', 'Research chat', 'Broken chat']);
});

test('delete puts a chat in the bin with its messages; restore brings it back; delete forever removes it all', async () => {
  await manage('Broken chat', 'delete');
  await showOnly(['Seed chat', 'Research chat']);
  expect((await fields('$:/ai/messages/Broken chat/000000'))?.text).toBe('This one failed');
  await tab().locator('select.tc-ai-chats-view').selectOption('deleted');
  await showOnly(['Broken chat']);
  await manage('Broken chat', 'restore');
  await tab().locator('.tc-ai-chats-empty').waitFor();
  await tab().locator('select.tc-ai-chats-view').selectOption('active');
  await showOnly(['Seed chat', 'Research chat', 'Broken chat']);
  await manage('Broken chat', 'delete');
  await tab().locator('select.tc-ai-chats-view').selectOption('deleted');
  await manage('Broken chat', 'delete-forever');
  await tab().locator('.tc-ai-chats-empty').waitFor();
  expect(await fields('Broken chat')).toBeNull();
  expect(await fields('$:/ai/messages/Broken chat/000000')).toBeNull();
  await tab().locator('select.tc-ai-chats-view').selectOption('active');
});

test("every control of the tab has an accessible name; Manage switches a chat's agent", async () => {
  // Open since the archive test; closed and opened again by the keyboard-reachable button.
  await item('Research chat').locator('button.tc-ai-chats-manage[aria-expanded="true"]').click();
  await item('Research chat').locator('.tc-ai-chats-actions').waitFor({ state: 'detached' });
  await item('Research chat').locator('button.tc-ai-chats-manage[aria-expanded="false"]').click();
  await item('Research chat').locator('.tc-ai-chats-actions').waitFor();
  const unnamed = await tab().evaluate((root) =>
    [...root.querySelectorAll(':is(button, input, select, a)')]
      .filter((e) => (e as HTMLElement).checkVisibility())
      .filter((e) => !(e.getAttribute('aria-label')?.trim() || e.textContent?.trim() || e.getAttribute('title')?.trim() || e.closest('label')))
      .map((e) => e.outerHTML.slice(0, 80)),
  );
  expect(unnamed).toEqual([]);
  expect(await item('Research chat').locator('button.tc-ai-chats-manage').getAttribute('aria-expanded')).toBe('true');
  await item('Research chat').locator('select.tc-ai-chats-switch-agent').selectOption(DEMO_AGENT);
  await served.page.waitForFunction(() => (window as any).$tw.wiki.getTiddler('Research chat').fields.agent === '$:/demo/agents/offline-demo');
  await item('Research chat').locator('.tc-ai-chats-agent-name').filter({ hasText: 'Offline demo assistant (mock LLM)' }).waitFor();
});

test('New chat starts a chat with the chosen agent; after its first turn it takes a title', async () => {
  await tab().locator('select.tc-ai-chats-new-agent').selectOption(RESEARCHER);
  await tab().locator('button.tc-ai-chats-new').click();
  await served.page.locator('.tc-ai-chat[data-chat="Chat"]').waitFor();
  expect((await fields('Chat'))?.agent).toBe(RESEARCHER);
  await tab().locator('select.tc-ai-chats-new-agent').selectOption(DEMO_AGENT);
  await tab().locator('button.tc-ai-chats-new').click();
  const fresh = served.page.locator('.tc-ai-chat[data-chat="Chat 1"]');
  await fresh.waitFor();
  expect((await fields('Chat 1'))?.agent).toBe(DEMO_AGENT);
  await fresh.locator('textarea.tc-ai-chat-input').fill('Plan my vegetable garden please');
  await fresh.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  // The mock's title: "Chat about" and the first three words of the message.
  const titled = served.page.locator('.tc-story-river .tc-ai-chat[data-chat="Chat about Plan my vegetable"]');
  await titled.locator('.tc-ai-message-assistant[data-message]').waitFor();
  expect(await titled.locator('.tc-ai-message[data-message]').count()).toBe(2);
  await item('Chat about Plan my vegetable').waitFor();
  expect(await fields('Chat 1')).toBeNull();
  expect(await listed()).toContain('Chat about Plan my vegetable');
  expect(served.errors).toEqual([]);
});
