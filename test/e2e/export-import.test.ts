// Export and import in a real browser: the chat's Export menu downloads a JSON bundle and
// Markdown through tm-download-file and makes a transcript tiddler; the Import tool (tagged
// $:/tags/AI/ChatsTool) takes the bundle back and a ChatGPT conversations.json, reports what it
// could not map, refuses a broken file with nothing written, and the imported chat continues
// with the mock LLM.
import fs from 'node:fs';
import path from 'node:path';
import { navigate, useServedWiki } from '../helpers/e2e';
import { measureContrast } from '../helpers/contrast';

const { defaultReply } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

const CHAT = 'Export chat';
const IMPORT_TOOL = '$:/plugins/tiddlyagent/agent/ui/chats-tools/import';
const FIXTURES = path.resolve(__dirname, '../fixtures/import');
let bundle = '';

const chat = (title = CHAT) => served.page.locator(`.tc-ai-chat[data-chat="${title}"]`);

const served = useServedWiki({ mockDelayMs: 5 });

beforeAll(async () => {
  await served.page.evaluate((chat) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({ title: chat, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed', text: '' });
    const messages = [
      { role: 'user', type: 'text/plain', text: 'Where do the bees live?' },
      { role: 'assistant', type: 'text/vnd.tiddlyagent.reply', model: 'mock-model', text: "''In the hive'' by the [[Orchard]]." },
    ];
    messages.forEach((m, seq) => {
      tw.wiki.addTiddler({ title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`, 'agent-chat': chat, 'agent-seq': String(seq), ...m });
    });
  }, CHAT);
  await navigate(served.page, CHAT);
  await chat().waitFor();
});

async function exportAs(format: string): Promise<{ name: string; text: string }> {
  const toggle = chat().locator('button.tc-ai-export-toggle');
  await toggle.click();
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  const [download] = await Promise.all([served.page.waitForEvent('download'), chat().locator(`button[data-ai-export="${format}"]`).click()]);
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return { name: download.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
}

async function importFile(name: string, text: string): Promise<void> {
  await navigate(served.page, IMPORT_TOOL);
  const tool = served.page.locator('.tc-ai-import').first();
  await tool.locator('button.tc-ai-import-button').waitFor();
  await tool.locator('input[type="file"]').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await tool.locator(`.tc-ai-import-report[data-result="done"], .tc-ai-import-report[data-result="failed"]`).waitFor();
}

test('Export downloads the chat as a JSON tiddler bundle and as Markdown', async () => {
  const json = await exportAs('json');
  expect(json.name).toBe('Export chat.json');
  const tiddlers = JSON.parse(json.text) as Record<string, string>[];
  expect(tiddlers.map((t) => t.title)).toEqual([CHAT, `$:/ai/messages/${CHAT}/000000`, `$:/ai/messages/${CHAT}/000001`]);
  expect(tiddlers[2]).toMatchObject({ role: 'assistant', model: 'mock-model', text: "''In the hive'' by the [[Orchard]]." });
  bundle = json.text;
  await chat().locator('.tc-ai-export-result').filter({ hasText: 'Exported "Export chat.json".' }).waitFor();

  const md = await exportAs('markdown');
  expect(md.name).toBe('Export chat.md');
  expect(md.text).toContain('# Export chat');
  expect(md.text).toContain('## User\n\nWhere do the bees live?');
  // The reply's wikitext as Markdown.
  expect(md.text).toContain('## Assistant\n\n**In the hive** by the Orchard.');
  // The download's text went through a temp tiddler that is gone again.
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.tiddlerExists('$:/temp/tiddlyagent/export'))).toBe(false);
});

test('Export as a transcript makes one readable tiddler that renders the reply safely', async () => {
  await chat().locator('button.tc-ai-export-toggle').click();
  await chat().locator('button[data-ai-export="wikitext"]').click();
  const transcript = served.page.locator(`.tc-tiddler-frame[data-tiddler-title="${CHAT} (transcript)"]`);
  await transcript.waitFor();
  await expect(transcript.locator('.tc-tiddler-body h2').first().textContent()).resolves.toBe('User');
  await expect(transcript.locator('.tc-tiddler-body strong').first().textContent()).resolves.toBe('In the hive');
});

test('Import takes the bundle back as a new chat that continues with the mock LLM', async () => {
  await importFile('Export chat.json', bundle);
  const report = served.page.locator('.tc-ai-import-report');
  await expect(report.textContent()).resolves.toContain('Imported 1 from "Export chat.json"');
  await report.locator('a', { hasText: 'Export chat (imported)' }).click();
  const copy = chat('Export chat (imported)');
  await copy.waitFor();
  await expect(copy.locator('.tc-ai-message-assistant strong').first().textContent()).resolves.toBe('In the hive');
  await copy.locator('textarea.tc-ai-chat-input').fill('And the honey?');
  await copy.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await copy.locator('.tc-ai-message-assistant[data-message]').nth(1).filter({ hasText: 'Mock reply' }).waitFor();
  const last = await served.page.evaluate(() => {
    const tw = (window as any).$tw;
    const titles: string[] = tw.wiki.filterTiddlers('[field:agent-chat[Export chat (imported)]!sort[agent-seq]]');
    return tw.wiki.getTiddler(titles[0]).fields.text as string;
  });
  expect(last).toBe(defaultReply('And the honey?'));
});

test('Import of a ChatGPT archive reports what it could not map; a broken file imports nothing and says why', async () => {
  await importFile('conversations.json', fs.readFileSync(path.join(FIXTURES, 'conversations.json'), 'utf8'));
  const report = served.page.locator('.tc-ai-import-report');
  await expect(report.textContent()).resolves.toContain('Imported 2 from "conversations.json"');
  await expect(report.locator('.tc-ai-import-not-mapped li').allTextContents()).resolves.toEqual([
    '1 × image_asset_pointer parts',
    '1 × code content',
    '1 × tool messages',
  ]);

  const before = await served.page.evaluate(() => (window as any).$tw.wiki.allTitles().length);
  await importFile('conversations.json', fs.readFileSync(path.join(FIXTURES, 'conversations-cycle.json'), 'utf8'));
  await expect(served.page.locator('.tc-ai-import-error').textContent()).resolves.toMatch(
    /^Nothing was imported from "conversations\.json": The message tree of conversation 1 \("Loop"\) has a cycle/,
  );
  // Only the report itself changed.
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.allTitles().length)).toBe(before);
  await expect(served.page.locator('button.tc-ai-import-button').first().getAttribute('title')).resolves.toContain('conversations.json');
  expect(served.errors).toEqual([]);
});

test.each(['$:/palettes/Vanilla', '$:/palettes/SpartanNight', '$:/palettes/CupertinoDark'])(
  'the Export menu and the import report reach WCAG AA in %s, every control with a name',
  async (palette) => {
    const before = await served.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await served.page.evaluate((p) => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: p }), palette);
    if (palette !== '$:/palettes/Vanilla') await served.page.waitForFunction((b) => getComputedStyle(document.body).backgroundColor !== b, before);
    await navigate(served.page, CHAT);
    const toggle = chat().locator('button.tc-ai-export-toggle');
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    const result = await served.page.evaluate(measureContrast, [`.tc-ai-chat[data-chat="${CHAT}"] .tc-ai-export`, '.tc-ai-import']);
    expect(result.count).toBeGreaterThan(5);
    expect(result.offenders).toEqual([]);
    const unnamed = await served.page.evaluate(
      () =>
        [...document.querySelectorAll('.tc-ai-export button, .tc-ai-import button')].filter(
          (b) => !(b.textContent ?? '').trim() && !b.getAttribute('aria-label'),
        ).length,
    );
    expect(unnamed).toBe(0);
    await toggle.click();
  },
);
