// Issue 26, item 4 in a real browser, as a user meets it: "Talk with AI" offers every agent
// (the default first, then by caption) and starts a chat about the tiddler with the one picked;
// the Background panel's Add schedule form says in plain words what to fix (a short interval,
// a cron that does not parse, a time that has passed, active hours, a time zone) and makes a
// schedule that wakes its chat; the context meter shows each part's share of the window and
// warns in words as the prompt nears the compaction point: readable in light and dark palettes,
// and in Chinese.
import type { Locator } from 'playwright-core';
import { measureContrast } from '../helpers/contrast';
import { navigate, useServedWiki } from '../helpers/e2e';

jest.setTimeout(90_000);

const served = useServedWiki({ mockDelayMs: 2, languages: true });
const page = () => served.page;
const DEMO_AGENT = '$:/demo/agents/offline-demo';
const RESEARCHER = '$:/plugins/tiddlyagent/agent/agents/researcher';
const chat = (title: string) => page().locator(`.tc-ai-chat[data-chat="${title}"]`);
const setLanguage = (language: string) => page().evaluate((l) => (window as any).$tw.wiki.addTiddler({ title: '$:/language', text: l }), language);
const settled = (title: string, want: string) =>
  page().waitForFunction(([c, s]) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === s, [title, want]);

async function usePalette(palette: string): Promise<void> {
  const before = await page().evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page().evaluate((p) => (window as any).$tw.wiki.addTiddler({ title: '$:/palette', text: p }), palette);
  if (palette !== '$:/palettes/Vanilla') await page().waitForFunction((b) => getComputedStyle(document.body).backgroundColor !== b, before);
}

beforeAll(async () => {
  await page().evaluate(
    ([agent]) => {
      const tw = (window as any).$tw;
      tw.wiki.addTiddler({ title: 'Garden plan', text: 'Beans by the fence, roses by the door.' });
      // An agent whose caption sorts before every shipped one: the list is by caption, the default first all the same.
      tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler(agent), { title: 'Zz agent', caption: 'Aardvark helper' }));
    },
    [DEMO_AGENT],
  );
});

afterEach(async () => {
  await setLanguage('$:/languages/en-GB');
  await usePalette('$:/palettes/Vanilla');
});

