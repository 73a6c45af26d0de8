// Schedules in the server edition (`tiddlywiki --listen` with the server plugin, the mock LLM
// on loopback): an alarm the model sets fires and its reply is written; a schedule set before
// a SIGKILL fires once after the restart; a cron task whose run falls outside its active
// hours is skipped; a schedule edited by hand into an invalid state never fires; a scheduled run
// that asks a question nobody answers ends after the agent's unattended timeout, and the next one runs.
import fs from 'node:fs';
import path from 'node:path';
import {
  chatStatus,
  getTiddler,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  tiddlerFiles,
  until,
  writeChat,
  type Fields,
  type MockLlm,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(40_000);

let mock: MockLlm;
let server: TwServer;
let dir: string;

const iso = (ms: number) => new Date(ms).toISOString();
const hh = (h: number) => `${String(((h % 24) + 24) % 24).padStart(2, '0')}:00`;

function writeSchedule(name: string, fields: Fields): void {
  const all: Fields = { title: `Schedule ${name}`, tags: '$:/tags/AI/Schedule', 'schedule-message': `Message of ${name}`, ...fields };
  fs.writeFileSync(
    path.join(dir, 'tiddlers', `Schedule ${name}.tid`),
    `${Object.entries(all)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n`,
  );
}

const woken = (chat: string) => savedMessages(dir, chat).filter((m) => m.role === 'user' && m['agent-source']);

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  for (const chat of ['Alarm chat', 'Kill chat', 'Past-due chat', 'Night chat', 'Broken chat']) writeChat(dir, chat);
  // An agent whose runs nobody watches wait at most 1 s for an answer (issue 26, item 2).
  fs.writeFileSync(
    path.join(dir, 'tiddlers', 'Unattended agent.tid'),
    'title: Unattended agent\ntags: $:/tags/AI/Agent\nagent-provider: $:/demo/providers/mock-llm\nagent-tools: ask-question\nagent-unattended-timeout: 1\n\nYou are a test agent.\n',
  );
  writeChat(dir, 'Unattended chat', { agent: 'Unattended agent' });
  const now = Date.now();
  const hour = new Date(now).getUTCHours();
  // Due long ago (its stored next run is in the past), every hour, but only active three hours from now: skipped.
  writeSchedule('night', {
    'agent-chat': 'Night chat',
    'schedule-kind': 'cron',
    'schedule-cron': '0 * * * *',
    'schedule-timezone': 'UTC',
    'schedule-active-hours': `${hh(hour + 3)}-${hh(hour + 4)}`,
    'schedule-next-run': iso(now - 3_600_000),
  });
  // A one-off whose time passed while the server was down: runs once at start.
  writeSchedule('past-due', { 'agent-chat': 'Past-due chat', 'schedule-kind': 'at', 'schedule-at': iso(now - 60_000) });
  // Broken by hand: an invalid cron expression and a past next run. Never fires.
  writeSchedule('broken', {
    'agent-chat': 'Broken chat',
    'schedule-kind': 'cron',
    'schedule-cron': 'every day at nine',
    'schedule-next-run': iso(now - 60_000),
  });
  server = await startServer(dir);
});

