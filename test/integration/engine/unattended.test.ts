// Unattended turns never hang (issue 26, item 2): a question or a confirmation in a turn no user
// started (a schedule's, a heartbeat's, a sub-agent's of such a turn) waits only for the agent's
// `agent-unattended-timeout`; then the turn ends with a line saying what it waited for, the chat
// leaves input-required, and the schedule's next run goes ahead. A turn a user started keeps
// waiting. A real TiddlyWiki, a real LocalRunner and Scheduler, a scripted model, and one injected
// clock for both (no waiting on wall-clock time).
import * as z from 'zod/mini';
import { askQuestionTool } from '../../../src/agent/tools/control-tools';
import { defineTool, type ToolDefinition } from '../../../src/agent/tools/tool';
import type { LanguageModel } from '../../../src/agent/providers/types';
import { bootEngineWiki, reply, scriptedModel, toolCalls, toolMap, toolMessagesOf, within, type Harness, type Runner } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});

const START = Date.parse('2026-11-24T12:00:00Z');

/** A clock the test moves: timers run when their time comes. */
class TestClock {
  time = START;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private ids = 0;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  };
  clearTimeout = (id: unknown) => void this.timers.delete(id as number);
  pending(): number {
    return this.timers.size;
  }
  /** Move on by `ms`, running every timer due on the way (and the timers they set). */
  advance(ms: number): void {
    const to = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
    }
    this.time = to;
  }
}

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose();
});

/** A LocalRunner over the booted wiki whose model is `model` and whose time is `clock`. */
function runnerOn(clock: TestClock, model: LanguageModel, tools: ToolDefinition[]): Runner {
  const runner = new h.lib.LocalRunner({
    wiki: h.port,
    fetch: () => Promise.reject(new Error('no network in these tests')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: toolMap(tools),
    createModel: () => model,
    now: clock.now,
    clock,
  });
  disposers.push(() => runner.dispose());
  return runner;
}

/** Resolves when `check` holds (polled, bounded: a broken runner fails the test instead of hanging it). */
async function until(check: () => boolean, what: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await within(
      new Promise<void>((resolve) => {
        const look = () => {
          if (check()) resolve();
          else timer = setTimeout(look, 5);
        };
        look();
      }),
      what,
    );
  } finally {
    clearTimeout(timer);
  }
}

const pendingOf = (chat: string) => h.messages(chat).filter((m) => m['tool-status'] === 'pending');
const errorsOf = (chat: string) => h.messages(chat).filter((m) => m.role === 'error');

/** A write tool that needs confirmation (the default for a write), recording what it wrote. */
function noteTool() {
  const written: string[] = [];
  const tool = defineTool({
    name: 'write-note',
    description: 'Write a note.',
    parameters: z.object({ title: z.string() }),
    access: 'write',
    execute: ({ title }) => {
      written.push(title);
      return { content: `wrote ${title}` };
    },
    preview: ({ title }) => `Will write "${title}".`,
  });
  return { tool, written };
}

test('a scheduled run that asks a question ends when nobody answers in time, and the next run goes ahead', async () => {
  const clock = new TestClock();
  const chat = h.newChat({ 'agent-tools': 'ask-question', 'agent-unattended-timeout': '900' });
  const s = scriptedModel([toolCalls(['q-1', 'ask-question', { question: 'Which colour should the digest use?' }]), reply('Second run done.')]);
  const runner = runnerOn(clock, s.model, [askQuestionTool]);
  const schedule = '$:/ai/schedules/unattended/1';
  h.$tw.wiki.addTiddler({
    title: schedule,
    tags: '$:/tags/AI/Schedule',
    'agent-chat': chat,
    'schedule-kind': 'interval',
    'schedule-interval': '600',
    'schedule-message': 'Make the digest.',
  });
  const { stop } = h.lib.startScheduler(runner, h.port, h.$tw.wiki as never, { clock });
  disposers.push(stop);

  // 10 min: the first run asks, and waits.
  clock.advance(600_000);
  await until(() => h.status(chat) === 'input-required', 'the first run to wait for its question');
  const [question] = pendingOf(chat);
  expect(question).toMatchObject({ 'tool-name': 'ask-question', 'unattended-expires': String(START + 600_000 + 900_000) });
  expect(runner.isFree(chat)).toBe(false);

  // 20 min: the second run is due while the chat waits: it waits too (not sent, not lost).
  clock.advance(600_000);
  await Promise.resolve();
  expect(h.messages(chat).filter((m) => m.role === 'user')).toHaveLength(1);
  expect(h.status(chat)).toBe('input-required');

  // 25 min: nobody answered in 15 min: the run ends with a line saying what it waited for.
  clock.advance(300_000);
  await until(() => h.messages(chat).filter((m) => m.role === 'user').length === 2, 'the due run to go ahead once the chat is free');
  const [error] = errorsOf(chat);
  expect(error).toMatchObject({ 'error-kind': 'unanswered' });
  expect(error!.text).toContain('the question "Which colour should the digest use?"');
  expect(error!.text).toContain(`the schedule "${schedule}"`);
  expect(h.fields(question!.title!)).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'unanswered' });
  expect(h.fields(question!.title!)['unattended-expires']).toBeUndefined();

  // The due run went ahead: its message and its reply, and the chat is done, not stuck.
  await until(() => h.status(chat) === 'completed', 'the second run to complete');
  expect(
    h
      .messages(chat)
      .filter((m) => m.role === 'user')
      .map((m) => m['agent-source']),
  ).toEqual([`schedule:${schedule}`, `schedule:${schedule}`]);
  expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Second run done.' });
  expect(s.requests).toHaveLength(2);
  // The model of the next run is told the question went unanswered.
  expect(toolMessagesOf(s.requests[1]!).get('q-1')!.content).toMatch(/Nobody answered this question in time/);
  expect(h.fields(schedule)['schedule-run-count']).toBe('2');
});

