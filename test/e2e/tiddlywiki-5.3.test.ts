// The single-file plugin in the oldest TiddlyWiki we support, in the browser: TiddlyWiki 5.3.8's
// empty edition (the devDependency "tiddlywiki-5.3"), opened from disk, gets dist/agent.json by
// drag and drop and TiddlyWiki's importer, is saved and opened again; the settings render, New
// chat opens a chat whose reply streams in from the mock LLM, a write waits in an approval card,
// lands on Allow once, and Roll back takes it away. A core older than 5.3.2 gets an alert saying
// so. 5.4.x is first-run.test.ts; in Node, both are test/integration/tiddlywiki-versions.test.ts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { connectBrowser, type MockLlm } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(120_000);

// TIDDLYAGENT_TW53 points at another 5.3 release's package folder (an unpacked `npm pack tiddlywiki@5.3.0`).
const TW = process.env.TIDDLYAGENT_TW53 || path.join(ROOT, 'node_modules', 'tiddlywiki-5.3');
let dir: string;
let mock: MockLlm;
let context: BrowserContext;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-tw53-'));
  execFileSync(process.execPath, [
    path.join(TW, 'tiddlywiki.js'),
    path.join(TW, 'editions', 'empty'),
    '--output',
    dir,
    '--render',
    '$:/core/save/all',
    'empty.html',
    'text/plain',
  ]);
  mock = await startMockLlm({ delayMs: 20 });
  context = await (await connectBrowser()).newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
});

afterAll(async () => {
  await context?.close();
  await mock?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function openFile(file: string): Promise<void> {
  await page?.close();
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
}

const chat = () => page.locator('.tc-story-river .tc-ai-chat').first();
const chatStatus = (status: string) =>
  page.waitForFunction((s) => document.querySelector('.tc-story-river .tc-ai-chat')?.getAttribute('data-status') === s, status);

async function send(text: string): Promise<void> {
  await chat().locator('textarea.tc-ai-chat-input').fill(text);
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
}

test('dragged into a TiddlyWiki 5.3 empty wiki, imported, saved and opened again, the plugin starts', async () => {
  await openFile(path.join(dir, 'empty.html'));
  expect(await page.evaluate(() => (window as any).$tw.version)).toMatch(/^5\.3\./);
  const plugin = fs.readFileSync(path.join(ROOT, 'dist', 'agent.json'), 'utf8');
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], 'agent.json', { type: 'application/json' }));
    const zone = document.querySelector('.tc-dropzone')!;
    for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
  }, plugin);
  const importer = page.locator('.tc-tiddler-frame[data-tiddler-title="$:/Import"]');
  await importer
    .locator('button', { hasText: /^Import$/ })
    .first()
    .click();
  await importer.getByText('The following tiddlers were imported').waitFor();
  // A provider for the mock (no key needed) that new chats use, as the settings would write it.
  await page.evaluate((url) => {
    const wiki = (window as any).$tw.wiki;
    wiki.addTiddler({ title: 'Mock provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': url, 'default-model': 'mock-model' });
    wiki.addTiddler({
      title: 'Helper',
      tags: '$:/tags/AI/Agent',
      caption: 'Helper',
      'agent-provider': 'Mock provider',
      'agent-tools': 'wiki-search wiki-read wiki-create wiki-edit',
    });
    wiki.addTiddler({ title: '$:/config/tiddlyagent/default-agent', text: 'Helper' });
  }, mock.url);
  const download = page.waitForEvent('download');
  await page.locator('.tc-page-controls button[class*="save-wiki"]').click();
  const saved = path.join(dir, 'with-agent.html');
  await (await download).saveAs(saved);
  await openFile(saved);
  expect(await page.evaluate(() => (window as any).$tw.version)).toMatch(/^5\.3\./);
  // The getting-started guide opens by itself; the settings render with the provider.
  await page.locator('.tc-tiddler-frame[data-tiddler-title="$:/plugins/tiddlyagent/agent/getting-started"]').waitFor();
  await page.evaluate(() => new (window as any).$tw.Story({ wiki: (window as any).$tw.wiki }).navigateTiddler('$:/plugins/tiddlyagent/agent/settings'));
  await page.locator('.tc-ai-settings select.tc-ai-settings-default-agent, .tc-ai-settings select.tc-ai-settings-provider-pick').first().waitFor();
  // No alert: this core is new enough.
  expect(await page.locator('.tc-alert').count()).toBe(0);
  expect(errors).toEqual([]);
});

test('New chat, a streamed reply, an approved write and its Roll back in TiddlyWiki 5.3', async () => {
  await page.locator('.tc-page-controls button[data-ai-action="new-chat"]').click();
  await chat().waitFor();
  // The new chat has the default agent this wiki set.
  const title = await chat().getAttribute('data-chat');
  expect(await page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields.agent, title)).toBe('Helper');
  await send('Hello from TiddlyWiki 5.3');
  await chat().locator('.tc-ai-message-streaming .tc-ai-message-body').filter({ hasText: 'Mock reply' }).waitFor();
  await chatStatus('completed');
  expect(await chat().locator('.tc-ai-message-assistant[data-message] strong').first().textContent()).toBe('Mock reply');
  // The chat takes a title of its own after its first turn (a side request to the model).
  await page.waitForFunction(() => !/^Chat( \d+)?$/.test(document.querySelector('.tc-story-river .tc-ai-chat')?.getAttribute('data-chat') ?? 'Chat'));

  await send('mock:tool=wiki-create {"title":"Note from 5.3","text":"Written after approval"}');
  const card = chat().locator('.tc-ai-approval');
  await card.waitFor();
  await chatStatus('input-required');
  expect(await card.locator('.tc-ai-approval-changes .tc-ai-diff-text').textContent()).toBe('Written after approval');
  await card.locator('button[data-ai-action="approve-once"]').click();
  await chatStatus('completed');
  expect(await page.evaluate(() => (window as any).$tw.wiki.getTiddlerText('Note from 5.3'))).toBe('Written after approval');

  await chat().locator('.tc-ai-turn-actions').last().locator('button[data-ai-action="rollback"]').click();
  await chat().locator('.tc-ai-turn-rolled-back').waitFor();
  expect(await page.evaluate(() => (window as any).$tw.wiki.tiddlerExists('Note from 5.3'))).toBe(false);
  expect(errors).toEqual([]);
});

test('in a TiddlyWiki older than 5.3.2 the plugin says so in an alert, naming both versions', async () => {
  // The same saved wiki, its core claiming 5.3.1 (a page takes $tw.version from this meta tag).
  const html = fs.readFileSync(path.join(dir, 'with-agent.html'), 'utf8');
  const older = html.replace(/(<meta name="tiddlywiki-version" content=")[^"]*"/, (_, start) => `${start}5.3.1"`);
  expect(older).not.toBe(html);
  fs.writeFileSync(path.join(dir, 'older.html'), older);
  await openFile(path.join(dir, 'older.html'));
  expect(await page.evaluate(() => (window as any).$tw.version)).toBe('5.3.1');
  await page.locator('.tc-alert', { hasText: 'TiddlyAgent needs TiddlyWiki 5.3.2 or later; this wiki runs TiddlyWiki 5.3.1.' }).waitFor();
});
