// Issue 27, item 3 in a real browser (a browser-only wiki: the trigger runs in the page): the
// Background panel's Add trigger form estimates one run's cost and makes a trigger for a chat;
// a user then edits a tiddler the filter selects, and after the debounce the chat runs once,
// its message marked as triggered and naming the changed tiddler; Pause stops it.
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

const served = useServedWiki({ mockDelayMs: 2 });
const page = () => served.page;
const DEMO_AGENT = '$:/demo/agents/offline-demo';
const CHAT = 'Inbox filing chat';

beforeAll(async () => {
  await page().evaluate(
    ([chat, agent]) => {
      const tw = (window as any).$tw;
      tw.wiki.addTiddler({ title: chat, agent, 'agent-status': 'idle', text: '' });
      tw.wiki.addTiddler({ title: 'Idea: a pond', text: 'Maybe by the fence.', tags: 'Inbox' });
    },
    [CHAT, DEMO_AGENT],
  );
});

test('add a trigger in the panel, edit a matching tiddler, and the chat runs once', async () => {
  await page().locator('.tc-sidebar-tabs-main .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/background"]').click();
  await page().locator('.tc-ai-background').waitFor();
  await page().locator('button[data-ai-action="add-trigger-open"]').click();
  const form = page().locator('.tc-ai-bg-trigger-form');
  await form.waitFor();
  await form.locator('select.tc-ai-bg-trigger-chat').selectOption(CHAT);
  await form.locator('.tc-ai-bg-trigger-filter').fill('[tag[Inbox]]');
  await form.locator('.tc-ai-bg-trigger-message').fill('File the new ideas.');
  await form.locator('.tc-ai-bg-trigger-debounce').fill('1');
  // The dry run: the prompt the agent would send now, priced or said to be unpriced; no model is called.
  await form.locator('.tc-ai-bg-trigger-estimate-button').click();
  await page().waitForFunction(() => /prompt tokens to /.test(document.querySelector('.tc-ai-bg-trigger-estimate')?.textContent ?? ''));
  expect(await form.locator('.tc-ai-bg-trigger-estimate').textContent()).toMatch(/\d+ prompt tokens to \S+ as the chat stands now/);
  await form.locator('button[data-ai-action="add-trigger"]').click();
  const added = page().locator('.tc-ai-bg-added');
  await added.waitFor();
  const title = (await added.getAttribute('data-added'))!;
  const item = page().locator(`.tc-ai-background [data-trigger="${title}"]`);
  await item.waitFor();
  expect(await item.locator('.tc-ai-bg-state').textContent()).toMatch(/^Watching/);
  expect(await item.locator('.tc-ai-bg-problem').count()).toBe(0);
  expect(await page().evaluate((c) => (window as any).$tw.wiki.filterTiddlers(`[field:agent-chat[${c}]field:role[user]]`).length, CHAT)).toBe(0);

  // The user edits a matching tiddler in its editor.
  await navigate(page(), 'Idea: a pond');
  const frame = page().locator('.tc-tiddler-frame[data-tiddler-title="Idea: a pond"]');
  await frame.locator('button[class*="Buttons%2Fedit"]').click();
  const edit = page().locator('.tc-tiddler-edit-frame');
  await edit.waitFor();
  // TiddlyWiki's text editor is a textarea, framed in an iframe by default.
  const framed = edit.locator('iframe.tc-edit-texteditor');
  const text = (await framed.count()) ? edit.frameLocator('iframe.tc-edit-texteditor').locator('textarea') : edit.locator('textarea.tc-edit-texteditor');
  await text.fill('A pond by the fence, with frogs.');
  await edit.locator('button[class*="Buttons%2Fsave"]').click();
  await page().waitForFunction(() => (window as any).$tw.wiki.getTiddlerText('Idea: a pond') === 'A pond by the fence, with frogs.');

  // After the debounce the chat runs once, its message marked as triggered, naming the tiddler.
  await page().waitForFunction(
    ([t, c]) => {
      const wiki = (window as any).$tw.wiki;
      return wiki.getTiddler(t)?.fields['trigger-run-count'] === '1' && wiki.getTiddler(c)?.fields['agent-status'] === 'completed';
    },
    [title, CHAT],
    { timeout: 30_000 },
  );
  await navigate(page(), CHAT);
  const woken = page().locator(`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-message-user:has(.tc-ai-message-source)`);
  await woken.waitFor();
  expect(await woken.locator('.tc-ai-message-source').textContent()).toBe('Triggered');
  expect(await woken.locator('.tc-ai-message-body').textContent()).toContain('File the new ideas.');
  expect(await woken.locator('.tc-ai-message-body').textContent()).toContain('Idea: a pond');
  expect(await page().evaluate((c) => (window as any).$tw.wiki.filterTiddlers(`[field:agent-chat[${c}]field:role[user]]`).length, CHAT)).toBe(1);

  // Paused in the panel: a further edit runs nothing.
  await item.locator('.tc-ai-bg-pause').click();
  await page().waitForFunction((t) => (window as any).$tw.wiki.getTiddler(t)?.fields['trigger-enabled'] === 'no', title);
  expect(await item.locator('.tc-ai-bg-state').textContent()).toMatch(/^Paused/);
  await page().evaluate(() => (window as any).$tw.wiki.addTiddler({ title: 'Idea: a pond', text: 'Edited again.', tags: 'Inbox' }));
  // The page delivers the change event on its next task: let it run before looking.
  await page().evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
  expect(await page().evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields['trigger-pending'], title)).toBeUndefined();
  expect(served.errors).toEqual([]);
});
