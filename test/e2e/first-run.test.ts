// A first run with no repository, as a TiddlyWiki user has it: an empty single-file wiki
// (TiddlyWiki's own empty edition, opened from disk) gets the built plugin by dragging
// dist/agent.json onto it, or from the plugin library (dist/library/, served on loopback) through
// Control Panel → Plugins → Get more plugins; the user saves and opens the wiki again. The
// getting-started guide opens by itself (once), leads to the settings, the user adds a provider
// for the mock LLM (no key needed), tests it, keeps its models, saves, makes new chats use it,
// and the first reply arrives. The same provider, told it needs a key it does not have, fails
// Test the connection with the very words the chat then fails with, and the chat's error opens
// that provider's settings. Screenshots of the guide and the provider settings (desktop, 360 px,
// SpartanNight) go to output/i24-setup/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { connectBrowser, type MockLlm } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');
const { serveLibrary } = require('../../scripts/serve-library.cjs');

jest.setTimeout(180_000);

const GUIDE = '$:/plugins/tiddlyagent/agent/getting-started';
const PROFILE = '$:/tiddlyagent/providers/New provider';
const SHOTS = path.join(ROOT, 'output', 'i24-setup');
let dir: string;
let emptyWiki: string;
let mock: MockLlm;
let library: { url: string; libraryUrl: string; close(): Promise<void> };
let context: BrowserContext;
let errors: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-first-run-'));
  // The empty wiki a user downloads from tiddlywiki.com: TiddlyWiki's empty edition, rendered by TiddlyWiki.
  const tiddlywiki = path.join(ROOT, 'node_modules', 'tiddlywiki');
  execFileSync(process.execPath, [
    path.join(tiddlywiki, 'tiddlywiki.js'),
    path.join(tiddlywiki, 'editions', 'empty'),
    '--output',
    dir,
    '--render',
    '$:/core/save/all',
    'empty.html',
    'text/plain',
  ]);
  emptyWiki = path.join(dir, 'empty.html');
  mock = await startMockLlm({ delayMs: 5 });
  library = await serveLibrary({ port: 0 });
  context = await (await connectBrowser()).newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await context?.close();
  await library?.close();
  await mock?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Open a wiki file in a new page (the one before is closed: a single-file wiki lives in its file). */
async function openFile(file: string, previous?: Page): Promise<Page> {
  await previous?.close();
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  // The confirmations a user answers with OK (Remove a provider…).
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(pathToFileURL(file).href, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  return page;
}

/** Drop data on the wiki, as dragging a file or a link onto the page does, and press Import. */
async function dropAndImport(page: Page, drop: { file?: { name: string; text: string }; tiddler?: string }): Promise<void> {
  await page.evaluate(({ file, tiddler }) => {
    const data = new DataTransfer();
    if (file) data.items.add(new File([file.text], file.name, { type: 'application/json' }));
    if (tiddler) data.setData('text/vnd.tiddler', tiddler);
    const zone = document.querySelector('.tc-dropzone')!;
    for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
  }, drop);
  const importer = page.locator('.tc-tiddler-frame[data-tiddler-title="$:/Import"]');
  const importButton = importer.locator('button', { hasText: /^Import$/ }).first();
  const imported = importer.getByText('The following tiddlers were imported');
  // A click that lands while TiddlyWiki re-renders the import list can be lost (once in a loaded
  // CI run): press Import again while it is still offered, as a user would.
  await importButton.waitFor();
  for (let attempt = 1; ; attempt++) {
    if (await importButton.isVisible()) await importButton.click();
    try {
      await imported.waitFor({ timeout: 10_000 });
      return;
    } catch (error) {
      if (attempt === 6) {
        const state = await page.evaluate(() => (window as any).$tw.wiki.getTiddler('$:/Import')?.fields.status);
        throw new Error(`the import did not finish ($:/Import status ${state}; page errors: ${errors.join('; ') || 'none'}): ${error}`);
      }
    }
  }
}

/** Save the wiki (TiddlyWiki's download saver, in a page opened from disk) and open the saved file. */
async function saveAndReopen(page: Page, name: string): Promise<Page> {
  const download = page.waitForEvent('download');
  await page.locator('.tc-page-controls button[class*="save-wiki"]').click();
  const file = path.join(dir, name);
  await (await download).saveAs(file);
  return openFile(file, page);
}

const guide = (page: Page) => page.locator(`.tc-tiddler-frame[data-tiddler-title="${GUIDE}"]`);
const setup = (page: Page) => page.locator(`.tc-ai-settings-provider[data-provider="${PROFILE}"]`);
const result = (page: Page) => setup(page).locator('.tc-ai-provider-result:not([data-ok="testing"])');
const profile = (page: Page) => page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields, PROFILE);

