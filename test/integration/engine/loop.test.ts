// The agent loop against a real TiddlyWiki with a scripted model: rounds of tool use, parallel
// calls with allSettled semantics, bad calls as tool errors, max rounds, Stop, queueing, the
// text protocol, summary / ask-question, the status machine, engine plugins and budgets.
import * as z from 'zod/mini';
import type { EnginePlugin, EngineHooks } from '../../../src/agent/engine/hooks';
import { runTurn } from '../../../src/agent/engine/loop';
import { canTransition, STATUS_TRANSITIONS } from '../../../src/agent/store/status';
import type { ModelRequest } from '../../../src/agent/providers/types';
import { CHAT_STATUSES, type ChatStatus } from '../../../src/agent/store/schemas';
import { askQuestionTool, summaryTool } from '../../../src/agent/tools/control-tools';
import { defineTool, type ToolDefinition } from '../../../src/agent/tools/tool';
import {
  bootEngineWiki,
  deferred,
  disposeRunners,
  engineDeps,
  Events,
  hangingStep,
  listen,
  part,
  reply,
  scriptedModel,
  scriptedRunner,
  toolCalls,
  toolMessagesOf,
  within,
  type Harness,
} from './harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
});
afterEach(() => disposeRunners());

/** A read tool that echoes its argument. */
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up.',
  parameters: z.object({ q: z.string() }),
  access: 'read',
  execute: ({ q }) => ({ content: `found ${q}` }),
});

const signal = () => new AbortController().signal;

function turn(chat: string, tools: ToolDefinition[], steps: Parameters<typeof scriptedModel>[0], extra = {}) {
  const scripted = scriptedModel(steps);
  const events = new Events();
  const deps = engineDeps(h, scripted.model, tools, events, extra);
  return { ...scripted, events, deps, run: (userText?: string) => runTurn(deps, { chat, signal: signal(), userText }) };
}