test('Talk with AI lists every agent, the default first, and starts a chat with the one picked', async () => {
  await navigate(page(), 'Garden plan');
  const frame = page().locator('.tc-tiddler-frame[data-tiddler-title="Garden plan"]');
  await frame.locator('button[data-ai-action="talk-with-ai-agents"]').click();
  const items = frame.locator('.tc-ai-talk-agents-menu button[data-ai-action="talk-with-ai-agent"]');
  await items.first().waitFor();
  const listed = await items.evaluateAll((buttons) => buttons.map((b) => [b.getAttribute('data-agent'), b.textContent]));
  const expected = await page().evaluate(() => {
    const tw = (window as any).$tw;
    const agents: string[] = tw.wiki.filterTiddlers('[all[shadows+tiddlers]tag[$:/tags/AI/Agent]!has[draft.of]]');
    const caption = (t: string) => tw.wiki.getTiddler(t).fields.caption ?? t;
    const def = tw.wiki.getTiddlerText('$:/config/tiddlyagent/default-agent').trim();
    return [def, ...agents.filter((a) => a !== def).sort((a, b) => caption(a).localeCompare(caption(b)))];
  });
  expect(expected.length).toBeGreaterThanOrEqual(4);
  expect(listed.map(([agent]) => agent)).toEqual(expected);
  expect(listed[0]![0]).toBe(DEMO_AGENT);
  expect(listed[0]![1]).toBe('Offline demo assistant (mock LLM) (default)');
  expect(listed[1]).toEqual(['Zz agent', 'Aardvark helper']);
  // The menu has opened out (the popup animates) before the picture is taken.
  await frame.locator('.tc-ai-talk-agents-menu').evaluate(
    (menu) =>
      new Promise<void>((done) => {
        const check = () => {
          const reveal = menu.closest('.tc-reveal') as HTMLElement | null;
          const style = reveal ? getComputedStyle(reveal) : undefined;
          if (style && style.opacity === '1' && (style.transform === 'none' || style.transform === 'matrix(1, 0, 0, 1, 0, 0)')) done();
          else requestAnimationFrame(check);
        };
        check();
      }),
  );
  // Every entry can be seen and clicked: none hides under the next tiddler of the story river.
  const covered = await items.evaluateAll(
    (buttons) =>
      buttons.filter((b) => {
        const r = b.getBoundingClientRect();
        return !b.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
      }).length,
  );
  expect(covered).toBe(0);
  await page().screenshot({ path: 'output/e2e/talk-with-ai-agents.png' });

  const before: string[] = await page().evaluate(() => (window as any).$tw.wiki.filterTiddlers('[has[agent]]'));
  await items.filter({ hasText: 'Researcher' }).click();
  await page().waitForFunction((n) => (window as any).$tw.wiki.filterTiddlers('[has[agent]]').length === n + 1, before.length);
  const made = await page().evaluate((old) => {
    const tw = (window as any).$tw;
    const title = tw.wiki.filterTiddlers('[has[agent]]').find((t: string) => !old.includes(t));
    return { title, ...tw.wiki.getTiddler(title).fields };
  }, before);
  expect(made).toMatchObject({ agent: RESEARCHER, 'agent-draft-attachments': '[[Garden plan]]', 'agent-status': 'idle' });
  expect(made.title).toMatch(/Garden plan/);
  // The chat opens with the tiddler attached, the cursor in its composer; the menu is closed.
  await chat(made.title).locator('.tc-ai-composer-chips .tc-ai-chip', { hasText: 'Garden plan' }).waitFor();
  await page().waitForFunction((t) => document.activeElement?.closest('.tc-ai-chat')?.getAttribute('data-chat') === t, made.title);
  expect(await frame.locator('.tc-ai-talk-agents-menu').count()).toBe(0);
  // The button itself still starts a chat with the default agent at once.
  await frame.locator('button[data-ai-action="talk-with-ai"]').click();
  await page().waitForFunction((n) => (window as any).$tw.wiki.filterTiddlers('[has[agent]]').length === n + 2, before.length);
  expect(served.errors).toEqual([]);
});

test('in Chinese the agent menu reads Chinese', async () => {
  await setLanguage('$:/languages/zh-Hans');
  await navigate(page(), 'Garden plan');
  const frame = page().locator('.tc-tiddler-frame[data-tiddler-title="Garden plan"]');
  const toggle = frame.locator('button[data-ai-action="talk-with-ai-agents"]');
  expect(await toggle.getAttribute('aria-label')).toBe('与 AI 对话：选择智能体');
  await toggle.click();
  expect(await frame.locator('.tc-ai-talk-agents-menu').textContent()).toContain('（默认）');
  await toggle.click();
});

async function openForm(): Promise<Locator> {
  await page().locator('.tc-sidebar-tabs-main .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/background"]').click();
  await page().locator('.tc-ai-background').waitFor();
  await page().locator('button[data-ai-action="add-schedule-open"]').click();
  const form = page().locator('.tc-ai-bg-add');
  await form.waitFor();
  return form;
}

/** The form's message after Add, for these values. */
async function refusal(form: Locator, values: { kind: string; field?: string; value?: string; extra?: [string, string] }): Promise<string> {
  await form.locator('select.tc-ai-bg-add-kind').selectOption(values.kind);
  if (values.field) await form.locator(`.tc-ai-bg-add-${values.field}`).fill(values.value ?? '');
  if (values.extra) await form.locator(`.tc-ai-bg-add-${values.extra[0]}`).fill(values.extra[1]);
  await page().evaluate(() => (window as any).$tw.wiki.setText('$:/temp/tiddlyagent/add-schedule', 'error', undefined, ''));
  await form.locator('button[data-ai-action="add-schedule"]').click();
  const error = form.locator('.tc-ai-bg-add-error');
  await error.waitFor();
  const text = (await error.textContent()) ?? '';
  if (values.extra) await form.locator(`.tc-ai-bg-add-${values.extra[0]}`).fill('');
  return text;
}

