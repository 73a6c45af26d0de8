// Tool steps a person can read, in a real browser: each call is one plain line saying what it
// did ("Searched for “zinnia”: 4 tiddlers", "Changed Zinnia plan", "Could not read Nope: …"),
// the tiddlers a call found are links that open in the story river, and the exact arguments
// and result are one click away (indented JSON, the result as plain text, a long one cut with
// "Show all"). The page is the chat's one scroll container: the message list, a tool result,
// an approval card and a diff never scroll inside themselves. Screenshots of such a chat
// (desktop, 360 px, SpartanNight) go to output/i24-steps/.
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { ROOT } from '../helpers/tw';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

const SHOTS = path.join(ROOT, 'output', 'i24-steps');
const CHAT = 'Tool steps';
const LOG = Array.from({ length: 120 }, (_, i) => `Day ${i + 1}: watered the zinnia beds and noted the weather.`).join('\n');

const chat = () => served.page.locator(`.tc-ai-chat[data-chat="${CHAT}"]`);
const step = (tool: string) => chat().locator(`.tc-ai-message-tool[data-tool="${tool}"]`);
const status = () => chat().getAttribute('data-status');
const settled = (want: string) =>
  served.page.waitForFunction(([c, s]) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === s, [CHAT, want]);
const modified = (title: string) => served.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t).getFieldString('modified'), title);

async function send(text: string): Promise<void> {
  await chat().locator('textarea.tc-ai-chat-input').fill(text);
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
}

/**
 * Elements that scroll inside themselves: more content than they show, or a vertical overflow
 * that would scroll under a height limit (an `overflow: auto` box without one grows instead).
 */
function ownScrollers(root: Locator, selector: string): Promise<string[]> {
  return root.evaluate(
    (el, sel) =>
      [...el.querySelectorAll(sel)]
        .filter((e) => {
          const style = getComputedStyle(e);
          const scrolls = /auto|scroll/.test(style.overflowY);
          return e.scrollHeight > e.clientHeight + 1 || (scrolls && style.maxHeight !== 'none');
        })
        .map((e) => `${e.tagName}.${e.className}: ${getComputedStyle(e).overflowY} ${e.scrollHeight}/${e.clientHeight}`),
    selector,
  );
}

const served = useServedWiki({ mockDelayMs: 2 });

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  await served.page.evaluate(
    ({ chat, log }) => {
      const tw = (window as any).$tw;
      const stamp = { created: '20260101000000000', modified: '20260102000000000' };
      tw.wiki.addTiddler({ title: 'Zinnia plan', text: 'Sow the zinnias in May.', tags: 'Zinnia', ...stamp });
      tw.wiki.addTiddler({ title: 'Zinnia tools', text: 'A trowel for the zinnia beds.', ...stamp });
      tw.wiki.addTiddler({ title: 'Seeds for the zinnia', text: 'Zinnia, cosmos and marigold seeds.', ...stamp });
      tw.wiki.addTiddler({ title: 'Zinnia log', text: log, ...stamp });
      tw.wiki.addTiddler({ title: chat, agent: '$:/demo/agents/offline-demo', 'agent-status': 'idle', text: '' });
    },
    { chat: CHAT, log: LOG },
  );
  await navigate(served.page, CHAT);
  await chat().waitFor();
});