describe('rounds of tool use', () => {
  test('round 1 calls a tool, round 2 sees its result under the same call id and answers', async () => {
    const chat = h.newChat({ 'agent-tools': 'lookup' });
    const t = turn(chat, [lookup], [toolCalls(['call-1', 'lookup', { q: 'tiddler' }]), reply('A tiddler is a unit of content.')]);

    expect(await t.run('What is a tiddler?')).toEqual({ status: 'completed' });

    expect(t.requests).toHaveLength(2);
    // Round 1 offers the tool natively.
    expect(t.requests[0]!.tools?.map((s) => s.name)).toEqual(['lookup']);
    expect(t.requests[0]!.tools?.[0]?.parameters).toMatchObject({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    // Round 2 carries the call and its result, paired by id, after the user's message.
    const second = t.requests[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second[2]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call-1', name: 'lookup', args: { q: 'tiddler' } }] });
    expect(second[3]).toEqual({ role: 'tool', toolCallId: 'call-1', toolName: 'lookup', content: 'found tiddler' });

    const list = h.messages(chat);
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(list.map((m) => m['agent-seq'])).toEqual(['0', '1', '2', '3']);
    expect(JSON.parse(list[1]!['tool-calls']!)).toEqual([{ id: 'call-1', name: 'lookup', args: { q: 'tiddler' } }]);
    expect(list[2]).toMatchObject({ 'tool-name': 'lookup', 'tool-call-id': 'call-1', 'tool-status': 'ok', text: 'found tiddler' });
    expect(JSON.parse(list[2]!['tool-args']!)).toEqual({ q: 'tiddler' });
    expect(list[3]).toMatchObject({ text: 'A tiddler is a unit of content.', 'agent-finish': 'stop', model: 'm' });
    expect(list[3]!['tool-calls']).toBeUndefined();

    expect(h.status(chat)).toBe('completed');
    expect(t.events.statuses()).toEqual(['working', 'completed']);
    expect(t.events.of('tool-started').map((e) => e.callId)).toEqual(['call-1']);
    expect(t.events.of('tool-finished').map((e) => [e.callId, e.status])).toEqual([['call-1', 'ok']]);
  });

  test('parallel calls: one throws, one times out, one succeeds — all three results kept and the turn continues', async () => {
    const hangStarted = deferred();
    const order: string[] = [];
    const slowOk = defineTool({
      name: 'slow-ok',
      description: 'Succeeds, but only once the hanging tool has started (a barrier).',
      parameters: z.object({}),
      access: 'read',
      timeoutMs: 3000,
      execute: async () => {
        order.push('slow-ok started');
        await hangStarted.promise; // would deadlock if the calls ran one after another
        order.push('slow-ok finished');
        return { content: 'slow but fine' };
      },
    });
    const hang = defineTool({
      name: 'hang',
      description: 'Never finishes.',
      parameters: z.object({}),
      access: 'read',
      timeoutMs: 30,
      execute: () => {
        order.push('hang started');
        hangStarted.resolve();
        return new Promise(() => {});
      },
    });
    const boom = defineTool({
      name: 'boom',
      description: 'Always throws.',
      parameters: z.object({}),
      access: 'read',
      execute: () => {
        throw new Error('kaput');
      },
    });
    const chat = h.newChat({ 'agent-tools': 'slow-ok hang boom' });
    const t = turn(
      chat,
      [slowOk, hang, boom],
      [toolCalls(['c-ok', 'slow-ok', {}], ['c-hang', 'hang', {}], ['c-boom', 'boom', {}]), reply('Two of three failed.')],
    );

    expect(await within(t.run('Run all three.'), 'the turn')).toEqual({ status: 'completed' });

    // Concurrent: the succeeding tool was waiting while the hanging one started.
    expect(order).toEqual(['slow-ok started', 'hang started', 'slow-ok finished']);
    const tools = h.messages(chat).filter((m) => m.role === 'tool');
    expect(Object.fromEntries(tools.map((m) => [m['tool-call-id'], m['tool-status']]))).toEqual({ 'c-ok': 'ok', 'c-hang': 'timeout', 'c-boom': 'error' });
    expect(tools.find((m) => m['tool-call-id'] === 'c-boom')!.text).toContain('kaput');

    const results = toolMessagesOf(t.requests[1]!);
    expect(results.get('c-ok')).toEqual({ toolName: 'slow-ok', content: 'slow but fine' });
    expect(results.get('c-hang')!.content).toBe('Error: The tool hang did not finish within 30 ms and was given up.');
    expect(results.get('c-boom')!.content).toMatch(/^Error: .*kaput/);
    expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Two of three failed.' });
    expect(
      t.events
        .of('tool-finished')
        .map((e) => e.status)
        .sort(),
    ).toEqual(['error', 'ok', 'timeout']);
  });

  test('invalid arguments, an unknown tool and cut-off arguments each become an error result, never a crash', async () => {
    let ran = 0;
    const strict = defineTool({
      name: 'strict',
      description: 'Needs a positive count.',
      parameters: z.object({ count: z.number().check(z.positive()) }),
      access: 'read',
      execute: () => {
        ran++;
        return { content: 'ran' };
      },
    });
    const chat = h.newChat({ 'agent-tools': 'strict' });
    const t = turn(
      chat,
      [strict],
      [
        [
          part.call('c-bad', 'strict', { count: 'many' }, 0),
          part.call('c-unknown', 'no-such-tool', {}, 1),
          part.invalid('c-cut', 'strict', '{"count": 1', 'Unexpected end of JSON input', 2),
          part.finish('length'),
        ],
        reply('I will fix my calls.'),
      ],
    );

    expect(await t.run('Count.')).toEqual({ status: 'completed' });
    expect(ran).toBe(0);

    const tools = h.messages(chat).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m['tool-call-id'], m['tool-status']]).sort()).toEqual([
      ['c-bad', 'error'],
      ['c-cut', 'error'],
      ['c-unknown', 'error'],
    ]);
    const results = toolMessagesOf(t.requests[1]!);
    expect(results.get('c-bad')!.content).toMatch(/^Error: Invalid arguments for strict:[\s\S]*count/);
    expect(results.get('c-unknown')!.content).toMatch(/^Error: Unknown tool "no-such-tool"\. Available tools: strict\./);
    expect(results.get('c-cut')!.content).toMatch(/^Error: .*not valid JSON.*Unexpected end of JSON input/);
    // The reply records all three calls, so every result pairs up with a call.
    const assistant = t.requests[1]!.messages.find((m) => m.role === 'assistant');
    expect(assistant && 'toolCalls' in assistant ? assistant.toolCalls!.map((c) => c.id).sort() : []).toEqual(['c-bad', 'c-cut', 'c-unknown']);
    expect(h.messages(chat).filter((m) => m.role === 'error')).toEqual([]);
  });

  test('agent-max-rounds: a model that always calls a tool fails after the limit, not stuck working', async () => {
    const chat = h.newChat({ 'agent-tools': 'lookup', 'agent-max-rounds': '2' });
    const t = turn(chat, [lookup], (n) => toolCalls([`loop-${n}`, 'lookup', { q: String(n) }]));

    const result = await within(t.run('Loop forever.'), 'the turn');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/agent-max-rounds/);
    expect(t.requests).toHaveLength(2);
    expect(h.status(chat)).toBe('failed');
    const list = h.messages(chat);
    // Both rounds' calls have their results, then the error bubble.
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'error']);
    expect(list.at(-1)!.text).toMatch(/agent-max-rounds/);
    expect(t.events.statuses()).toEqual(['working', 'failed']);
  });

  test('a turn token budget stops the loop with a message naming agent-turn-budget', async () => {
    const chat = h.newChat({ 'agent-tools': 'lookup', 'agent-turn-budget': '100' });
    const t = turn(chat, [lookup], (n) => [part.call(`b-${n}`, 'lookup', { q: 'x' }), part.usage(80, 30), part.finish('tool-calls')]);

    const result = await t.run('Spend tokens.');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/agent-turn-budget/);
    expect(t.requests).toHaveLength(1);
    const list = h.messages(chat);
    expect(list[1]).toMatchObject({ role: 'assistant', 'tokens-in': '80', 'tokens-out': '30' });
    expect(list.at(-1)).toMatchObject({ role: 'error' });
    expect(list.at(-1)!.text).toMatch(/110 of its 100 tokens.*agent-turn-budget/);
    expect(t.events.of('usage')).toEqual([{ type: 'usage', chat, inputTokens: 80, outputTokens: 30 }]);
  });
});