async function testConnection(page: Page): Promise<void> {
  await page.evaluate((t) => (window as any).$tw.wiki.deleteTiddler(`$:/temp/tiddlyagent/provider-test/${t}`), PROFILE);
  await setup(page).locator('button.tc-ai-provider-test').click();
  await result(page).waitFor();
}

async function shoot(page: Page, locator: ReturnType<Page['locator']>, name: string): Promise<void> {
  await page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => resolve(true))));
  await locator.screenshot({ path: path.join(SHOTS, name), animations: 'disabled' });
}

/** Screenshots of `locator` at desktop width, at 360 px, and in SpartanNight. */
async function shots(page: Page, locator: ReturnType<Page['locator']>, name: string): Promise<void> {
  await shoot(page, locator, `${name}-desktop.png`);
  await page.setViewportSize({ width: 360, height: 740 });
  // Nothing of it reaches past a 360 px wide screen (the Control Panel's own title may).
  const wide = await locator.evaluate((root) =>
    [...root.querySelectorAll('.tc-ai-settings *, .tc-ai-guide *')]
      .filter((e) => e.getBoundingClientRect().right > 361)
      .map((e) => `${e.className || e.tagName}: ${Math.round(e.getBoundingClientRect().right)}`)
      .slice(0, 10),
  );
  expect(wide).toEqual([]);
  await shoot(page, locator, `${name}-360px.png`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: '$:/palettes/SpartanNight' }));
  await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor !== 'rgb(255, 255, 255)');
  await shoot(page, locator, `${name}-spartan-night.png`);
  await page.evaluate(() => (window as any).$tw.wiki.deleteTiddler('$:/palette'));
}

/**
 * From the guide to a first reply: the guide's button opens the settings, the user adds a
 * provider for the mock (no key needed), tests it, keeps the models it found, saves, makes new
 * chats use it, then starts a chat from the guide and sends a message.
 */
