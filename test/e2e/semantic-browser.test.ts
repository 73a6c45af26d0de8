// Search by meaning in a browser-only wiki, in a real browser: the user picks the embedding
// model in the settings and presses Start; the page embeds the wiki against the mock's
// deterministic /v1/embeddings and keeps the vectors in IndexedDB (never a tiddler); the agent's
// wiki-search by meaning finds the tiddler. After a reload the page goes on from IndexedDB
// without embedding the wiki again, and a stored index that is damaged is rebuilt, not trusted.
import type { Page } from 'playwright-core';
import { navigate, openWiki, useServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

const served = useServedWiki({ mockDelayMs: 1, providerFields: { 'embedding-model': 'mock-embedding' }, open: false });

const STATUS = '$:/temp/tiddlyagent/semantic-index';
const state = (page: Page) => page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields as Record<string, string> | undefined, STATUS);
const embeddedTexts = (): string[] =>
  served.wiki.mock.requests.filter((r: { path: string }) => r.path.endsWith('/embeddings')).flatMap((r: { body: { input: string[] } }) => r.body.input);
const ready = (page: Page) => page.waitForFunction((t) => (window as any).$tw.wiki.getTiddler(t)?.fields.state === 'ready', STATUS, { timeout: 30_000 });

test('Start in the settings, a search by meaning, a reload that goes on from IndexedDB, a damaged store rebuilt', async () => {
  const { context, page, errors } = await openWiki(served.wiki);
  const titles = () => page.evaluate(() => (window as any).$tw.wiki.allTitles() as string[]);
  const before = new Set(await titles());
  await navigate(page, '$:/plugins/tiddlyagent/agent/settings');
  await page.locator('.tc-ai-settings-tabs button[data-tab-title="$:/plugins/tiddlyagent/agent/settings/search"]').click();
  const select = page
    .locator('select')
    .filter({ has: page.locator('option', { hasText: 'mock-embedding' }) })
    .first();
  await select.selectOption({ value: '$:/demo/providers/mock-llm' });
  await page.locator('button.tc-ai-semantic-start').click();
  await ready(page);
  expect(await state(page)).toMatchObject({ model: 'mock-embedding', where: 'IndexedDB in this browser' });
  expect(embeddedTexts().some((t) => t.startsWith('Welcome to TiddlyAgent'))).toBe(true);
  // No vector ever becomes a tiddler: the only new tiddlers are the two settings and the progress.
  const added = (await titles()).filter((t) => !before.has(t) && !/^\$:\/(StoryList|HistoryList|state\/)/.test(t));
  expect(added.sort()).toEqual(['$:/config/tiddlyagent/semantic/enabled', '$:/config/tiddlyagent/semantic/profile', STATUS]);

  await navigate(page, 'Demo chat');
  const chat = page.locator('.tc-ai-chat[data-chat="Demo chat"]');
  await chat.locator('textarea.tc-ai-chat-input').fill('mock:tool=wiki-search {"query":"connect a real provider with an API key","mode":"semantic"}');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await page.waitForFunction(() => (window as any).$tw.wiki.filterTiddlers('[field:agent-chat[Demo chat]tool-name[wiki-search]]').length > 0);
  const result = await page.evaluate(() => {
    const w = (window as any).$tw.wiki;
    return w.getTiddlerText(w.filterTiddlers('[field:agent-chat[Demo chat]tool-name[wiki-search]]').at(-1));
  });
  expect(result).toContain('by meaning');
  expect(result).toContain('title="Welcome to TiddlyAgent"');

  // A reload goes on from IndexedDB: the wiki is not embedded again.
  served.wiki.mock.reset();
  await page.reload({ waitUntil: 'domcontentloaded' });
  await ready(page);
  expect(embeddedTexts().filter((t) => t.startsWith('Welcome to TiddlyAgent'))).toEqual([]);

  // A damaged store is not trusted: it is rebuilt, and the status says why.
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('tiddlyagent-vectors', 1);
        open.onsuccess = () => {
          const tx = open.result.transaction('indexes', 'readwrite');
          const store = tx.objectStore('indexes');
          const all = store.getAllKeys();
          all.onsuccess = () => {
            for (const key of all.result) store.put(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]).buffer, key);
          };
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        };
        open.onerror = () => reject(open.error);
      }),
  );
  served.wiki.mock.reset();
  await page.reload({ waitUntil: 'domcontentloaded' });
  await ready(page);
  expect((await state(page))!.note).toMatch(/rebuilt|damaged|not a|too short/i);
  expect(embeddedTexts().some((t) => t.startsWith('Welcome to TiddlyAgent'))).toBe(true);
  expect(errors).toEqual([]);
  await context.close();
});
