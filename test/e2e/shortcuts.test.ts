// Shortcuts that say what they do (issue 24.3), judged by what a user sees, in the browser
// edition (turns run in the page) and the server edition (turns run on the server): "Always
// allow" asks once, offers the scopes and shows the rule before it adds it; the next write
// the rule allows runs without a card and its tool line names the rule, with a Revoke that
// works (the next such write asks again); a write outside the scope still asks. Delete turn on
// a turn that changed a tiddler asks: "Roll back first" restores it, "Delete and keep" keeps
// the change and says so; a turn that changed nothing is deleted at once.
import fs from 'node:fs';
import path from 'node:path';
import { navigate, useServedWiki, waitForSync, type Edition } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

jest.setTimeout(90_000);

const AGENT = '$:/demo/agents/offline-demo';
const SHOTS = path.join(ROOT, 'output', 'i24-rules');

describe.each<Edition>(['browser', 'server'])('in the %s edition', (edition) => {
  const served = useServedWiki({ mockDelayMs: 2, edition });

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await navigate(served.page, 'Demo chat');
    await chat().waitFor();
  });

  const chat = () => served.page.locator('.tc-ai-chat[data-chat="Demo chat"]');
  const approval = () => served.page.evaluate((agent) => JSON.parse((window as any).$tw.wiki.getTiddler(agent)?.fields['agent-approval'] ?? '{}'), AGENT);
  const exists = (title: string) => served.page.evaluate((t) => (window as any).$tw.wiki.tiddlerExists(t), title);
  const settled = (expected: string) =>
    served.page.waitForFunction((s) => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === s, expected);
  /** The tool line of the last wiki-create call of `title`. */
  const toolLine = (title: string) => chat().locator('.tc-ai-message-tool[data-tool="wiki-create"]').filter({ hasText: title }).last();
  /** The turn bar of the turn whose user message asked for `title`. */
  const turnBar = (title: string) => chat().locator(`.tc-ai-turn-actions[data-turn="${userMessageOf(title)}"]`);
  const users: Record<string, string> = {};
  const userMessageOf = (title: string) => users[title]!;

  /** Take a screenshot as a phone in a dark palette shows it. */
  async function inDarkAt360(shoot: () => Promise<unknown>): Promise<void> {
    await served.page.setViewportSize({ width: 360, height: 740 });
    await served.page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: '$:/palettes/CupertinoDark' }));
    await served.page.waitForFunction(() => getComputedStyle(document.body).backgroundColor !== 'rgb(255, 255, 255)');
    await shoot();
    await served.page.evaluate(() => (window as any).$tw.wiki.deleteTiddler('$:/palette'));
    await served.page.setViewportSize({ width: 1280, height: 900 });
  }

  async function create(title: string): Promise<void> {
    const before = await chat().locator('.tc-ai-message-user').count();
    await chat()
      .locator('textarea.tc-ai-chat-input')
      .fill(`mock:tool=wiki-create ${JSON.stringify({ title, text: `Text of ${title}` })}`);
    await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
    await served.page.waitForFunction((n) => document.querySelectorAll('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-user').length > n, before);
    users[title] = (await chat().locator('.tc-ai-message-user').last().getAttribute('data-message'))!;
  }

  test('"Always allow" asks once, offers the scopes and shows the rule; the prefix rule lets the next write run, its tool line names the rule and Revoke works; a write outside it asks', async () => {
    await create('Notes/one');
    const card = chat().locator('.tc-ai-approval');
    await card.waitFor();
    await settled('input-required');

    // Always allow decides nothing yet: it asks for what.
    await card.locator('button[data-ai-action="approve-always"]').click();
    const panel = card.locator('.tc-ai-always');
    await panel.waitFor();
    expect(await card.locator('button[data-ai-action="approve-always"]').getAttribute('aria-expanded')).toBe('true');
    expect(await panel.locator('legend').textContent()).toBe('Always allow wiki-create without asking, for:');
    expect(await panel.locator('.tc-ai-always-tiddler').textContent()).toContain('this tiddler: "Notes/one"');
    expect(await panel.locator('.tc-ai-always-prefix-input').inputValue()).toBe('Notes/');
    expect(await panel.locator('.tc-ai-always-tool').textContent()).toContain('every wiki-create call, on any tiddler');
    // The narrowest scope is chosen first, and its rule is shown in words and as JSON.
    expect(await panel.locator('.tc-ai-always-tiddler input').isChecked()).toBe(true);
    expect(await panel.locator('.tc-ai-always-rule').textContent()).toBe(
      'The rule: wiki-create on "Notes/one". It is added to the agent "Offline demo assistant (mock LLM)" and applies in all its chats; each call it allows says so, with a way to revoke it.',
    );
    await panel.locator('.tc-ai-always-tool input').check();
    expect(await panel.locator('.tc-ai-always-rule').textContent()).toContain('The rule: wiki-create runs without asking.');
    // Typing a prefix chooses "tiddlers like it"; one that does not cover this call cannot be added.
    await panel.locator('.tc-ai-always-prefix-input').fill('Other/');
    expect(await panel.locator('.tc-ai-always-prefix input[type="radio"]').isChecked()).toBe(true);
    expect(await panel.locator('.tc-ai-always-problem').textContent()).toContain('does not start with that');
    expect(await panel.locator('button[data-ai-action="always-confirm"]').isDisabled()).toBe(true);
    await panel.locator('.tc-ai-always-prefix-input').fill('Notes/');
    expect(await panel.locator('.tc-ai-always-rule').textContent()).toContain('The rule: wiki-create on tiddlers starting with "Notes/".');
    await panel.locator('.tc-ai-always-json summary').click();
    expect(JSON.parse((await panel.locator('.tc-ai-always-json-text').textContent())!)).toEqual({ 'wiki-create': { allow: ['^Notes/'] } });
    expect(await exists('Notes/one')).toBe(false);
    await panel.screenshot({ path: path.join(SHOTS, `always-allow-panel-${edition}.png`) });
    if (edition === 'browser') await inDarkAt360(() => card.screenshot({ path: path.join(SHOTS, 'always-allow-card-360-dark.png') }));

    await panel.locator('button[data-ai-action="always-confirm"]').click();
    await settled('completed');
    expect(await exists('Notes/one')).toBe(true);
    await served.page.waitForFunction(
      (agent) => JSON.parse((window as any).$tw.wiki.getTiddler(agent)?.fields['agent-approval'] ?? '{}')['wiki-create']?.allow,
      AGENT,
    );
    expect((await approval())['wiki-create']).toEqual({ mode: 'confirm', allow: ['^Notes/'] });

    // The next write the rule allows runs without a card, and says which rule allowed it.
    await create('Notes/two');
    await settled('completed');
    expect(await exists('Notes/two')).toBe(true);
    const line = toolLine('Notes/two');
    await line.locator('.tc-ai-rule-note').waitFor();
    expect(await line.locator('.tc-ai-rule-text').textContent()).toBe('Allowed by your rule: wiki-create on tiddlers starting with "Notes/"');
    await line.screenshot({ path: path.join(SHOTS, `rule-on-tool-line-${edition}.png`) });
    if (edition === 'browser') await inDarkAt360(() => line.screenshot({ path: path.join(SHOTS, 'rule-on-tool-line-360-dark.png') }));

    // A write outside the scope still asks.
    await create('Elsewhere');
    await card.waitFor();
    await settled('input-required');
    await card.locator('button[data-ai-action="approve-deny"]').click();
    await settled('completed');
    expect(await exists('Elsewhere')).toBe(false);

    // Revoke, right there: the rule goes, the line says so, and the next such write asks again.
    await line.locator('button[data-ai-action="revoke-rule"]').click();
    await line.locator('.tc-ai-rule-revoked').waitFor();
    expect(await line.locator('.tc-ai-rule-revoked').textContent()).toBe('Rule revoked: calls like this ask again.');
    expect((await approval())['wiki-create']).toEqual({ mode: 'confirm' });
    await create('Notes/three');
    await card.waitFor();
    await settled('input-required');
    await card.locator('button[data-ai-action="approve-deny"]').click();
    await settled('completed');
    expect(await exists('Notes/three')).toBe(false);
    expect(served.errors).toEqual([]);
  });

  test('Delete turn on a turn that changed a tiddler asks: "Roll back first" restores it, "Delete and keep" keeps it and says so; a turn that changed nothing goes at once', async () => {
    // Two turns that each create a note (allowed once on their cards), and one whose call was denied.
    const card = chat().locator('.tc-ai-approval');
    for (const [title, choice] of [
      ['Kept/one', 'once'],
      ['Kept/two', 'once'],
      ['Not made', 'deny'],
    ] as const) {
      await create(title);
      await card.waitFor();
      await settled('input-required');
      await card.locator(`button[data-ai-action="approve-${choice}"]`).click();
      await settled('completed');
    }
    expect([await exists('Kept/one'), await exists('Kept/two'), await exists('Not made')]).toEqual([true, true, false]);

    const two = turnBar('Kept/two');
    await two.locator('button[data-ai-action="delete-turn"]').click();
    const ask = two.locator('.tc-ai-delete-turn');
    await ask.waitFor();
    expect(await ask.locator('.tc-ai-card-title').textContent()).toBe(
      'This turn changed 1 tiddler ("Kept/two"). Deleting it also deletes the only way to roll it back.',
    );
    expect(await ask.locator('button').allTextContents()).toEqual(['Roll back first, then delete', 'Delete and keep the changes', 'Cancel']);
    await ask.screenshot({ path: path.join(SHOTS, `delete-turn-ask-${edition}.png`) });
    if (edition === 'browser') await inDarkAt360(() => ask.screenshot({ path: path.join(SHOTS, 'delete-turn-ask-360-dark.png') }));
    await ask.locator('button[data-ai-action="delete-turn-cancel"]').click();
    expect(await ask.count()).toBe(0);
    expect(
      await chat()
        .locator(`[data-message="${userMessageOf('Kept/two')}"]`)
        .count(),
    ).toBe(1);
    expect(await exists('Kept/two')).toBe(true);

    // Roll back first: the note goes back to not existing, then the turn goes.
    await two.locator('button[data-ai-action="delete-turn"]').click();
    await two.locator('button[data-ai-action="delete-turn-rollback"]').click();
    await served.page.waitForFunction((m) => !document.querySelector(`.tc-ai-chat[data-chat="Demo chat"] [data-message="${m}"]`), userMessageOf('Kept/two'));
    expect(await exists('Kept/two')).toBe(false);

    // Delete and keep: the note stays, and the chat says so.
    const one = turnBar('Kept/one');
    await one.locator('button[data-ai-action="delete-turn"]').click();
    await one.locator('button[data-ai-action="delete-turn-keep"]').click();
    await served.page.waitForFunction((m) => !document.querySelector(`.tc-ai-chat[data-chat="Demo chat"] [data-message="${m}"]`), userMessageOf('Kept/one'));
    expect(await exists('Kept/one')).toBe(true);
    const notice = chat().locator('.tc-ai-chat-notice');
    expect(await notice.textContent()).toBe('Turn deleted. Its changes to "Kept/one" were kept and can no longer be rolled back.');
    expect(await notice.getAttribute('role')).toBe('status');

    // The denied call changed nothing: its turn goes at once.
    await turnBar('Not made').locator('button[data-ai-action="delete-turn"]').click();
    await served.page.waitForFunction((m) => !document.querySelector(`.tc-ai-chat[data-chat="Demo chat"] [data-message="${m}"]`), userMessageOf('Not made'));
    expect(await chat().locator('.tc-ai-delete-turn').count()).toBe(0);
    if (edition === 'browser') await waitForSync(served.page);
    expect(served.errors).toEqual([]);
  });
});