async function firstReply(page: Page, screenshots = false): Promise<string> {
  await guide(page).waitFor();
  // At the top of the story, titled in words.
  expect(await page.locator('.tc-story-river .tc-tiddler-frame').first().getAttribute('data-tiddler-title')).toBe(GUIDE);
  expect(await guide(page).locator('h2.tc-title').textContent()).toBe('Getting started with TiddlyAgent');
  if (screenshots) await shots(page, guide(page), 'getting-started');
  await guide(page).locator('button.tc-ai-guide-settings').click();
  const settings = page.locator('.tc-tiddler-frame[data-tiddler-title="$:/ControlPanel"] .tc-ai-settings');
  await settings.locator('.tc-tab-buttons button.tc-tab-selected[data-tab-title="$:/plugins/tiddlyagent/agent/settings/providers"]').waitFor();

  await settings.locator('button.tc-ai-settings-provider-add').click();
  await setup(page).waitFor();
  // A new profile needs no key until told otherwise: a server on this computer.
  expect(await setup(page).locator('.tc-ai-settings-keyless input[type="checkbox"]').isChecked()).toBe(true);
  await setup(page).locator('input.tc-ai-settings-field-caption').fill('Mock LLM on this computer');
  await setup(page).locator('input.tc-ai-settings-field-base-url').fill(mock.url);
  await testConnection(page);
  expect(await result(page).getAttribute('data-ok')).toBe('yes');
  expect(await setup(page).locator('button.tc-ai-provider-model').allTextContents()).toEqual(['mock-model', 'mock-model-large']);
  if (screenshots) await shots(page, page.locator('.tc-tiddler-frame[data-tiddler-title="$:/ControlPanel"]'), 'providers');
  // The models Test found become the profile's, one of them its default, all by Save.
  await setup(page).locator('button.tc-ai-provider-keep-models').click();
  await setup(page)
    .locator('button.tc-ai-provider-model', { hasText: /^mock-model$/ })
    .click();
  await page.waitForFunction(
    () => (document.querySelector('input.tc-ai-settings-field-models') as HTMLInputElement | null)?.value === 'mock-model mock-model-large',
  );
  await setup(page).locator('button.tc-ai-settings-save').click();
  await page.waitForFunction((t) => (window as any).$tw.wiki.getTiddler(t)?.fields['default-model'] === 'mock-model', PROFILE);
  expect(await profile(page)).toMatchObject({
    caption: 'Mock LLM on this computer',
    'base-url': mock.url,
    models: 'mock-model mock-model-large',
    'default-model': 'mock-model',
    'api-key-name': '',
  });
  await setup(page).locator('button.tc-ai-settings-provider-use').click();
  await setup(page).locator('.tc-ai-settings-new-chats', { hasText: 'which calls this provider' }).waitFor();

  // Settings → Agents shows the agent new chats use.
  await settings.locator('.tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/settings/agents"]').click();
  expect(await settings.locator('select.tc-ai-settings-default-agent').inputValue()).toBe('$:/plugins/tiddlyagent/agent/agents/wiki-assistant');
  expect(await settings.locator('.tc-ai-settings-agent').getAttribute('data-agent')).toBe('$:/plugins/tiddlyagent/agent/agents/wiki-assistant');

  // The guide's New chat, a message, the first reply.
  await guide(page).locator('button.tc-ai-guide-new-chat').click();
  const chat = page.locator('.tc-story-river .tc-ai-chat').first();
  await chat.waitFor();
  await chat.locator('textarea.tc-ai-chat-input').fill('Hello from my own wiki');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Hello from my own wiki' }).waitFor();
  expect(await chat.getAttribute('data-status')).toBe('completed');
  // After its first turn the chat takes a title of its own (a side request to the model).
  await page.waitForFunction(() => !/^Chat( \d+)?$/.test(document.querySelector('.tc-story-river .tc-ai-chat')?.getAttribute('data-chat') ?? 'Chat'));
  return (await page.locator('.tc-story-river .tc-ai-chat').first().getAttribute('data-chat'))!;
}

test('installed by dragging dist/agent.json onto an empty single-file wiki: the guide, a keyless provider, a first reply; a missing key fails Test as it fails the chat', async () => {
  errors = [];
  let page = await openFile(emptyWiki);
  await dropAndImport(page, { file: { name: 'agent.json', text: fs.readFileSync(path.join(ROOT, 'dist', 'agent.json'), 'utf8') } });
  expect(await page.evaluate(() => (window as any).$tw.wiki.tiddlerExists('$:/plugins/tiddlyagent/agent'))).toBe(true);
  page = await saveAndReopen(page, 'dragged.html');
  const chatTitle = await firstReply(page, true);
  const requests = mock.requests.length;

  // The provider now says it needs a key, and none is set: Test fails before calling anyone...
  await page.locator('.tc-ai-settings .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/settings/providers"]').click();
  await setup(page).locator('.tc-ai-settings-keyless input[type="checkbox"]').uncheck();
  await setup(page).locator('input.tc-ai-settings-key-input').waitFor();
  await setup(page).locator('button.tc-ai-settings-save').click();
  await page.waitForFunction((t) => !!(window as any).$tw.wiki.getTiddler(t)?.fields['api-key-name'], PROFILE);
  await testConnection(page);
  expect(await result(page).getAttribute('data-problem')).toBe('no-key');
  const detail = (await result(page).locator('.tc-ai-provider-detail').textContent())!;
  expect(detail).toMatch(/^No API key is set for the provider "Mock LLM on this computer"\./);
  // ...and the chat fails with the same words, with a way to the setting it names.
  const chat = page.locator(`.tc-ai-chat[data-chat="${chatTitle}"]`);
  await chat.locator('textarea.tc-ai-chat-input').fill('And now?');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  const error = chat.locator('.tc-ai-message-error');
  await error.waitFor();
  expect(await error.locator('.tc-ai-error-detail').textContent()).toBe(detail);
  expect(mock.requests.length).toBe(requests);
  await page.evaluate(() => (window as any).$tw.wiki.deleteTiddler('$:/state/tiddlyagent/settings/provider'));
  await error.locator('button.tc-ai-error-settings', { hasText: 'Open the TiddlyAgent settings' }).click();
  await page.waitForFunction((t) => (window as any).$tw.wiki.getTiddlerText('$:/state/tiddlyagent/settings/provider') === t, PROFILE);
  await setup(page).waitFor();

  // No key needed again: Test passes and the chat goes on.
  await setup(page).locator('.tc-ai-settings-keyless input[type="checkbox"]').check();
  await setup(page).locator('button.tc-ai-settings-save').click();
  await page.waitForFunction((t) => (window as any).$tw.wiki.getTiddler(t)?.fields['api-key-name'] === '', PROFILE);
  await testConnection(page);
  expect(await result(page).getAttribute('data-ok')).toBe('yes');
  await chat.locator('textarea.tc-ai-chat-input').fill('Once more');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Once more' }).waitFor();

  // Saved and opened again: the guide does not come back; the chat is still there.
  page = await saveAndReopen(page, 'dragged-again.html');
  await page.locator('.tc-story-river .tc-tiddler-frame').first().waitFor();
  expect(await guide(page).count()).toBe(0);
  expect(await page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields.agent, chatTitle)).toBe(
    '$:/plugins/tiddlyagent/agent/agents/wiki-assistant',
  );
  expect(errors).toEqual([]);
  await page.close();
});