test('Add schedule says in plain words what to fix, and makes a schedule that wakes a new chat', async () => {
  const form = await openForm();
  await form.locator('.tc-ai-bg-add-message').fill('Water the beans');
  expect(await refusal(form, { kind: 'interval', field: 'interval', value: '30' })).toBe(
    'Write the interval as a whole number of seconds, at least 60 (one minute).',
  );
  expect(await refusal(form, { kind: 'cron', field: 'cron', value: 'every morning' })).toBe(
    '"every morning" is not a cron expression: write five fields (minute hour day month weekday), such as 0 9 * * 1-5.',
  );
  expect(await refusal(form, { kind: 'cron', field: 'cron', value: '* * * * * *' })).toBe(
    '"* * * * * *" runs more often than once a minute; a schedule runs at most every 60 seconds.',
  );
  expect(await refusal(form, { kind: 'at', field: 'at', value: '2020-01-01T09:00' })).toBe('That time has passed: pick a day and time still to come.');
  expect(await refusal(form, { kind: 'interval', field: 'interval', value: '600', extra: ['hours', '9-5'] })).toBe(
    'The active hours "9-5" do not read as HH:MM-HH:MM: write them like 09:00-17:00, or 22:00-06:00 overnight.',
  );
  expect(await refusal(form, { kind: 'interval', field: 'interval', value: '600', extra: ['timezone', 'Mars/Olympus'] })).toBe(
    '"Mars/Olympus" is not a known time zone: write a name such as Europe/Berlin, America/New_York or UTC.',
  );
  // Nothing was made while it said no.
  const schedules = () => page().evaluate(() => (window as any).$tw.wiki.filterTiddlers('[all[tiddlers]tag[$:/tags/AI/Schedule]]') as string[]);
  expect(await schedules()).toEqual([]);
  // Readable in a light and two dark palettes, its message included.
  for (const palette of ['$:/palettes/Vanilla', '$:/palettes/SpartanNight', '$:/palettes/CupertinoDark']) {
    await usePalette(palette);
    const result = await page().evaluate(measureContrast, ['.tc-ai-bg-add']);
    expect({ palette, offenders: result.offenders }).toEqual({ palette, offenders: [] });
  }
  await usePalette('$:/palettes/Vanilla');
  await page().screenshot({ path: 'output/e2e/add-schedule-form.png' });

  // Once, a few seconds from now (UTC wall time), into a new chat with an agent that is not the default.
  await form.locator('select.tc-ai-bg-add-agent').selectOption('Zz agent');
  await form.locator('select.tc-ai-bg-add-kind').selectOption('at');
  const soon = new Date(Date.now() + 6000).toISOString().slice(0, 19);
  await form.locator('.tc-ai-bg-add-at').fill(soon);
  await form.locator('.tc-ai-bg-add-timezone').fill('UTC');
  await form.locator('.tc-ai-bg-add-caption').fill('Beans');
  await form.locator('button[data-ai-action="add-schedule"]').click();
  const added = page().locator('.tc-ai-bg-added');
  await added.waitFor();
  const title = (await added.getAttribute('data-added'))!;
  expect(title).toMatch(/^\$:\/tiddlyagent\/schedules\//);
  const made = await page().evaluate((t) => (window as any).$tw.wiki.getTiddler(t).fields, title);
  expect(made).toMatchObject({
    tags: ['$:/tags/AI/Schedule'],
    caption: 'Beans',
    'schedule-kind': 'at',
    'schedule-at': `${soon}.000Z`,
    'schedule-timezone': 'UTC',
    'schedule-message': 'Water the beans',
    'schedule-enabled': 'yes',
  });
  const newChat = made['agent-chat'] as string;
  expect(await page().evaluate((c) => (window as any).$tw.wiki.getTiddler(c).fields.agent, newChat)).toBe('Zz agent');
  // The panel lists it, without a problem; then it fires: the new chat gets its message as a scheduled turn.
  const item = page().locator(`.tc-ai-background [data-schedule="${title}"]`);
  await item.waitFor();
  expect(await item.locator('.tc-ai-bg-problem').count()).toBe(0);
  // It fires: the run is counted, the chat's turn completes, and the chat gets its automatic
  // title after that first turn (the schedule follows the rename).
  const woke: string = await page()
    .waitForFunction(
      (t) => {
        const wiki = (window as any).$tw.wiki;
        const fields = wiki.getTiddler(t)?.fields ?? {};
        const chat = fields['agent-chat'];
        const done = fields['schedule-run-count'] === '1' && wiki.getTiddler(chat)?.fields['agent-status'] === 'completed' && !/^Chat( \d+)?$/.test(chat);
        return done ? chat : false;
      },
      title,
      { timeout: 30_000 },
    )
    .then((handle) => handle.jsonValue() as Promise<string>);
  await navigate(page(), woke);
  const woken = chat(woke).locator('.tc-ai-message-user:has(.tc-ai-message-source)');
  await woken.waitFor();
  expect(await woken.locator('.tc-ai-message-source').textContent()).toContain('Scheduled');
  expect(await woken.locator('.tc-ai-message-body').textContent()).toBe('Water the beans');
  expect(await page().evaluate((c) => (window as any).$tw.wiki.getTiddler(c).fields.agent, woke)).toBe('Zz agent');
  expect(served.errors).toEqual([]);
});

test('in Chinese the form and its messages read Chinese', async () => {
  await setLanguage('$:/languages/zh-Hans');
  await page().evaluate(() => (window as any).$tw.wiki.deleteTiddler('$:/temp/tiddlyagent/add-schedule'));
  const form = await openForm();
  expect(await form.textContent()).toContain('唤醒的对话');
  await form.locator('.tc-ai-bg-add-message').fill('浇水');
  expect(await refusal(form, { kind: 'interval', field: 'interval', value: '30' })).toBe('间隔须为整数秒，至少 60 秒（一分钟）。');
  expect(await refusal(form, { kind: 'at', field: 'at', value: '2020-01-01T09:00' })).toBe('这个时间已经过去：请选择将来的日期和时间。');
  await form.locator('.tc-ai-bg-add-cancel').click();
});

const METER_CHAT = 'Meter chat';

test('the context meter shows the share of each part, and warns in words as the prompt nears the compaction point', async () => {
  await page().evaluate(
    ([c, agent]) => {
      const tw = (window as any).$tw;
      tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler(agent), { title: 'Meter agent', caption: 'Meter agent', 'agent-context-window': '100000' }));
      tw.wiki.addTiddler({ title: c, agent: 'Meter agent', 'agent-status': 'idle', text: '' });
    },
    [METER_CHAT, DEMO_AGENT],
  );
  await navigate(page(), METER_CHAT);
  const input = chat(METER_CHAT).locator('textarea.tc-ai-chat-input');
  await input.fill('mock:tool=wiki-read {"title":"Garden plan"}');
  await input.press('Control+Enter');
  await settled(METER_CHAT, 'completed');
  const meter = chat(METER_CHAT).locator('.tc-ai-chat-meter');
  await meter.locator('.tc-ai-meter-bar').waitFor();
  // Every part has its segment; the bar says each share in words for a screen reader.
  expect(await meter.locator('.tc-ai-meter-part').evaluateAll((s) => s.map((e) => e.getAttribute('data-part')))).toEqual([
    'system',
    'tools',
    'user',
    'assistant',
    'toolResults',
  ]);
  const label = (await meter.locator('.tc-ai-meter-bar').getAttribute('aria-label')) ?? '';
  expect(label).toMatch(
    /^The prompt by part: system \d+% · tools \d+% · user \d+% · assistant \d+% · tool results \d+%\. It fills \d+% of the context window\.$/,
  );
  // The legend's shares are of the prompt: they add up to about 100.
  const shares = [...label.matchAll(/(\d+)%/g)].slice(0, 5).map((m) => Number(m[1]));
  expect(Math.abs(shares.reduce((a, b) => a + b, 0) - 100)).toBeLessThanOrEqual(3);
  expect(await meter.locator('.tc-ai-meter-legend').textContent()).toMatch(/tool results \d+%/);
  expect(await meter.getAttribute('data-state')).toBe('ok');
  expect(await meter.locator('.tc-ai-meter-warning').count()).toBe(0);

  // The compaction point set just above this prompt's share: the next prompt is within ten points of it.
  const usage = JSON.parse(await page().evaluate((c) => (window as any).$tw.wiki.getTiddler(c).fields['agent-context-usage'], METER_CHAT));
  expect(usage.user + usage.assistant + usage.toolResults).toBeGreaterThan(0);
  const share = (usage.total / usage.window) * 100;
  const at = Math.ceil(share) + 4;
  await page().evaluate((a) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler('Meter agent'), { 'agent-compact-at': String(a) }));
  }, at);
  await input.fill('And the roses?');
  await input.press('Control+Enter');
  await settled(METER_CHAT, 'completed');
  await page().waitForFunction(
    (c) => document.querySelector(`.tc-ai-chat[data-chat="${c}"] .tc-ai-chat-meter`)?.getAttribute('data-state') === 'near',
    METER_CHAT,
  );
  expect(await meter.locator('.tc-ai-meter-warning').textContent()).toMatch(
    new RegExp(`^Nearly full \\(\\d+% used\\): at ${at}% the older turns are summarized\\.$`),
  );
  await page().screenshot({ path: 'output/e2e/context-meter-warning.png' });
  for (const palette of ['$:/palettes/Vanilla', '$:/palettes/SpartanNight', '$:/palettes/CupertinoDark']) {
    await usePalette(palette);
    const result = await page().evaluate(measureContrast, [`.tc-ai-chat[data-chat="${METER_CHAT}"] .tc-ai-chat-meter`]);
    expect({ palette, offenders: result.offenders }).toEqual({ palette, offenders: [] });
  }
  // In Chinese.
  await setLanguage('$:/languages/zh-Hans');
  await chat(METER_CHAT).locator('.tc-ai-meter-warning').waitFor();
  expect(await chat(METER_CHAT).locator('.tc-ai-meter-warning').textContent()).toMatch(
    new RegExp(`^上下文将满（已用 \\d+%）：达到 ${at}% 时将总结较早的对话。$`),
  );
  expect(await chat(METER_CHAT).locator('.tc-ai-meter-bar').getAttribute('aria-label')).toMatch(
    /^提示词各部分占比：系统 \d+% · 工具 \d+% · 用户 \d+% · 助手 \d+% · 工具结果 \d+%。已占用上下文窗口的 \d+%。$/,
  );
  expect(served.errors).toEqual([]);
});