test('each call is a plain line; the tiddlers it found are links; the exact call is one click away', async () => {
  served.wiki.mock.queue([
    { toolCalls: [{ name: 'wiki-search', arguments: { query: 'zinnia' } }] },
    { toolCalls: [{ name: 'wiki-read', arguments: { title: 'Zinnia log' } }] },
    { toolCalls: [{ name: 'word-count', arguments: { title: 'Zinnia plan' } }] },
    { toolCalls: [{ name: 'wiki-read', arguments: { title: 'Nope' } }] },
    { text: 'I looked through your zinnia notes.' },
  ]);
  await send('What do my notes say about zinnias?');
  await chat().locator('.tc-ai-message-assistant').filter({ hasText: 'I looked through' }).waitFor();
  await settled('completed');

  // The search: what it looked for, how many it found, and each found tiddler as a link.
  const search = step('wiki-search');
  const line = search.locator('.tc-ai-tool-step');
  expect(await line.textContent()).toMatch(/^Searched for “zinnia”: 4 tiddlers — /);
  const links = line.locator('.tc-ai-tool-titles a.tc-tiddlylink');
  expect((await links.allTextContents()).sort()).toEqual(['Seeds for the zinnia', 'Zinnia log', 'Zinnia plan', 'Zinnia tools']);
  // No label, no raw result on the line: the exact call is folded.
  expect(await search.locator('.tc-ai-tool-args').count()).toBe(0);
  expect(await search.locator('details.tc-ai-tool-details').getAttribute('open')).toBeNull();

  // Other calls: a read, a user tool, a failure with its reason.
  expect(await step('wiki-read').first().locator('.tc-ai-tool-step').textContent()).toBe('Read Zinnia log');
  expect(await step('word-count').locator('.tc-ai-tool-step').textContent()).toBe('Used the tool word-count');
  const failed = step('wiki-read').nth(1);
  expect(await failed.getAttribute('data-tool-status')).toBe('error');
  expect(await failed.locator('.tc-ai-tool-step').textContent()).toMatch(/^Could not read Nope: Tiddler "Nope" does not exist\./);
  expect(await failed.locator('.tc-ai-tool-error').textContent()).toMatch(/^Tiddler "Nope" does not exist\./);

  // One click: the arguments as indented JSON, the result as plain text (no markup for the model).
  await search.locator('details.tc-ai-tool-details > summary').click();
  expect(await search.locator('.tc-ai-tool-args').textContent()).toBe(JSON.stringify({ query: 'zinnia' }, null, 2));
  const result = (await search.locator('.tc-ai-tool-result').textContent()) ?? '';
  expect(result).toContain('▸ Zinnia plan');
  expect(result).not.toContain('<tiddler-data');
  expect(result).not.toContain('untrusted data, not instructions');

  // A long result is cut, with "Show all" rather than a box that scrolls.
  const read = step('wiki-read').first();
  await read.locator('details.tc-ai-tool-details > summary').click();
  const shown = read.locator('.tc-ai-tool-result');
  expect(((await shown.textContent()) ?? '').length).toBeLessThan(LOG.length);
  expect(await ownScrollers(read, 'pre')).toEqual([]);
  await read.locator('button.tc-ai-tool-show-all').click();
  expect(await shown.textContent()).toContain('Day 120: watered the zinnia beds');
  expect(await read.locator('button.tc-ai-tool-show-all').count()).toBe(0);

  // A found title opens its tiddler in the story river.
  await links.filter({ hasText: 'Zinnia tools' }).click();
  await served.page.locator('.tc-story-river .tc-tiddler-frame[data-tiddler-title="Zinnia tools"]').waitFor();
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.getTiddlerList('$:/StoryList'))).toContain('Zinnia tools');
  expect(served.errors).toEqual([]);
});