test('installed from the plugin library through Get more plugins: the library offers no server edition; the guide, a provider, a first reply', async () => {
  errors = [];
  // The library's page hands out its library tiddler by drag and drop (with its own address).
  const libraryPage = await context.newPage();
  await libraryPage.goto(library.libraryUrl);
  const libraryTiddler = await libraryPage.evaluate(() => {
    const data = new DataTransfer();
    document.getElementById('library')!.dispatchEvent(new DragEvent('dragstart', { dataTransfer: data, bubbles: true }));
    return data.getData('text/vnd.tiddler');
  });
  await libraryPage.close();
  expect(JSON.parse(libraryTiddler)).toMatchObject({ tags: '$:/tags/PluginLibrary', url: library.libraryUrl });

  let page = await openFile(emptyWiki);
  await dropAndImport(page, { tiddler: libraryTiddler });
  // Control Panel → Plugins → Get more plugins → TiddlyAgent → Open plugin library → Install.
  await page.evaluate(() => new (window as any).$tw.Story({ wiki: (window as any).$tw.wiki }).navigateTiddler('$:/ControlPanel'));
  const panel = page.locator('.tc-tiddler-frame[data-tiddler-title="$:/ControlPanel"]');
  await panel.locator('.tc-tab-buttons button', { hasText: /^Plugins$/ }).click();
  await panel.locator('button', { hasText: 'Get more plugins' }).click();
  const modal = page.locator('.tc-modal');
  await modal.locator('.tc-tab-buttons button', { hasText: 'TiddlyAgent' }).click();
  await modal.locator('button', { hasText: 'Open plugin library' }).click();
  const listing = modal.locator('.tc-plugin-library-listing');
  await listing.locator('.tc-plugin-info', { hasText: '$:/plugins/tiddlyagent/agent' }).first().waitFor();
  expect(await listing.locator('.tc-plugin-info h2').allTextContents()).toEqual([
    '$:/plugins/tiddlyagent/agent',
    '$:/plugins/tiddlyagent/mcp-browser',
    '$:/plugins/tiddlyagent/pdf',
  ]);
  await listing.locator('.tc-plugin-info', { hasText: '$:/plugins/tiddlyagent/agent' }).first().locator('button.tc-install-plugin').click();
  await page.waitForFunction(() => (window as any).$tw.wiki.tiddlerExists('$:/plugins/tiddlyagent/agent'));
  await modal.locator('.tc-modal-footer button').click();
  page = await saveAndReopen(page, 'from-library.html');
  await firstReply(page);
  expect(errors).toEqual([]);
  await page.close();
});