describe('server edition', () => {
  const server = useServedWiki({ mockDelayMs: 2, edition: 'server' });

  test('a schedule added in the page runs on the server and wakes its chat', async () => {
    const p = server.page;
    await p.locator('.tc-sidebar-tabs-main .tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/ui/sidebar/background"]').click();
    await p.locator('button[data-ai-action="add-schedule-open"]').click();
    const form = p.locator('.tc-ai-bg-add');
    await form.locator('select.tc-ai-bg-add-chat').selectOption('Demo chat');
    // The agent is the chat's own: no agent to choose.
    expect(await form.locator('select.tc-ai-bg-add-agent').count()).toBe(0);
    await form.locator('select.tc-ai-bg-add-kind').selectOption('at');
    await form.locator('.tc-ai-bg-add-at').fill(new Date(Date.now() + 6000).toISOString().slice(0, 19));
    await form.locator('.tc-ai-bg-add-timezone').fill('UTC');
    await form.locator('.tc-ai-bg-add-message').fill('Server, wake the demo');
    await form.locator('button[data-ai-action="add-schedule"]').click();
    const title = (await p.locator('.tc-ai-bg-added').getAttribute('data-added'))!;
    // The server's scheduler runs it: the run count it records comes back to the page, and the chat gets the message.
    await p.waitForFunction((t) => (window as any).$tw.wiki.getTiddler(t)?.fields['schedule-run-count'] === '1', title, { timeout: 30_000 });
    await navigate(p, 'Demo chat');
    const woken = p.locator('.tc-ai-chat[data-chat="Demo chat"] .tc-ai-message-user:has(.tc-ai-message-source)');
    await woken.waitFor();
    expect(await woken.locator('.tc-ai-message-body').textContent()).toBe('Server, wake the demo');
    expect(server.errors).toEqual([]);
  });
});
