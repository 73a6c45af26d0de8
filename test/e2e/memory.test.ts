// Memory you review (issue 27, item 2) in a real browser: the mock model proposes a fact with
// `remember`; it waits under the chat in a review list, where the user edits it and accepts it;
// a new chat of the same agent sends it to the model as data, lists it under the reply and in
// Show prompt with its tokens; once it expires, it is no longer sent. In a browser-only wiki, and
// in the server edition (turns run on the server; the proposal reaches the page by push, the
// user's review reaches the server by the syncer).
import { navigate, until, useServedWiki, waitForSync, type Edition, type ServedWikiSession } from '../helpers/e2e';

jest.setTimeout(60_000);

let served: ServedWikiSession;
const AGENT = '$:/demo/agents/offline-demo';
const chatBox = (title: string) => served.page.locator(`.tc-ai-chat[data-chat="${title}"]`);
const systemOf = (request: any): string =>
  request.body.messages
    .filter((m: { role: string }) => m.role === 'system')
    .map((m: { content: string }) => String(m.content))
    .join('\n');

async function send(title: string, text: string): Promise<any> {
  const before = served.wiki.mock.requests.length;
  await chatBox(title).locator('textarea.tc-ai-chat-input').fill(text);
  await chatBox(title).locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await until(() => served.wiki.mock.requests.length > before, 'the request');
  await served.page.waitForFunction((t) => document.querySelector(`.tc-ai-chat[data-chat="${t}"]`)?.getAttribute('data-status') === 'completed', title);
  return served.wiki.mock.requests[before];
}

async function newChat(title: string): Promise<void> {
  await served.page.evaluate(([t, agent]) => (window as any).$tw.wiki.addTiddler({ title: t, agent, 'agent-status': 'idle', text: '' }), [title, AGENT]);
  await waitForSync(served.page);
  await navigate(served.page, title);
  await chatBox(title).waitFor();
}

function walk(edition: Edition): void {
  describe(`the ${edition} edition`, () => {
    const session = useServedWiki({ mockDelayMs: 1, edition });
    beforeAll(() => {
      served = session;
    });
    test(
      'a proposed memory is edited and accepted under the chat, then given to the next chat as data, shown under its reply and in Show prompt, until it expires',
      proposeAcceptUseExpire,
    );
  });
}

walk('browser');
walk('server');

async function proposeAcceptUseExpire(): Promise<void> {
  await navigate(served.page, 'Demo chat');
  served.wiki.mock.queue([{ toolCalls: [{ name: 'remember', arguments: { fact: 'The user keeps bees.' } }] }]);
  await send('Demo chat', 'I keep bees in the garden.');

  // The proposal waits under the chat; it is in no prompt yet.
  const review = served.page.locator('.tc-ai-memory-review');
  await review.waitFor();
  const card = review.locator('.tc-ai-memory-card');
  expect(await card.count()).toBe(1);
  const text = card.locator('textarea.tc-ai-memory-text');
  expect(await text.inputValue()).toBe('The user keeps bees.');
  const memory = (await card.getAttribute('data-memory'))!;
  expect(await served.page.evaluate((m) => (window as any).$tw.wiki.getTiddler(m).fields['memory-status'], memory)).toBe('proposed');

  // Edit before accepting, then accept: the review list is empty again. Typing changes nothing
  // saved (no save per keystroke); Accept writes the edited fact once.
  const fact = () => served.page.evaluate((m) => (window as any).$tw.wiki.getTiddler(m).fields.text, memory);
  // An emptied box cannot be accepted (nor accepted as the old text).
  await text.fill('   ');
  await card.locator('button.tc-ai-memory-accept[disabled]').waitFor();
  await text.fill('The user keeps two hives of bees.');
  expect(await card.locator('button.tc-ai-memory-accept').isEnabled()).toBe(true);
  expect(await fact()).toBe('The user keeps bees.');
  await card.locator('button.tc-ai-memory-accept').click();
  await review.waitFor({ state: 'detached' });
  await waitForSync(served.page);
  expect(await served.page.evaluate((m) => (window as any).$tw.wiki.getTiddler(m).getFieldStrings(), memory)).toMatchObject({
    text: 'The user keeps two hives of bees.',
    'memory-status': 'accepted',
  });

  // A new chat of the same agent: the model gets it as quoted data; the reply lists it; Show prompt has its section.
  await newChat('Bee chat');
  const request = await send('Bee chat', 'What do I keep?');
  expect(systemOf(request)).toContain('<user_memories>');
  expect(systemOf(request)).toContain('- "The user keeps two hives of bees."');
  const chip = chatBox('Bee chat').locator('.tc-ai-message-assistant .tc-ai-message-memories .tc-ai-memory-chip');
  await chip.waitFor();
  expect(await chip.textContent()).toBe('The user keeps two hives of bees.');
  await chatBox('Bee chat').locator('.tc-ai-prompt-show').click();
  const section = chatBox('Bee chat').locator('.tc-ai-prompt-preview:not([hidden]) .tc-ai-prompt-section[data-section="memories"]');
  await section.waitFor();
  expect(await section.locator('summary').textContent()).toMatch(/^Memories · \d+ tokens · 1$/);

  // In the settings' list, an accepted memory is edited the same way: Save writes it, Cancel puts the text back.
  await navigate(served.page, '$:/plugins/tiddlyagent/agent/settings/memories');
  const kept = served.page.locator(
    `.tc-tiddler-frame[data-tiddler-title="$:/plugins/tiddlyagent/agent/settings/memories"] .tc-ai-memory-card[data-memory="${memory}"]`,
  );
  await kept.locator('textarea.tc-ai-memory-text').fill('');
  await kept.locator('button.tc-ai-memory-save[disabled]').waitFor();
  await kept.locator('textarea.tc-ai-memory-text').fill('The user keeps three hives of bees.');
  expect(await fact()).toBe('The user keeps two hives of bees.');
  await kept.locator('button.tc-ai-memory-cancel').click();
  await served.page.waitForFunction(
    (m) =>
      (document.querySelector(`.tc-ai-memory-card[data-memory="${m}"] textarea.tc-ai-memory-text`) as HTMLTextAreaElement | null)?.value ===
      'The user keeps two hives of bees.',
    memory,
  );
  expect(await kept.locator('button.tc-ai-memory-save').count()).toBe(0);
  await kept.locator('textarea.tc-ai-memory-text').fill('The user keeps three hives of bees.');
  await kept.locator('button.tc-ai-memory-save').click();
  await served.page.waitForFunction((m) => (window as any).$tw.wiki.getTiddler(m).fields.text === 'The user keeps three hives of bees.', memory);
  await kept.locator('.tc-ai-memory-status').waitFor();
  await waitForSync(served.page);
  const next = await send('Bee chat', 'How many hives?');
  expect(systemOf(next)).toContain('- "The user keeps three hives of bees."');

  // Expired (the user set a date that has passed): no longer sent.
  await served.page.evaluate((m) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler(m), { 'memory-expires': '2020-01-01' }));
  }, memory);
  await waitForSync(served.page);
  await newChat('Bee chat two');
  const later = await send('Bee chat two', 'And now?');
  expect(systemOf(later)).not.toContain('bees');
  expect(await chatBox('Bee chat two').locator('.tc-ai-message-memories').count()).toBe(0);
  expect(served.errors).toEqual([]);
}