afterAll(async () => {
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('an alarm the model sets ends its turn, fires on time as a turn from the schedule, and its reply is written', async () => {
  const chat = 'Alarm chat';
  const sent = await post(server.url, 'send', { chat, text: 'mock:tool=alarm-clock {"delaySeconds":1,"message":"Wake up and report"}' });
  expect(sent.status).toBe(202);
  await until(
    'the alarm to fire and its turn to complete',
    () => woken(chat).length === 1 && savedMessages(dir, chat).at(-1)?.role === 'assistant' && savedMessages(dir, chat).length >= 5,
  );
  await until('completed', async () => (await chatStatus(server.url, chat)) === 'completed');
  const messages = savedMessages(dir, chat);
  // The turn that set the alarm ended with the alarm's confirmation (no further model call).
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
  expect(messages[3]!.text).toMatch(/^Alarm set for .*Wake up and report.*The turn ends here/);
  const wake = messages[4]!;
  expect(wake.text).toBe('Wake up and report');
  expect(wake['agent-source']).toMatch(/^schedule:\$:\/ai\/schedules\/Alarm chat\//);
  // The model was told the message came from a schedule, not typed by the user.
  expect(messages[5]!.text).toContain('Scheduled: sent automatically');
  // The alarm did its work: it is gone, on disk too.
  expect(wake['agent-source']).toMatch(/^schedule:\$:\/ai\/schedules\//);
  expect([...tiddlerFiles(dir).tiddlers.values()].filter((t) => t['agent-chat'] === chat && t.tags === '$:/tags/AI/Schedule')).toEqual([]);
});

test('at start: a past-due one-off runs once; a due cron run outside its active hours is skipped; a broken schedule never fires', async () => {
  await until('the past-due one-off to run', () => woken('Past-due chat').length === 1 && savedMessages(dir, 'Past-due chat').at(-1)?.role === 'assistant');
  expect(woken('Past-due chat')[0]!.text).toBe('Message of past-due');
  expect(await getTiddler(server.url, 'Schedule past-due')).toMatchObject({ 'schedule-run-count': '1', 'schedule-enabled': 'no' });

  // The night schedule was looked at in the same start-up pass: skipped, moved into its window, not counted.
  const night = (await getTiddler(server.url, 'Schedule night'))!;
  expect(night['schedule-run-count'] ?? '0').toBe('0');
  const next = Date.parse(night['schedule-next-run']!);
  expect(next).toBeGreaterThan(Date.now());
  expect(new Date(next).getUTCMinutes()).toBe(0);
  expect(savedMessages(dir, 'Night chat')).toEqual([]);

  const broken = (await getTiddler(server.url, 'Schedule broken'))!;
  expect(broken['schedule-run-count']).toBeUndefined();
  expect(savedMessages(dir, 'Broken chat')).toEqual([]);
});

test('an alarm the model sets survives a SIGKILL and fires once after the restart', async () => {
  const chat = 'Kill chat';
  await post(server.url, 'send', { chat, text: `mock:tool=alarm-clock {"at":"${iso(Date.now() + 2500)}","message":"After the crash"}` });
  await until('the schedule to be on disk', () =>
    [...tiddlerFiles(dir).tiddlers.values()].some((t) => t['agent-chat'] === chat && t.tags === '$:/tags/AI/Schedule'),
  );
  await until('the turn to end', async () => (await chatStatus(server.url, chat)) === 'completed');
  await server.kill();
  server = await startServer(dir);
  await until('the schedule to fire after the restart', () => woken(chat).length === 1 && savedMessages(dir, chat).at(-1)?.role === 'assistant', 20_000);
  expect(woken(chat).map((m) => m.text)).toEqual(['After the crash']);
  expect([...tiddlerFiles(dir).tiddlers.values()].filter((t) => t['agent-chat'] === chat && t.tags === '$:/tags/AI/Schedule')).toEqual([]);
});

test('a scheduled run that asks a question nobody answers ends after agent-unattended-timeout, and the next due run goes ahead', async () => {
  const chat = 'Unattended chat';
  const now = Date.now();
  writeSchedule('asks', {
    'agent-chat': chat,
    'schedule-kind': 'at',
    'schedule-at': iso(now + 1000),
    'schedule-message': 'mock:tool=ask-question {"question":"Anyone there?"}',
  });
  // Due while the first run waits for its answer: it waits too, then runs.
  writeSchedule('after', { 'agent-chat': chat, 'schedule-kind': 'at', 'schedule-at': iso(now + 1500), 'schedule-message': 'The next run' });
  await server.kill();
  server = await startServer(dir);
  await until('the first run to end unanswered', () => savedMessages(dir, chat).some((m) => m.role === 'error'), 20_000);
  const error = savedMessages(dir, chat).find((m) => m.role === 'error')!;
  expect(error['error-kind']).toBe('unanswered');
  expect(error.text).toContain('the question "Anyone there?"');
  expect(error.text).toContain('the schedule "Schedule asks"');
  await until('the next run to complete', () => woken(chat).length === 2 && savedMessages(dir, chat).at(-1)?.role === 'assistant', 20_000);
  expect(woken(chat).map((m) => m.text)).toEqual(['mock:tool=ask-question {"question":"Anyone there?"}', 'The next run']);
  const question = savedMessages(dir, chat).find((m) => m['tool-name'] === 'ask-question')!;
  expect(question).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'unanswered' });
  await until('completed', async () => (await chatStatus(server.url, chat)) === 'completed');
});
