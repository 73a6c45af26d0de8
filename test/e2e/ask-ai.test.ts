// "Ask AI" in the tiddler editor, in a real browser against the served demo wiki (turns in the
// page, and on the server in the server edition): the selection goes to the agent's model with
// the chosen instruction; the answer comes back into the toolbar's dropdown as a change, shown
// as a diff with what it would load flagged; the user edits it and allows their version, which
// lands in the draft (saved with the tiddler, as any edit); a text changed meanwhile is never
// overwritten; Stop ends a request.
import type { Page } from 'playwright-core';
import { navigate, until, useServedWiki, waitForSync, type Edition } from '../helpers/e2e';

jest.setTimeout(60_000);

const NOTE = 'Garden plan';
const FIRST = 'Plant teh tomatoes in May.';
const REST = '\n\nWater them every morning.';

/** The editor's textarea of a draft: inside the iframe of TiddlyWiki's framed editor. */
async function editor(page: Page, draft: string) {
  const frame = await page.locator(`[data-tiddler-title="${draft}"] iframe.tc-edit-texteditor`).first().elementHandle();
  return (await frame!.contentFrame())!.locator('textarea');
}

async function openEditor(page: Page, title: string, text: string): Promise<void> {
  await page.evaluate(([t, x]) => (window as any).$tw.wiki.addTiddler({ title: t, text: x }), [title, text]);
  // Saved first: in the server edition the syncer's answer re-renders the tiddler, and a click
  // on its edit button before that can land on the frame it replaces.
  await waitForSync(page);
  await navigate(page, title);
  // The button's own click: a popup left open or the story's animation cannot take it.
  await page
    .locator(`[data-tiddler-title="${title}"] .tc-tiddler-controls button[class*="edit"]`)
    .first()
    .evaluate((button: HTMLElement) => button.click());
  await page.locator(`[data-tiddler-title="Draft of '${title}'"] .tc-editor-toolbar`).waitFor();
}

async function select(page: Page, draft: string, start: number, end: number): Promise<void> {
  await (await editor(page, draft)).evaluate(
    (e: HTMLTextAreaElement, [s, f]) => {
      e.focus();
      e.setSelectionRange(s!, f!);
    },
    [start, end],
  );
}

const draftText = async (page: Page, draft: string) => (await editor(page, draft)).inputValue();

describe.each(['browser', 'server'] as Edition[])('%s edition', (edition) => {
  const served = useServedWiki({ mockDelayMs: 2, edition });

  const draft = `Draft of '${NOTE}'`;
  /** The toolbar's dropdown (what to ask) and the panel above the editor (the answer). */
  const dropdown = (d = draft) => served.page.locator(`[data-tiddler-title="${d}"] .tc-ai-ask`);
  const panel = (d = draft) => served.page.locator(`[data-tiddler-title="${d}"] .tc-ai-ask-panel`);

  test('the selection goes with the instruction; the change comes back as a diff; the user edits it and their version lands in the draft', async () => {
    await openEditor(served.page, NOTE, FIRST + REST);
    await select(served.page, draft, 0, FIRST.length);
    await served.page.locator(`[data-tiddler-title="${draft}"] .tc-ai-ask-button`).click();
    await dropdown().locator('[data-instruction="fix"]').click();
    await panel().locator('.tc-ai-ask-proposal').waitFor();
    const request = served.wiki.mock.requests.at(-1)!;
    expect(request.body.messages[0].content).toMatch(/^Edit request:[\s\S]*Correct spelling/);
    expect(request.body.messages[1].content).toContain(`<text>\n${FIRST}\n</text>`);
    // The rest of the tiddler goes as context, marked as such; the text to change is the selection only.
    expect(request.body.messages[1].content).toMatch(/<context>\n\[…the text to change…\]\n\nWater them every morning\.\n<\/context>/);
    expect((await panel().locator('.tc-ai-diff-text ins').allTextContents()).map((t) => t.trim())).toEqual(['the']);
    // Edit before allowing: the diff follows the user's words.
    await panel().locator('.tc-ai-ask-edit summary').click();
    await panel().locator('textarea.tc-ai-ask-edit-text').fill('Plant the tomatoes in early May.');
    await served.page.waitForFunction(() => document.querySelector('.tc-ai-ask-panel .tc-ai-diff-text')?.textContent?.includes('early'));
    await panel().locator('.tc-ai-ask-allow').click();
    await panel().waitFor({ state: 'detached' });
    expect(await draftText(served.page, draft)).toBe(`Plant the tomatoes in early May.${REST}`);
    // Nothing is saved until the user saves the tiddler.
    expect(await served.page.evaluate((t) => (window as any).$tw.wiki.getTiddlerText(t), NOTE)).toBe(FIRST + REST);
    await served.page.locator(`[data-tiddler-title="${draft}"] .tc-tiddler-controls button[class*="save"]`).first().click();
    await served.page.waitForFunction((t) => (window as any).$tw.wiki.getTiddlerText(t)?.includes('early May'), NOTE);
  });

  test('a proposal that would load something is flagged; a text changed meanwhile is not overwritten', async () => {
    await openEditor(served.page, `${NOTE} 2`, 'Short note.');
    const draft2 = `Draft of '${NOTE} 2'`;
    const box = panel(draft2);
    served.wiki.mock.queue({ text: 'Short note. [img[https://tracker.example/pixel.png]]' });
    await served.page.locator(`[data-tiddler-title="${draft2}"] .tc-ai-ask-button`).click();
    await dropdown(draft2).locator('[data-instruction="rewrite"]').click();
    await box.locator('.tc-ai-ask-proposal').waitFor();
    expect(await box.locator('.tc-ai-active-content').textContent()).toContain('https://tracker.example/pixel.png');
    // The user types in the editor before allowing: the proposal was for another text.
    await (await editor(served.page, draft2)).fill('Short note, changed by hand.');
    await box.locator('.tc-ai-ask-allow').click();
    await box.locator('.tc-ai-ask-error').waitFor();
    expect(await box.locator('.tc-ai-ask-error').textContent()).toMatch(/changed since you asked/);
    expect(await draftText(served.page, draft2)).toBe('Short note, changed by hand.');
  });

  test('Stop ends a request that is on its way; nothing comes back', async () => {
    await openEditor(served.page, `${NOTE} 3`, 'Another note.');
    const draft3 = `Draft of '${NOTE} 3'`;
    const box = panel(draft3);
    let release!: () => void;
    served.wiki.mock.queue({ text: 'Too late.', hold: new Promise<void>((r) => (release = r)) });
    await served.page.locator(`[data-tiddler-title="${draft3}"] .tc-ai-ask-button`).click();
    await dropdown(draft3).locator('[data-instruction="rewrite"]').click();
    await until(() => served.wiki.mock.requests.at(-1)?.body?.messages?.[0]?.content?.startsWith('Edit request:') === true, 'the request at the model');
    await box.locator('.tc-ai-ask-stop').click();
    await box.waitFor({ state: 'detached' });
    // The request itself ended (the model's server saw its client leave), in the server edition too.
    await until(() => served.wiki.mock.requests.at(-1)?.aborted === true, 'the model request to be aborted');
    release();
    expect(await box.locator('.tc-ai-ask-proposal').count()).toBe(0);
    expect(await draftText(served.page, draft3)).toBe('Another note.');
  });
});