test('a heartbeat run waiting for a confirmation ends at the unattended timeout: the call is not run and the model is not called again', async () => {
  const clock = new TestClock();
  const chat = h.newChat({ 'agent-tools': 'write-note', 'agent-unattended-timeout': '60' });
  const note = noteTool();
  const s = scriptedModel([toolCalls(['w-1', 'write-note', { title: 'Night note' }])]);
  const runner = runnerOn(clock, s.model, [note.tool]);

  expect(await runner.submit({ kind: 'send', chat, text: 'Heartbeat.', source: `heartbeat:${h.agentOf(chat)}` })).toEqual({ status: 'input-required' });
  const [pending] = pendingOf(chat);
  // The confirmation's own timeout (600 s by default) is later than the unattended one.
  expect(Number(pending!['approval-expires'])).toBe(START + 600_000);
  expect(pending!['unattended-expires']).toBe(String(START + 60_000));

  clock.advance(59_000);
  await Promise.resolve();
  expect(h.status(chat)).toBe('input-required');
  clock.advance(1_000);
  await until(() => h.status(chat) === 'failed', 'the run to end');

  expect(note.written).toEqual([]);
  expect(s.requests).toHaveLength(1);
  expect(h.fields(pending!.title!)).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'expired' });
  const [error] = errorsOf(chat);
  expect(error).toMatchObject({ 'error-kind': 'unanswered' });
  expect(error!.text).toContain('a confirmation to run write-note');
  expect(error!.text).toContain(`the heartbeat of "${h.agentOf(chat)}"`);
  expect(runner.isFree(chat)).toBe(true);
});

test('a turn the user started keeps waiting: its question has no deadline, and days later it still waits and can be answered', async () => {
  const clock = new TestClock();
  const chat = h.newChat({ 'agent-tools': 'ask-question', 'agent-unattended-timeout': '60' });
  const s = scriptedModel([toolCalls(['q-1', 'ask-question', { question: 'Which one?' }]), reply('Thanks.')]);
  const runner = runnerOn(clock, s.model, [askQuestionTool]);

  expect(await runner.submit({ kind: 'send', chat, text: 'Help me choose.' })).toEqual({ status: 'input-required' });
  const [question] = pendingOf(chat);
  expect(question!['unattended-expires']).toBeUndefined();
  expect(clock.pending()).toBe(0);

  clock.advance(3 * 24 * 3600_000);
  await Promise.resolve();
  expect(h.status(chat)).toBe('input-required');
  expect(errorsOf(chat)).toEqual([]);
  expect(await within(runner.submit({ kind: 'answer', chat, message: question!.title!, answers: ['The first'] }), 'the answered turn')).toEqual({
    status: 'completed',
  });
});

test('0 means no limit: an unattended question waits like a user turn', async () => {
  const clock = new TestClock();
  const chat = h.newChat({ 'agent-tools': 'ask-question', 'agent-unattended-timeout': '0' });
  const s = scriptedModel([toolCalls(['q-1', 'ask-question', { question: 'Which one?' }])]);
  const runner = runnerOn(clock, s.model, [askQuestionTool]);

  expect(await runner.submit({ kind: 'send', chat, text: 'Scheduled.', source: 'schedule:Somewhere' })).toEqual({ status: 'input-required' });
  expect(pendingOf(chat)[0]!['unattended-expires']).toBeUndefined();
  clock.advance(30 * 24 * 3600_000);
  await Promise.resolve();
  expect(h.status(chat)).toBe('input-required');
});