describe('the runner: Stop and queueing', () => {
  test('Stop while a tool runs: canceled at once, no further model call', async () => {
    const started = deferred();
    const stuck = defineTool({
      name: 'stuck',
      description: 'Runs until it is given up; ignores the abort signal.',
      parameters: z.object({}),
      access: 'read',
      execute: () => {
        started.resolve();
        return new Promise(() => {});
      },
    });
    // The default tool timeout (30 s) is far beyond the test's bound: only Stop can end it.
    const chat = h.newChat({ 'agent-tools': 'stuck' });
    const s = scriptedModel([toolCalls(['s-1', 'stuck', {}]), reply('never asked')]);
    const runner = scriptedRunner(h, s.model, [stuck]);
    const events = listen(runner, chat);

    const done = runner.submit({ kind: 'send', chat, text: 'Start the stuck tool.' });
    await within(started.promise, 'the tool to start');
    runner.submit({ kind: 'stop', chat });

    expect(await within(done, 'the turn to end after Stop', 2000)).toEqual({ status: 'canceled' });
    expect(s.requests).toHaveLength(1);
    expect(h.status(chat)).toBe('canceled');
    expect(events.statuses().at(-1)).toBe('canceled');
    expect(runner.isActive(chat)).toBe(false);
    // The call is paired with a result, so the next turn's prompt stays valid.
    const tool = h.messages(chat).find((m) => m.role === 'tool');
    expect(tool).toMatchObject({
      'tool-call-id': 's-1',
      'tool-status': 'error',
      'tool-outcome': 'stopped',
      text: 'The user stopped the turn before stuck finished.',
    });
  });

  test('Stop while a tool that honours the signal runs: canceled, no further model call', async () => {
    const started = deferred();
    let sawAbort = false;
    const polite = defineTool({
      name: 'polite',
      description: 'Ends when the turn is stopped.',
      parameters: z.object({}),
      access: 'read',
      execute: (_args, ctx) =>
        new Promise((_, reject) => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const chat = h.newChat({ 'agent-tools': 'polite' });
    const s = scriptedModel([toolCalls(['p-1', 'polite', {}]), reply('never asked')]);
    const runner = scriptedRunner(h, s.model, [polite]);

    const done = runner.submit({ kind: 'send', chat, text: 'Start the polite tool.' });
    await within(started.promise, 'the tool to start');
    runner.submit({ kind: 'stop', chat });

    expect(await within(done, 'the turn to end after Stop')).toEqual({ status: 'canceled' });
    expect(sawAbort).toBe(true);
    expect(s.requests).toHaveLength(1);
    expect(h.messages(chat).find((m) => m.role === 'tool')).toMatchObject({ 'tool-call-id': 'p-1', 'tool-status': 'error' });
    expect(h.status(chat)).toBe('canceled');
  });

  test('Stop while the model streams aborts its request and keeps the partial reply', async () => {
    const streaming = deferred();
    const chat = h.newChat();
    const s = scriptedModel([hangingStep(streaming, [part.text('Once upon')])]);
    const runner = scriptedRunner(h, s.model, []);

    const done = runner.submit({ kind: 'send', chat, text: 'Tell a story.' });
    await within(streaming.promise, 'the reply to start');
    runner.submit({ kind: 'stop', chat });

    expect(await within(done, 'the turn to end')).toEqual({ status: 'canceled' });
    expect(s.signals[0]!.aborted).toBe(true);
    expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Once upon', 'agent-finish': 'canceled' });
  });

  test('Stop after the model streamed a tool call: the next turn sends no call without a result', async () => {
    const streaming = deferred();
    const chat = h.newChat({ 'agent-tools': 'lookup' });
    const s = scriptedModel([hangingStep(streaming, [part.text('Checking.'), part.call('x-1', 'lookup', { q: 'a' })]), reply('Fresh start.')]);
    const runner = scriptedRunner(h, s.model, [lookup]);

    const done = runner.submit({ kind: 'send', chat, text: 'Look it up.' });
    await within(streaming.promise, 'the tool call to stream');
    runner.submit({ kind: 'stop', chat });
    expect(await within(done, 'the canceled turn')).toEqual({ status: 'canceled' });

    expect(await within(runner.submit({ kind: 'send', chat, text: 'Never mind.' }), 'the next turn')).toEqual({ status: 'completed' });
    expect(s.requests).toHaveLength(2);
    const history = s.requests[1]!.messages;
    const called = history.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    const answered = [...toolMessagesOf(s.requests[1]!).keys()];
    expect(answered.sort()).toEqual(called.sort());
  });

  test('a second send during a turn is queued, shown by queued(), and runs after the first, in order', async () => {
    const firstStarted = deferred();
    const release = deferred();
    const chat = h.newChat();
    const s = scriptedModel([
      async function* () {
        firstStarted.resolve();
        await release.promise;
        yield* reply('First answer.');
      },
      reply('Second answer.'),
    ]);
    const runner = scriptedRunner(h, s.model, []);
    const events = listen(runner, chat);

    const first = runner.submit({ kind: 'send', chat, text: 'first' });
    await within(firstStarted.promise, 'the first model call');
    const second = runner.submit({ kind: 'send', chat, text: 'second' });
    expect(runner.queued(chat)).toEqual(['second']);
    expect(s.requests).toHaveLength(1);
    expect(h.messages(chat).map((m) => m.text)).toEqual(['first']); // not written until it runs

    release.resolve();
    expect(await within(first, 'the first turn')).toEqual({ status: 'completed' });
    expect(await within(second, 'the second turn')).toEqual({ status: 'completed' });

    expect(runner.queued(chat)).toEqual([]);
    expect(h.messages(chat).map((m) => [m.role, m.text])).toEqual([
      ['user', 'first'],
      ['assistant', 'First answer.'],
      ['user', 'second'],
      ['assistant', 'Second answer.'],
    ]);
    expect(s.requests[1]!.messages.slice(1).map((m) => m.content)).toEqual(['first', 'First answer.', 'second']);
    expect(events.statuses().filter((x) => x === 'completed')).toHaveLength(2);
  });
});

describe('an empty reply', () => {
  // A 200 stream of only `data: [DONE]` reaches the engine as a finish and nothing else.
  test.each([
    ['only a finish', [part.finish('stop')], /empty reply: no text and no tool call/],
    ['only whitespace and usage', [part.text('  \n'), part.usage(10, 0), part.finish('stop')], /empty reply/],
    ['a content filter with nothing', [{ type: 'finish', reason: 'content-filter' } as const], /empty reply \(finish reason: content-filter\)/],
    ['the output limit with nothing', [part.finish('length')], /output token limit.*before it wrote any reply/],
  ])('%s fails the turn with an error in the chat, and Retry answers it', async (_name, parts, message) => {
    const chat = h.newChat();
    const s = scriptedModel([parts, reply('Here it is.')]);
    const runner = scriptedRunner(h, s.model, []);

    const result = await within(runner.submit({ kind: 'send', chat, text: 'Say something.' }), 'the empty turn');
    expect(result.status).toBe('failed');
    expect(h.status(chat)).toBe('failed');
    const list = h.messages(chat);
    expect(list.filter((m) => m.role !== 'assistant' || m.text?.trim()).map((m) => m.role)).toEqual(['user', 'error']);
    expect(list.at(-1)!.text).toMatch(message);

    // The Retry button: the same user message answered again, the error gone.
    expect(await within(runner.submit({ kind: 'retry', chat, message: list[0]!.title! }), 'the retry')).toEqual({ status: 'completed' });
    expect(h.messages(chat).map((m) => [m.role, m.text])).toEqual([
      ['user', 'Say something.'],
      ['assistant', 'Here it is.'],
    ]);
  });

  test('an empty reply after a tool round fails too: the tool results stay, the error says why', async () => {
    const chat = h.newChat({ 'agent-tools': 'lookup' });
    const s = scriptedModel([toolCalls(['c1', 'lookup', { q: 'x' }]), [part.finish('stop')]]);
    const runner = scriptedRunner(h, s.model, [lookup]);
    expect((await within(runner.submit({ kind: 'send', chat, text: 'Look x up.' }), 'the turn')).status).toBe('failed');
    expect(h.messages(chat).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'error']);
    expect(h.messages(chat).at(-1)!.text).toMatch(/empty reply/);
  });
});

describe('the text tool protocol', () => {
  test('tool_use blocks in the text run the tool; results return as <functions_result>; tools are listed in the system prompt, not sent natively', async () => {
    const chat = h.newChat({ 'agent-tools': 'lookup', 'agent-tool-protocol': 'text' });
    const t = turn(chat, [lookup], [reply('Let me look that up.\n<tool_use name="lookup">{"q": "wikitext"}</tool_use>'), reply('Wikitext is markup.')]);

    expect(await t.run('What is wikitext?')).toEqual({ status: 'completed' });

    expect(t.requests).toHaveLength(2);
    for (const request of t.requests) expect(request.tools).toBeUndefined();
    const system = t.requests[0]!.messages.filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    expect(system).toContain('You are a test agent.');
    expect(system).toContain('## lookup');
    expect(system).toContain('<tool_use name="lookup">');
    expect(t.requests[0]!.messages.some((m) => m.role === 'tool')).toBe(false);

    const second = t.requests[1]!.messages;
    expect(second.some((m) => m.role === 'tool')).toBe(false);
    const last = second.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content).toMatch(/^<functions_result>\nTool: lookup\nParameters: \{"q":"wikitext"\}\nResult: found wikitext\n<\/functions_result>$/);
    // The model sees its own call again, as text.
    expect(second.at(-2)).toMatchObject({ role: 'assistant' });
    expect(second.at(-2)!.content).toContain('<tool_use name="lookup">{"q":"wikitext"}</tool_use>');

    const list = h.messages(chat);
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(list[1]!.text).toBe('Let me look that up.');
    expect(list[1]!.text).not.toContain('tool_use');
    expect(JSON.parse(list[1]!['tool-calls']!)).toEqual([{ id: 'text-call-1', name: 'lookup', args: { q: 'wikitext' } }]);
    expect(list[2]).toMatchObject({ 'tool-name': 'lookup', 'tool-status': 'ok', text: 'found wikitext' });
  });
});

describe('control tools', () => {
  test('summary ends the loop with its text as a normal assistant reply', async () => {
    const chat = h.newChat({ 'agent-tools': 'lookup summary' });
    const t = turn(chat, [lookup, summaryTool], [toolCalls(['sum-1', 'summary', { text: "''Done'': all checked." }]), reply('never asked')]);

    expect(await t.run('Check and summarise.')).toEqual({ status: 'completed' });

    expect(t.requests).toHaveLength(1);
    const list = h.messages(chat);
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(list[2]).toMatchObject({ 'tool-name': 'summary', 'tool-status': 'ok' });
    expect(list[3]).toMatchObject({ role: 'assistant', text: "''Done'': all checked.", type: 'text/vnd.tiddlyagent.reply', 'agent-finish': 'stop' });
    expect(list[3]!['tool-calls']).toBeUndefined();
    expect(t.events.statuses()).toEqual(['working', 'completed']);
  });

  test('ask-question pauses in input-required; answer() returns the answer to the same turn in Clarifications format', async () => {
    const chat = h.newChat({ 'agent-tools': 'ask-question' });
    const s = scriptedModel([
      toolCalls(['q-1', 'ask-question', { question: 'Which colour?', inputType: 'single-select', options: ['Red', 'Blue'] }]),
      reply('Blue it is.'),
    ]);
    const runner = scriptedRunner(h, s.model, [askQuestionTool]);
    const events = listen(runner, chat);

    expect(await runner.submit({ kind: 'send', chat, text: 'Paint it.' })).toEqual({ status: 'input-required' });
    expect(h.status(chat)).toBe('input-required');
    const pending = h.messages(chat).find((m) => m.role === 'tool')!;
    expect(pending).toMatchObject({ 'tool-name': 'ask-question', 'tool-status': 'pending', 'tool-call-id': 'q-1' });
    expect(JSON.parse(pending['tool-args']!)).toMatchObject({ question: 'Which colour?', options: ['Red', 'Blue'] });
    expect(events.of('waiting')).toEqual([{ type: 'waiting', chat, message: pending.title, reason: 'question' }]);
    expect(s.requests).toHaveLength(1);

    expect(await within(runner.submit({ kind: 'answer', chat, message: pending.title!, answers: ['Blue'] })!, 'the resumed turn')).toEqual({
      status: 'completed',
    });

    expect(s.requests).toHaveLength(2);
    const result = toolMessagesOf(s.requests[1]!).get('q-1');
    expect(result).toEqual({ toolName: 'ask-question', content: 'Clarifications:\n1. Q: Which colour?\n   A: Blue' });
    // Same turn: one user message, the answer fills the pending message in place.
    const list = h.messages(chat);
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(list[2]).toMatchObject({ title: pending.title, 'tool-status': 'ok' });
    expect(list[3]!.text).toBe('Blue it is.');
    expect(events.statuses()).toEqual(['working', 'input-required', 'working', 'completed']);
  });

  test('answer(null) cancels the turn without a reply', async () => {
    const chat = h.newChat({ 'agent-tools': 'ask-question' });
    const s = scriptedModel([toolCalls(['q-2', 'ask-question', { question: 'Really?' }]), reply('never asked')]);
    const runner = scriptedRunner(h, s.model, [askQuestionTool]);

    expect(await runner.submit({ kind: 'send', chat, text: 'Do it.' })).toEqual({ status: 'input-required' });
    const pending = h.messages(chat).find((m) => m['tool-status'] === 'pending')!;

    expect(await runner.submit({ kind: 'answer', chat, message: pending.title!, answers: null })).toEqual({ status: 'canceled' });

    expect(h.status(chat)).toBe('canceled');
    expect(s.requests).toHaveLength(1);
    const list = h.messages(chat);
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(list[2]).toMatchObject({ 'tool-status': 'denied' });
    // A later message starts a fresh turn normally.
    await expect(runner.submit({ kind: 'answer', chat, message: pending.title!, answers: ['late'] })).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('the status machine', () => {
  const ended: ChatStatus[] = ['idle', 'completed', 'canceled', 'failed', 'interrupted'];

  test('the transitions table allows exactly the documented moves', () => {
    for (const from of CHAT_STATUSES) {
      for (const to of CHAT_STATUSES) {
        const expected = from === to || (ended.includes(from) ? to === 'working' : from === 'working' ? to !== 'idle' : to !== 'idle' && to !== 'completed');
        expect([from, to, canTransition(from, to)]).toEqual([from, to, expected]);
      }
    }
    expect(canTransition('idle', 'completed')).toBe(false);
    expect(canTransition('completed', 'input-required')).toBe(false);
    expect(canTransition('working', 'idle')).toBe(false);
    expect(canTransition('input-required', 'completed')).toBe(false);
    expect(Object.keys(STATUS_TRANSITIONS).sort()).toEqual([...CHAT_STATUSES].sort());
  });

  test('the one status writer refuses an impossible transition instead of writing it', async () => {
    // A misbehaving plugin tries to reset the chat to idle mid-turn; "working -> idle" is refused.
    const saboteur: EnginePlugin = {
      name: 'saboteur',
      apply(hooks) {
        hooks.responseComplete.tap('saboteur', (_r, ctx) => ctx.store.setStatus(ctx.chat, 'idle'));
      },
    };
    const chat = h.newChat({ 'agent-plugins': 'saboteur' });
    const t = turn(chat, [], [reply('hi')], { plugins: new Map([['saboteur', saboteur]]) });

    await expect(t.run('Hello')).rejects.toThrow(/cannot go from working to idle/);
    expect(h.status(chat)).toBe('working');
    expect(t.events.statuses()).not.toContain('completed');
  });
});

describe('engine plugins', () => {
  test('a plugin named in agent-plugins gets its hooks called and can shape the prompt', async () => {
    const calls: string[] = [];
    const statuses: string[] = [];
    const spy: EnginePlugin = {
      name: 'spy',
      apply(hooks: EngineHooks) {
        hooks.userMessageReceived.tap('spy', (m) => void calls.push(`userMessageReceived:${m.text}`));
        hooks.agentStatusChanged.tap('spy', ({ status }) => void statuses.push(status));
        hooks.processPrompts.tap('spy', (build) => {
          calls.push('processPrompts');
          build.sections.push({ id: 'spy', kind: 'system', protected: true, messages: [{ role: 'system', content: 'Spy was here.' }] });
        });
        hooks.responseUpdate.tap('spy', (p) => void calls.push(`responseUpdate:${p.type}`));
        hooks.responseComplete.tap('spy', (r) => void calls.push(`responseComplete:${r.toolCalls.length}`));
        hooks.toolExecuted.tap('spy', ({ result }) => void calls.push(`toolExecuted:${result.call.name}:${result.status}`));
      },
    };
    const chat = h.newChat({ 'agent-tools': 'lookup', 'agent-plugins': 'spy' });
    const t = turn(chat, [lookup], [toolCalls(['sp-1', 'lookup', { q: 'x' }]), reply('ok')], { plugins: new Map([['spy', spy]]) });

    expect(await t.run('Go')).toEqual({ status: 'completed' });

    expect(calls).toEqual([
      'userMessageReceived:Go',
      'processPrompts',
      'responseUpdate:tool-call',
      'responseUpdate:finish',
      'responseComplete:1',
      'toolExecuted:lookup:ok',
      'processPrompts',
      'responseUpdate:text-delta',
      'responseUpdate:finish',
      'responseComplete:0',
    ]);
    expect(statuses.at(-1)).toBe('completed');
    expect(t.requests.every((r: ModelRequest) => r.messages.some((m) => m.content === 'Spy was here.'))).toBe(true);
  });

  test('a plugin sees the whole turn: the user message and the first status change', async () => {
    const seen: string[] = [];
    const spy: EnginePlugin = {
      name: 'early-spy',
      apply(hooks) {
        hooks.userMessageReceived.tap('early-spy', (m) => void seen.push(`user:${m.text}`));
        hooks.agentStatusChanged.tap('early-spy', ({ status }) => void seen.push(status));
      },
    };
    const chat = h.newChat({ 'agent-plugins': 'early-spy' });
    const t = turn(chat, [], [reply('ok')], { plugins: new Map([['early-spy', spy]]) });

    expect(await t.run('Hi')).toEqual({ status: 'completed' });
    expect(seen).toEqual(['user:Hi', 'working', 'completed']);
  });

  test('an unknown plugin name is a clear error naming the field, and the user message is kept', async () => {
    const chat = h.newChat({ 'agent-plugins': 'no-such-plugin' });
    const t = turn(chat, [], [reply('never asked')]);

    const result = await t.run('Hello');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/"no-such-plugin".*agent-plugins/);
    expect(t.requests).toHaveLength(0);
    expect(h.messages(chat).map((m) => m.role)).toEqual(['user', 'error']);
    expect(h.status(chat)).toBe('failed');
  });
});
