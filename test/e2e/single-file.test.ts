// The browser runner in a single saved HTML file (file://, no server): the demo wiki built
// as one file still chats with the mock model, and the reply is a tiddler in the page; a PDF is
// read in a Web Worker made from a Blob there, or on the page where no Worker can be made.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { connectBrowser, demoWikiFolder, navigate } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');
const { makePdf } = require('../../scripts/make-pdf.cjs');

jest.setTimeout(60_000);

let context: BrowserContext | undefined;
let page: Page;
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
  page = await context.newPage();
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

/** The pages of a PDF tiddler added to the page, as the agent reads them, and how many PDFs were read in a worker. */
function readPdf(page: Page, title: string, base64: string): Promise<{ pages?: string[]; problem?: string; inWorker: number }> {
  return page.evaluate(
    async ({ title, base64 }) => {
      const tw = (window as any).$tw;
      tw.wiki.addTiddler({ title, type: 'application/pdf', text: base64 });
      const lib = tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
      const text = await lib.createTiddlyWikiPort(tw.wiki).documentText(title);
      return { ...text, inWorker: lib.pdfTextStats().inWorker };
    },
    { title, base64 },
  );
}

test('in the file, a PDF is read in a Web Worker; past the time limit it says so; where no Worker can be made, on the page itself', async () => {
  const first = await readPdf(page, 'Pond.pdf', makePdf(['Frogs of the pond.', 'Newts under the stone.']).toString('base64'));
  expect(first).toEqual({ pages: ['Frogs of the pond.', 'Newts under the stone.'], inWorker: 1 });
  // Past the time limit (here 1 ms) the worker is ended and the PDF says so.
  await page.evaluate(() => (window as any).$tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '').setPdfLimits({ timeMs: 1 }));
  const slow = await readPdf(page, 'Slow.pdf', makePdf(['Snails on the path.']).toString('base64'));
  expect(slow).toEqual({ problem: 'reading it took longer than 0.001 s', inWorker: 2 });
  // An old browser, or a page whose Content-Security-Policy allows no blob: worker (and the worker kept from the last PDF ended).
  await page.evaluate(() => {
    (window as any).Worker = undefined;
    (window as any).$tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '').setPdfLimits();
  });
  const second = await readPdf(page, 'Meadow.pdf', makePdf(['Hares in the meadow.']).toString('base64'));
  expect(second).toEqual({ pages: ['Hares in the meadow.'], inWorker: 2 });
});