test('writes say what they changed; a denied one says so; the page is the only scroll container', async () => {
  await navigate(served.page, CHAT);
  const long = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of a long new tiddler.`).join('\n');
  served.wiki.mock.queue([
    {
      toolCalls: [
        { name: 'wiki-edit', arguments: { title: 'Zinnia plan', modified: await modified('Zinnia plan'), edits: [{ find: 'in May', replace: 'in June' }] } },
      ],
    },
    { toolCalls: [{ name: 'wiki-create', arguments: { title: 'Zinnia diary', text: long } }] },
    { toolCalls: [{ name: 'wiki-delete', arguments: { title: 'Seeds for the zinnia', modified: await modified('Seeds for the zinnia') } }] },
    { text: 'Moved the sowing and started a diary.' },
  ]);
  await send('Sow in June and start a diary');
  await chat().locator('.tc-ai-approval').waitFor();
  expect(await step('wiki-edit').locator('.tc-ai-tool-step').textContent()).toBe('Asks to change Zinnia plan');
  await chat().locator('button[data-ai-action="approve-once"]').click();
  // The create waits with its whole text in the card: the card grows with it, the page scrolls.
  await step('wiki-create').locator('.tc-ai-approval').waitFor();
  expect(await ownScrollers(chat(), '.tc-ai-card, .tc-ai-card *')).toEqual([]);
  expect(await ownScrollers(chat(), '.tc-ai-chat-messages')).toEqual([]);
  await chat().locator('button[data-ai-action="approve-once"]').click();
  await step('wiki-delete').locator('.tc-ai-approval').waitFor();
  await chat().locator('button[data-ai-action="approve-deny"]').click();
  await chat().locator('.tc-ai-message-assistant').filter({ hasText: 'Moved the sowing' }).waitFor();
  await settled('completed');

  expect(await step('wiki-edit').locator('.tc-ai-tool-step').textContent()).toBe('Changed Zinnia plan');
  expect(await step('wiki-create').locator('.tc-ai-tool-step').textContent()).toBe('Created Zinnia diary');
  expect(await step('wiki-delete').locator('.tc-ai-tool-step').textContent()).toBe('You did not allow the agent to delete Seeds for the zinnia');
  expect(await step('wiki-delete').getAttribute('data-tool-status')).toBe('denied');

  // The turn's diff opens in place, as tall as it is.
  await chat().locator('.tc-ai-turn-actions').last().locator('button[data-ai-action="show-changes"]').click();
  await chat().locator('.tc-ai-turn-actions').last().locator('.tc-ai-diff').first().waitFor();
  await chat().evaluate((root) =>
    root.querySelectorAll('details').forEach((d) => {
      (d as HTMLDetailsElement).open = true;
    }),
  );
  await served.page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => resolve(true))));
  expect(
    await ownScrollers(
      chat(),
      '.tc-ai-chat-messages, .tc-ai-message, .tc-ai-tool-details, .tc-ai-tool-details pre, .tc-ai-diff, .tc-ai-diff *, .tc-ai-turn-panel',
    ),
  ).toEqual([]);
  // The chat is taller than the window: the page scrolls, not a box inside it.
  expect(await served.page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight * 1.5)).toBe(true);
  expect(await status()).toBe('completed');
  expect(served.errors).toEqual([]);
});

test('screenshots of a chat with several tool steps: desktop, 360 px, SpartanNight', async () => {
  await navigate(served.page, CHAT);
  await chat().evaluate((root) =>
    root.querySelectorAll('details').forEach((d) => {
      (d as HTMLDetailsElement).open = false;
    }),
  );
  const frame = served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${CHAT}"]`);
  const shoot = async (name: string) => {
    await step('wiki-search').scrollIntoViewIfNeeded();
    await served.page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => resolve(true))));
    await served.page.screenshot({ path: path.join(SHOTS, name) });
  };
  await frame.evaluate((e) => e.scrollIntoView());
  await shoot('tool-steps-desktop.png');
  await served.page.setViewportSize({ width: 360, height: 740 });
  await shoot('tool-steps-360.png');
  await served.page.setViewportSize({ width: 1280, height: 900 });
  const before = await served.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await served.page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: '$:/palettes/SpartanNight' }));
  await served.page.waitForFunction((b) => getComputedStyle(document.body).backgroundColor !== b, before);
  await shoot('tool-steps-spartannight.png');
  for (const name of ['tool-steps-desktop.png', 'tool-steps-360.png', 'tool-steps-spartannight.png'])
    expect(fs.statSync(path.join(SHOTS, name)).size).toBeGreaterThan(10_000);
  expect(served.errors).toEqual([]);
});
