// The agent settings' rule forms in Chromium: approval rules per tool (mode, allow and deny
// patterns) with the tiddlers each pattern matches as the user types, an invalid pattern said in
// plain words and never saved, tiddlers hidden from the agent never listed, the JSON kept as the
// contract (what the form writes, and the form following an edit of the JSON); the time limits
// and retry policy, each checked as typed; and the forms' words in zh-Hans.
import type { Locator } from 'playwright-core';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const AGENT = 'E2E rules agent';
const served = useServedWiki({ languages: true });

const field = (name: string) => served.page.evaluate((n) => (window as any).$tw.wiki.getTiddler('E2E rules agent').fields[n] ?? '', name);
const setLanguage = (language: string) => served.page.evaluate((l) => (window as any).$tw.wiki.addTiddler({ title: '$:/language', text: l }), language);
const form = () => served.page.locator(`.tc-ai-settings-agent[data-agent="${AGENT}"]`);
const rule = (tool: string) => form().locator(`.tc-ai-rule[data-tool="${tool}"]`);

/** Wait until `field` of the agent holds `value` (TiddlyWiki writes it on the input event). */
async function fieldIs(name: string, value: string) {
  await served.page.waitForFunction(([n, v]) => ((window as any).$tw.wiki.getTiddler('E2E rules agent').fields[n] ?? '') === v, [name, value] as const);
}

/** The matches shown under a pattern input, once they show `count`. */
async function matchesOf(row: Locator, count: number) {
  await row.locator(`.tc-ai-rule-matches[data-count="${count}"]`).waitFor();
  return {
    head: await row.locator('.tc-ai-rule-matches-head').textContent(),
    titles: await row.locator('.tc-ai-rule-matches-list li').allTextContents(),
    more: await row.locator('.tc-ai-rule-matches-more').allTextContents(),
  };
}

beforeAll(async () => {
  await served.page.evaluate(() => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({
      title: 'E2E rules agent',
      tags: '$:/tags/AI/Agent',
      caption: 'E2E rules agent',
      'agent-provider': '$:/demo/providers/mock-llm',
      'agent-tools': 'wiki-edit wiki-read',
      text: 'Test agent.',
    });
    for (let i = 1; i <= 12; i++) tw.wiki.addTiddler({ title: `Drafts/Note ${String(i).padStart(2, '0')}`, text: 'x' });
    // Hidden from the agent: the engine's own state, and a chat's message (whatever its title).
    tw.wiki.addTiddler({ title: '$:/ai/Drafts/secret journal', text: 'secret' });
    tw.wiki.addTiddler({ title: 'Drafts/private message', 'agent-chat': 'Some chat', text: 'private' });
  });
  await navigate(served.page, '$:/plugins/tiddlyagent/agent/settings');
  await served.page.evaluate(() => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/tab', text: '$:/plugins/tiddlyagent/agent/settings/agents' });
    tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/agent', text: 'E2E rules agent' });
  });
  await form().locator('.tc-ai-rules').waitFor();
});

