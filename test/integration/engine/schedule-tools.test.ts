// The schedule tools against a real TiddlyWiki with a scripted model and an injected clock:
// what they schedule, every bad input that must end in a tool error with nothing scheduled,
// and the model trying to reach other chats' schedules or schedule tiddlers through other paths.
import { runTurn } from '../../../src/agent/engine/loop';
import { SCHEDULE_TOOLS } from '../../../src/agent/tools/schedule-tools';
import { summaryTool } from '../../../src/agent/tools/control-tools';
import type { ToolDefinition } from '../../../src/agent/tools/tool';
import { WIKI_READ_TOOLS } from '../../../src/agent/tools/wiki-read-tools';
import { WIKI_WRITE_TOOLS } from '../../../src/agent/tools/wiki-write-tools';
import { bootEngineWiki, engineDeps, Events, reply, scriptedModel, toolCalls, type Fields, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});

const NOW = Date.parse('2026-11-24T12:00:00Z');
const TOOLS: ToolDefinition[] = [...SCHEDULE_TOOLS, summaryTool, ...WIKI_READ_TOOLS, ...WIKI_WRITE_TOOLS];
const ALL = 'alarm-clock schedule-task list-schedules remove-schedule summary wiki-search wiki-read wiki-list wiki-create';
/** schedule-task needs the user's confirmation by default; these tests are about what it does once allowed. */
const AUTO = '{"schedule-task":{"mode":"auto"}}';

/** Run one turn whose model makes `calls` (one reply), then answers "ok"; returns the tool results by call id. */
async function callTools(chat: string, calls: [string, string, unknown][]): Promise<Map<string, Fields>> {
  const { model } = scriptedModel([toolCalls(...calls), reply('ok')]);
  await runTurn(engineDeps(h, model, TOOLS, new Events(), { now: () => NOW }), { chat, signal: new AbortController().signal, userText: 'go' });
  return new Map(
    h
      .messages(chat)
      .filter((m) => m.role === 'tool')
      .map((m) => [m['tool-call-id']!, m]),
  );
}

const schedulesOf = (chat: string) =>
  (h.$tw.wiki.filterTiddlers('[all[tiddlers]tag[$:/tags/AI/Schedule]]') as string[]).map((t) => h.fields(t)).filter((f) => f['agent-chat'] === chat);

test('schedule-task stores a checked schedule for this chat with its next run; list-schedules shows it; remove-schedule removes it', async () => {
  const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
  const results = await callTools(chat, [
    [
      'c1',
      'schedule-task',
      {
        kind: 'cron',
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Berlin',
        activeHours: '08:00-18:00',
        message: 'Remind me to update my health records',
        name: 'Health',
      },
    ],
    ['c2', 'schedule-task', { kind: 'interval', intervalSeconds: 3600, message: 'Hourly check', maxRuns: 3 }],
  ]);
  expect(results.get('c1')!['tool-status']).toBe('ok');
  const [cron, interval] = schedulesOf(chat).sort((a, b) => a['schedule-kind']!.localeCompare(b['schedule-kind']!));
  expect(cron).toMatchObject({
    'schedule-kind': 'cron',
    'schedule-cron': '0 9 * * 1-5',
    'schedule-timezone': 'Europe/Berlin',
    'schedule-enabled': 'yes',
    'schedule-run-count': '0',
    caption: 'Health',
  });
  // 24 Nov 2026 is a Tuesday; 09:00 in Berlin (CET) is 08:00 UTC the next morning.
  expect(cron!['schedule-next-run']).toBe('2026-11-25T08:00:00.000Z');
  expect(cron!.title).toMatch(new RegExp(`^\\$:/ai/schedules/${chat}/`));
  expect(interval).toMatchObject({ 'schedule-interval': '3600', 'schedule-max-runs': '3', 'schedule-next-run': '2026-11-24T13:00:00.000Z' });

  const listed = await callTools(chat, [['l1', 'list-schedules', {}]]);
  expect(listed.get('l1')!.text).toContain('This chat has 2 schedule(s)');
  expect(listed.get('l1')!.text).toContain(`id: ${cron!.title}`);
  const removed = await callTools(chat, [['r1', 'remove-schedule', { id: cron!.title }]]);
  expect(removed.get('r1')!['tool-status']).toBe('ok');
  expect(schedulesOf(chat).map((s) => s.title)).toEqual([interval!.title]);
});

