// The browser runner in a single saved HTML file (file://, no server): the demo wiki built
// as one file still chats with the mock model, and the reply is a tiddler in the page.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { connectBrowser, demoWikiFolder, navigate } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

let context: BrowserContext | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterAll(async () => {
  await context?.close();
  await cleanup?.();
});

test('a chat works in the single-file HTML opened from disk', async () => {
  const mock = await startMockLlm({ delayMs: 5 });
  const dir = demoWikiFolder(mock.url, { server: false });
  cleanup = async () => {
    await mock.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const tiddlywiki = path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js');
  execFileSync(process.execPath, [tiddlywiki, dir, '--output', path.join(dir, 'out'), '--render', '$:/core/save/all', 'index.html', 'text/plain']);
  const file = path.join(dir, 'out', 'index.html');
  expect(fs.readFileSync(file, 'utf8')).toContain('$:/plugins/tiddlyagent/agent/lib.js');

  context = await (await connectBrowser()).newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  await navigate(page, 'Demo chat');
  const chat = page.locator('.tc-ai-chat[data-chat="Demo chat"]');
  await chat.locator('textarea.tc-ai-chat-input').fill('Hello from a file');
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await chat.locator('.tc-ai-message-assistant[data-message]').filter({ hasText: 'Hello from a file' }).waitFor();
  expect(await chat.getAttribute('data-status')).toBe('completed');
  expect(mock.requests).toHaveLength(1);
  expect(errors).toEqual([]);
});