test('approval rules as a form: add a rule, pick its mode, type patterns with their live matches; it writes the JSON the engine reads', async () => {
  expect(await form().locator('.tc-ai-rules-none').textContent()).toContain('No rules');
  await form().locator('select.tc-ai-rules-add-tool').selectOption('wiki-edit');
  await form().locator('button.tc-ai-rules-add-button').click();
  await rule('wiki-edit').locator('select.tc-ai-rule-mode').selectOption('confirm');
  await fieldIs('agent-approval', '{"wiki-edit":{"mode":"confirm"}}');

  await rule('wiki-edit').locator('button.tc-ai-rule-add-pattern').first().click();
  const allow = rule('wiki-edit').locator('.tc-ai-rule-allow li').first();
  const input = allow.locator('input.tc-ai-rule-pattern');
  await input.pressSequentially('^drafts/note 0');
  // Updated as the user types: nine notes match "…note 0", case-insensitively.
  expect(await matchesOf(allow, 9)).toEqual({
    head: 'Matches 9 tiddlers, among them:',
    titles: Array.from({ length: 9 }, (_, i) => `Drafts/Note 0${i + 1}`),
    more: [],
  });
  await input.fill('^drafts/');
  const all = await matchesOf(allow, 12);
  expect(all.titles).toHaveLength(10);
  expect(all.more).toEqual(['… and 2 more.']);
  await fieldIs('agent-approval', '{"wiki-edit":{"mode":"confirm","allow":["^drafts/"]}}');

  // An invalid pattern says so in plain words and is not saved; the rest of the rule stays.
  await rule('wiki-edit').locator('.tc-ai-rule-deny button.tc-ai-rule-add-pattern').click();
  const deny = rule('wiki-edit').locator('.tc-ai-rule-deny li').first();
  await deny.locator('input').fill('Note (1');
  await deny.locator('.tc-ai-rule-problem:not([hidden])').waitFor();
  expect(await deny.locator('.tc-ai-rule-problem').textContent()).toContain('This is not a valid pattern (a regular expression), so it is not saved.');
  expect(await deny.locator('input').getAttribute('aria-invalid')).toBe('true');
  expect(await field('agent-approval')).toBe('{"wiki-edit":{"mode":"confirm","allow":["^drafts/"]}}');
  await deny.locator('input').fill('Note 1[01]$');
  expect((await matchesOf(deny, 2)).titles).toEqual(['Drafts/Note 10', 'Drafts/Note 11']);
  await fieldIs('agent-approval', '{"wiki-edit":{"mode":"confirm","allow":["^drafts/"],"deny":["Note 1[01]$"]}}');
  // The engine reads it as rules (no error) and the page threw nothing.
  expect(served.errors).toEqual([]);
});

