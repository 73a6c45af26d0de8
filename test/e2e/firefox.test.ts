// The core flows in Firefox ESR (Debian's firefox-esr, driven over WebDriver BiDi with
// puppeteer-core), against the served demo wiki whose turns run in the page, with the mock LLM:
// the wiki loads, a chat opens, a reply streams in, the guided tour's edit waits in an approval
// card and lands when allowed, Roll back brings the note back, and a reload loses nothing.
// One Firefox for the whole file; `.ci/run` installs it (FIREFOX_PATH moves it).
import fs from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { serveDemoWiki, type ServedWiki } from '../helpers/e2e';

jest.setTimeout(120_000);

const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const NOTE = 'Demo notes';
const CHAT = '.tc-ai-chat[data-chat="Demo chat"]';

let wiki: ServedWiki;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  if (!fs.existsSync(FIREFOX)) throw new Error(`Firefox not found at ${FIREFOX}: install it (apt-get install firefox-esr) or set FIREFOX_PATH`);
  wiki = await serveDemoWiki({ mockDelayMs: 25 });
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, protocol: 'webDriverBiDi', headless: true });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('pageerror', (e) => errors.push(String(e)));
  await load();
});

afterAll(async () => {
  await browser?.close();
  await wiki?.stop();
});

/** (Re)load the wiki and wait until TiddlyWiki has started. */
async function load(): Promise<void> {
  await page.goto(`${wiki.url}/`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
}

/** Open a tiddler in the story river, as a link does. */
async function navigate(title: string): Promise<void> {
  await page.evaluate((t) => new (window as any).$tw.Story({ wiki: (window as any).$tw.wiki }).navigateTiddler(t), title);
}

/** Wait until an element matching `selector` shows `text` (a substring). */
async function waitForText(selector: string, text: string): Promise<void> {
  await page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((e) => e.textContent?.includes(t)), {}, selector, text);
}

const status = () => page.$eval(CHAT, (e) => e.getAttribute('data-status'));
const waitForStatus = (value: string) => page.waitForFunction((s, v) => document.querySelector(s)?.getAttribute('data-status') === v, {}, CHAT, value);
const noteText = () => page.evaluate((t) => (window as any).$tw.wiki.getTiddlerText(t) as string, NOTE);

async function send(text: string): Promise<void> {
  await page.locator(`${CHAT} textarea.tc-ai-chat-input`).fill(text);
  await page.focus(`${CHAT} textarea.tc-ai-chat-input`);
  await page.keyboard.down('Control');
  await page.keyboard.press('Enter');
  await page.keyboard.up('Control');
}

/** The chat's message tiddlers (title, role, text), in order. */
const messages = () =>
  page.evaluate(() => {
    const tw = (window as any).$tw;
    return (tw.wiki.filterTiddlers('[field:agent-chat[Demo chat]]') as string[])
      .map((t) => tw.wiki.getTiddler(t).fields)
      .sort((a: any, b: any) => Number(a['agent-seq']) - Number(b['agent-seq']))
      .map((f: any) => ({ title: f.title, role: f.role, text: f.text }));
  });

test('the demo wiki loads in Firefox and a chat opens', async () => {
  expect(await page.evaluate(() => navigator.userAgent)).toMatch(/Firefox\//);
  await navigate('Demo chat');
  await page.waitForSelector(`${CHAT} textarea.tc-ai-chat-input`);
  expect(errors).toEqual([]);
});

test('a reply streams into its own bubble, then is written as a message', async () => {
  await send('Hello from Firefox');
  await waitForText(`${CHAT} .tc-ai-message-user`, 'Hello from Firefox');
  // Seen while it streams: the bubble has words and the chat is still working.
  await waitForText(`${CHAT} .tc-ai-message-streaming .tc-ai-message-body`, 'Mock reply');
  expect(await status()).toBe('working');
  await waitForStatus('completed');
  await page.waitForSelector(`${CHAT} .tc-ai-message-streaming`, { hidden: true });
  await waitForText(`${CHAT} .tc-ai-message-assistant[data-message] strong`, 'Mock reply');
  expect((await messages()).at(-1)).toMatchObject({ role: 'assistant', text: expect.stringContaining("''Mock reply''") });
  expect(errors).toEqual([]);
});

test("the tour's edit waits in an approval card, lands on Allow once, and Roll back restores the note", async () => {
  const shipped = await noteText();
  await send('mock:tour');
  await page.waitForSelector(`${CHAT} .tc-ai-approval`);
  await waitForStatus('input-required');
  expect(await page.$eval(`${CHAT} .tc-ai-approval`, (e) => e.textContent)).toContain('wiki-edit');
  expect(await noteText()).toBe(shipped);

  await page.click(`${CHAT} .tc-ai-approval button[data-ai-action="approve-once"]`);
  await waitForText(`${CHAT} .tc-ai-message-assistant[data-message]`, 'Guided tour');
  await waitForStatus('completed');
  expect(await noteText()).toContain('changed by the demo agent');

  // Roll back, on the bar under the tour's turn (the last one).
  const bars = await page.$$(`${CHAT} .tc-ai-turn-actions`);
  const rollback = await bars.at(-1)!.$('button[data-ai-action="rollback"]');
  await rollback!.click();
  await page.waitForSelector(`${CHAT} .tc-ai-turn-rolled-back`);
  await page.waitForFunction((t, text) => (window as any).$tw.wiki.getTiddlerText(t) === text, {}, NOTE, shipped);
  expect(errors).toEqual([]);
});

test('a reload loses nothing: the messages, the rolled-back turn and the note as it was', async () => {
  const before = await messages();
  const note = await noteText();
  await page.waitForFunction(() => {
    const tw = (window as any).$tw;
    return !!tw.syncer && !tw.syncer.isDirty();
  });
  await load();
  await navigate('Demo chat');
  await page.waitForSelector(`${CHAT} .tc-ai-turn-rolled-back`);
  expect(await messages()).toEqual(before);
  expect(await noteText()).toBe(note);
  expect(await status()).toBe('completed');
  await waitForText(`${CHAT} .tc-ai-message-user`, 'Hello from Firefox');
  await waitForText(`${CHAT} .tc-ai-message-assistant[data-message]`, 'Guided tour');
  expect(errors).toEqual([]);
});