test('alarm-clock sets a one-off alarm and ends the turn with its confirmation', async () => {
  const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
  const { model, requests } = scriptedModel([toolCalls(['a1', 'alarm-clock', { delaySeconds: 600, message: 'Check the oven' }]), reply('never asked')]);
  expect(
    await runTurn(engineDeps(h, model, TOOLS, new Events(), { now: () => NOW }), { chat, signal: new AbortController().signal, userText: 'remind me' }),
  ).toEqual({ status: 'completed' });
  expect(requests).toHaveLength(1);
  expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: expect.stringMatching(/^Alarm set for 2026-11-24T12:10:00.000Z/) });
  expect(schedulesOf(chat)).toEqual([
    expect.objectContaining({ 'schedule-kind': 'at', 'schedule-at': '2026-11-24T12:10:00.000Z', 'schedule-message': 'Check the oven' }),
  ]);
});

describe('bad input: a clear tool error and nothing scheduled', () => {
  const cases: [string, string, unknown, RegExp][] = [
    ['an invalid cron expression', 'schedule-task', { kind: 'cron', cron: '99 * * * *', message: 'x' }, /not a valid cron expression/],
    ['an unknown time zone', 'schedule-task', { kind: 'cron', cron: '0 9 * * *', timezone: 'Atlantis/Lost', message: 'x' }, /not a known time zone/],
    ['a time in the past for "at"', 'schedule-task', { kind: 'at', at: '2026-11-24T11:00:00Z', message: 'x' }, /not in the future/],
    ['an alarm in the past', 'alarm-clock', { at: '2020-01-01T00:00:00Z' }, /not in the future/],
    ['a time without a zone', 'schedule-task', { kind: 'at', at: '2026-12-01 09:00', message: 'x' }, /ISO 8601/],
    ['an interval under 60 s', 'schedule-task', { kind: 'interval', intervalSeconds: 30, message: 'x' }, /at least 60/],
    ['active hours that do not parse', 'schedule-task', { kind: 'interval', intervalSeconds: 60, activeHours: 'mornings', message: 'x' }, /do not parse/],
    ['a cron that runs every second', 'schedule-task', { kind: 'cron', cron: '* * * * * *', message: 'x' }, /more often than once a minute/],
    ['an alarm with no time', 'alarm-clock', { message: 'x' }, /Give the time/],
    ['wrong argument types', 'schedule-task', { kind: 'weekly', message: 3 }, /Invalid arguments/],
    ['a repeating alarm (alarms are one-offs)', 'alarm-clock', { delaySeconds: 120, repeatMinutes: 5 }, /Invalid arguments/],
  ];
  test.each(cases)('%s', async (_name, tool, args, error) => {
    const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
    const result = (await callTools(chat, [['b1', tool, args]])).get('b1')!;
    expect(result['tool-status']).toBe('error');
    expect(result.text).toMatch(error);
    expect(schedulesOf(chat)).toEqual([]);
  });

  test('more than 10 active schedules for one chat', async () => {
    const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
    const calls = Array.from({ length: 11 }, (_, i): [string, string, unknown] => [
      `m${i}`,
      'schedule-task',
      { kind: 'interval', intervalSeconds: 60 * (i + 1), message: `n${i}` },
    ]);
    const results = await callTools(chat, calls);
    expect([...results.values()].filter((r) => r['tool-status'] === 'ok')).toHaveLength(10);
    expect([...results.values()].find((r) => r['tool-status'] === 'error')!.text).toMatch(/already has 10 active schedules/);
    expect(schedulesOf(chat)).toHaveLength(10);
  });
});