test('a pattern that would catch hidden tiddlers never lists (or counts) them', async () => {
  const deny = rule('wiki-edit').locator('.tc-ai-rule-deny li').first();
  for (const [pattern, count] of [
    ['secret', 0],
    ['^\\$:/ai/', 0],
    ['private', 0],
  ] as const) {
    await deny.locator('input').fill(pattern);
    const shown = await matchesOf(deny, count);
    expect(shown.head).toBe('Matches no tiddler now.');
  }
  await deny.locator('input').fill('^drafts/');
  const drafts = await matchesOf(deny, 12);
  expect(drafts.titles.join('\n')).not.toMatch(/private|secret/);
  // Every title the page lists under any pattern: none hidden.
  const listed = await form().locator('.tc-ai-rule-matches-list li').allTextContents();
  expect(listed.filter((t) => /private|secret|\$:\/ai\//.test(t))).toEqual([]);
});

test('Edit as JSON stays: an edit of the JSON redraws the form; removing the last rule empties the field', async () => {
  await form().locator('details.tc-ai-rules-json summary').first().click();
  await form().locator('textarea.tc-ai-settings-json').first().fill('{"*":{"deny":["^Journal$"]},"wiki-read":{"mode":"auto"}}');
  await rule('*').waitFor();
  expect(await rule('*').locator('legend').textContent()).toBe('Every tool (*)');
  expect(await rule('*').locator('.tc-ai-rule-deny input').inputValue()).toBe('^Journal$');
  expect(await rule('wiki-read').locator('select.tc-ai-rule-mode').inputValue()).toBe('auto');
  await rule('*').locator('button.tc-ai-rule-remove').click();
  await fieldIs('agent-approval', '{"wiki-read":{"mode":"auto"}}');
  await rule('wiki-read').locator('button.tc-ai-rule-remove').click();
  await fieldIs('agent-approval', '');
  // JSON the form cannot show says so, instead of a form that would lose it.
  await form().locator('textarea.tc-ai-settings-json').first().fill('{"wiki-edit": {"allow": "^Drafts/"}}');
  await form().locator('.tc-ai-rules[data-broken="yes"]').waitFor();
  expect(await form().locator('.tc-ai-rules-broken').textContent()).toContain('Fix them under “Edit as JSON”');
  await form().locator('textarea.tc-ai-settings-json').first().fill('');
  await form().locator('.tc-ai-rules-none').waitFor();
});

test('time limits and retries: each written as typed when valid, a bad value named and not saved', async () => {
  const limit = (f: string) => form().locator(`.tc-ai-limit[data-field="${f}"]`);
  await limit('agent-tool-timeout').locator('input').fill('45');
  await fieldIs('agent-tool-timeout', '45');
  await limit('agent-tool-timeout').locator('input').fill('4.5');
  await limit('agent-tool-timeout').locator('.tc-ai-rule-problem:not([hidden])').waitFor();
  expect(await limit('agent-tool-timeout').locator('.tc-ai-rule-problem').textContent()).toBe(
    'Not saved: enter a whole number from 1 to 3600, or leave it empty for the default (30).',
  );
  expect(await field('agent-tool-timeout')).toBe('45');

  await limit('agent-retries').locator('input').fill('0');
  await fieldIs('agent-retries', '0');
  await limit('agent-retry-delay').locator('input').fill('1.5');
  await fieldIs('agent-retry-delay', '1.5');
  await limit('agent-retry-max-delay').locator('input').fill('9999');
  expect(await limit('agent-retry-max-delay').locator('.tc-ai-rule-problem').textContent()).toBe(
    'Not saved: enter a number from 0 to 600 (such as 1.5), or leave it empty for the default (8).',
  );
  expect(await field('agent-retry-max-delay')).toBe('');

  // A time limit per tool: a row, its tool and seconds.
  await form().locator('button.tc-ai-limits-add-tool').click();
  const row = form().locator('.tc-ai-limits-tool').first();
  await row.locator('select').selectOption('wiki-read');
  await row.locator('input').fill('90');
  await fieldIs('agent-tool-timeouts', '{"wiki-read":90}');
  await row.locator('input').fill('0');
  expect(await row.locator('.tc-ai-rule-problem').textContent()).toContain('from 1 to 3600');
  expect(await field('agent-tool-timeouts')).toBe('{"wiki-read":90}');
  await row.locator('button.tc-ai-limits-remove-tool').click();
  await fieldIs('agent-tool-timeouts', '');
  expect(served.errors).toEqual([]);
});

test('in zh-Hans the forms speak Chinese: modes, pattern matches, an invalid pattern, a bad limit', async () => {
  await setLanguage('$:/languages/zh-Hans');
  try {
    await form().locator('.tc-ai-rules-none').waitFor();
    expect(await form().locator('.tc-ai-rules-none').textContent()).toContain('没有规则');
    await form().locator('select.tc-ai-rules-add-tool').selectOption('*');
    await form().locator('button.tc-ai-rules-add-button').click();
    expect(await rule('*').locator('legend').textContent()).toBe('所有工具（*）');
    expect(await rule('*').locator('select.tc-ai-rule-mode option').allTextContents()).toEqual([
      '按工具默认（修改需询问，读取直接运行）',
      '直接运行，不询问',
      '先问我',
    ]);
    await rule('*').locator('button.tc-ai-rule-add-pattern').first().click();
    const allow = rule('*').locator('.tc-ai-rule-allow li').first();
    await allow.locator('input').fill('^drafts/note 1');
    expect((await matchesOf(allow, 3)).head).toBe('匹配 3 个条目，其中包括：');
    await allow.locator('input').fill('[');
    expect(await allow.locator('.tc-ai-rule-problem').textContent()).toContain('这不是有效的模式（正则表达式），因此未保存。');
    const limit = form().locator('.tc-ai-limit[data-field="agent-retries"]');
    expect(await limit.locator('label').textContent()).toBe('模型请求失败后的重试次数');
    await limit.locator('input').fill('11');
    expect(await limit.locator('.tc-ai-rule-problem').textContent()).toBe('未保存：请输入 0 到 10 之间的整数，或留空使用默认值（2）。');
    expect(await form().locator('details.tc-ai-rules-json summary').first().textContent()).toBe('以 JSON 编辑');
  } finally {
    await setLanguage('$:/languages/en-GB');
  }
});