test('an unattended question that waited from before a reload gets its deadline from the restored runner (default 600 s)', async () => {
  const clock = new TestClock();
  const chat = h.newChat({ 'agent-tools': 'ask-question' });
  const s = scriptedModel([toolCalls(['q-1', 'ask-question', { question: 'Which one?' }])]);
  const first = runnerOn(clock, s.model, [askQuestionTool]);
  expect(await first.submit({ kind: 'send', chat, text: 'Scheduled.', source: 'schedule:Somewhere' })).toEqual({ status: 'input-required' });
  const [question] = pendingOf(chat);
  expect(question!['unattended-expires']).toBe(String(START + 600_000));
  first.dispose(); // the page goes away with its timers

  // An older version left no deadline on the waiting call: the restored runner sets one from now.
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(question!.title!)!, { 'unattended-expires': undefined }));
  clock.advance(1_000);
  const reloaded = runnerOn(clock, s.model, [askQuestionTool]);
  expect(reloaded.restore()).toEqual([]);
  expect(h.fields(question!.title!)['unattended-expires']).toBe(String(START + 1_000 + 600_000));
  clock.advance(600_000);
  await until(() => h.status(chat) === 'failed', 'the restored run to end');
  expect(errorsOf(chat)[0]!.text).toContain('the question "Which one?"');
});

test("a sub-agent of a scheduled run that asks a question ends at the unattended timeout, and the parent's call gets why", async () => {
  const clock = new TestClock();
  const { spawnAgentTool } = await import('../../../src/agent/tools/spawn-agent');
  const parent = h.newChat({ 'agent-tools': 'spawn-agent ask-question', 'agent-unattended-timeout': '120', 'agent-spawn-timeout': '3600' });
  const s = scriptedModel((call) => {
    if (call === 1) return toolCalls(['s-1', 'spawn-agent', { task: 'Find the colour.' }]);
    if (call === 2) return toolCalls(['q-1', 'ask-question', { question: 'Which colour, child?' }]);
    return reply('Parent done.');
  });
  const runner = runnerOn(clock, s.model, [askQuestionTool, spawnAgentTool]);
  const turn = runner.submit({ kind: 'send', chat: parent, text: 'Scheduled.', source: 'schedule:Somewhere' });
  await until(() => h.$tw.wiki.filterTiddlers(`[field:agent-parent[${parent}]field:agent-status[input-required]]`).length === 1, 'the child to wait');
  const [child] = h.$tw.wiki.filterTiddlers(`[field:agent-parent[${parent}]]`) as string[];
  const [question] = pendingOf(child!);
  expect(question!['unattended-expires']).toBe(String(START + 120_000));

  clock.advance(120_000);
  expect(await within(turn, 'the parent turn')).toEqual({ status: 'completed' });
  expect(h.status(child!)).toBe('failed');
  expect(errorsOf(child!)[0]!.text).toContain(`a sub-agent task of the chat "${parent}"`);
  expect(toolMessagesOf(s.requests[2]!).get('s-1')!.content).toMatch(/The sub-agent ended failed: Nobody answered in time/);
});

test('a sub-agent of a turn the user started keeps waiting (the user is there to answer in the parent chat)', async () => {
  const clock = new TestClock();
  const { spawnAgentTool } = await import('../../../src/agent/tools/spawn-agent');
  const parent = h.newChat({ 'agent-tools': 'spawn-agent ask-question', 'agent-unattended-timeout': '60', 'agent-spawn-timeout': '3600' });
  const s = scriptedModel((call) =>
    call === 1 ? toolCalls(['s-1', 'spawn-agent', { task: 'Ask me.' }]) : toolCalls(['q-1', 'ask-question', { question: 'Child asks?' }]),
  );
  const runner = runnerOn(clock, s.model, [askQuestionTool, spawnAgentTool]);
  const turn = runner.submit({ kind: 'send', chat: parent, text: 'Do it with a sub-agent.' });
  await until(() => h.$tw.wiki.filterTiddlers(`[field:agent-parent[${parent}]field:agent-status[input-required]]`).length === 1, 'the child to wait');
  const [child] = h.$tw.wiki.filterTiddlers(`[field:agent-parent[${parent}]]`) as string[];
  expect(pendingOf(child!)[0]!['unattended-expires']).toBeUndefined();
  clock.advance(24 * 3600_000);
  await Promise.resolve();
  expect(h.status(child!)).toBe('input-required');
  await runner.submit({ kind: 'stop', chat: parent });
  await within(turn, 'the stopped parent turn');
});