describe('the model cannot reach other chats or schedule tiddlers another way', () => {
  test("another chat's schedule is not found, neither listed nor removable", async () => {
    const victim = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
    await callTools(victim, [['v1', 'schedule-task', { kind: 'interval', intervalSeconds: 600, message: 'victim task' }]]);
    const [theirs] = schedulesOf(victim);
    const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
    const results = await callTools(chat, [
      ['x1', 'remove-schedule', { id: theirs!.title }],
      ['x2', 'list-schedules', {}],
      ['x3', 'wiki-search', { query: 'victim task' }],
      ['x4', 'wiki-read', { title: theirs!.title }],
      ['x5', 'wiki-list', { filter: '[all[tiddlers]tag[$:/tags/AI/Schedule]]' }],
    ]);
    expect(results.get('x1')).toMatchObject({ 'tool-status': 'error', text: expect.stringMatching(/This chat has no schedule/) });
    expect(results.get('x2')!.text).toBe('This chat has no schedules.');
    expect(results.get('x3')!.text).toMatch(/No tiddlers found/);
    for (const id of ['x4', 'x5']) expect(results.get(id)!.text).not.toContain('victim task');
    expect(results.get('x5')!.text).not.toContain('$:/ai/schedules/');
    expect(schedulesOf(victim)).toHaveLength(1);
  });

  test('wiki-create cannot make a schedule (a tiddler tagged $:/tags/AI/Schedule)', async () => {
    const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': '{"wiki-create":{"mode":"auto"}}' });
    const results = await callTools(chat, [
      [
        'w1',
        'wiki-create',
        {
          title: 'Sneaky',
          text: '',
          tags: ['$:/tags/AI/Schedule'],
          fields: { 'schedule-kind': 'interval', 'schedule-interval': '60', 'schedule-message': 'x' },
        },
      ],
    ]);
    expect(results.get('w1')!['tool-status']).toBe('error');
    expect(h.$tw.wiki.tiddlerExists('Sneaky')).toBe(false);
  });

  test("a sub-agent's hidden chat cannot schedule", async () => {
    const parent = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
    const child = h.store.createSubAgentChat(parent, h.agentOf(parent), 'Sub-task');
    const results = await callTools(child, [['s1', 'alarm-clock', { delaySeconds: 120 }]]);
    expect(results.get('s1')).toMatchObject({ 'tool-status': 'error', text: expect.stringMatching(/sub-agent cannot set alarms/) });
    expect(schedulesOf(child)).toEqual([]);
  });
});

test('by default schedule-task waits for the user to confirm it; nothing is scheduled before', async () => {
  const chat = h.newChat({ 'agent-tools': ALL });
  const { model } = scriptedModel([toolCalls(['c1', 'schedule-task', { kind: 'interval', intervalSeconds: 60, message: 'Every minute, forever' }])]);
  expect(await runTurn(engineDeps(h, model, TOOLS, new Events(), { now: () => NOW }), { chat, signal: new AbortController().signal, userText: 'go' })).toEqual({
    status: 'input-required',
  });
  expect(h.messages(chat).find((m) => m['tool-call-id'] === 'c1')!['tool-status']).toBe('pending');
  expect(schedulesOf(chat)).toEqual([]);
});

test("remove-schedule leaves the user's own schedules alone", async () => {
  const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
  h.$tw.wiki.addTiddler({
    title: 'My weekly review',
    tags: '$:/tags/AI/Schedule',
    'agent-chat': chat,
    'schedule-kind': 'cron',
    'schedule-cron': '0 9 * * 1',
    'schedule-message': 'Weekly review',
  });
  const results = await callTools(chat, [['r1', 'remove-schedule', { id: 'My weekly review' }]]);
  expect(results.get('r1')).toMatchObject({ 'tool-status': 'error', text: expect.stringMatching(/the user made; only the user changes it/) });
  expect(h.$tw.wiki.tiddlerExists('My weekly review')).toBe(true);
});

test('a turn a schedule started cannot set an alarm less than a minute ahead (no tight loop of alarms)', async () => {
  const chat = h.newChat({ 'agent-tools': ALL, 'agent-approval': AUTO });
  const woken = (calls: [string, string, unknown][]) => {
    const { model } = scriptedModel([toolCalls(...calls), reply('ok')]);
    return runTurn(engineDeps(h, model, TOOLS, new Events(), { now: () => NOW }), {
      chat,
      signal: new AbortController().signal,
      userText: 'Alarm: continue',
      source: 'schedule:$:/ai/schedules/x/1',
    });
  };
  await woken([
    ['w1', 'alarm-clock', { delaySeconds: 5 }],
    ['w2', 'alarm-clock', { delaySeconds: 90 }],
  ]);
  const results = new Map(
    h
      .messages(chat)
      .filter((m) => m.role === 'tool')
      .map((m) => [m['tool-call-id']!, m]),
  );
  expect(results.get('w1')).toMatchObject({ 'tool-status': 'error', text: expect.stringMatching(/at least 60 s ahead/) });
  expect(results.get('w2')!['tool-status']).toBe('ok');
  expect(schedulesOf(chat).map((s) => s['schedule-at'])).toEqual(['2026-11-24T12:01:30.000Z']);
});
