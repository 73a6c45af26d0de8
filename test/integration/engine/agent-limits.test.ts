// The agent's limits as the settings write them, used by the engine (runTurn in a real
// TiddlyWiki, scripted model): `agent-tool-timeouts` gives one tool its own time limit (over the
// tool's own and the agent's limit for every tool); `agent-retries`, `agent-retry-delay` and
// `agent-retry-max-delay` are the retry policy of a failed model request. A broken value is
// named where the user sees it: the turn fails with the field and what is wrong.
import * as z from 'zod/mini';
import { runTurn } from '../../../src/agent/engine/loop';
import { ProviderError } from '../../../src/agent/providers/errors';
import type { StreamPart } from '../../../src/agent/providers/types';
import { defineTool } from '../../../src/agent/tools/tool';
import { bootEngineWiki, engineDeps, Events, reply, scriptedModel, toolCalls, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
});

const rateLimited = () => new ProviderError({ kind: 'http', status: 429, message: 'Rate limited by the provider (HTTP 429).', retryable: true });

/** A step whose stream throws before any part, as an adapter does for an HTTP error. */
const throws = (error: unknown) =>
  // biome-ignore lint/correctness/useYield: the stream ends with the error before its first part, so it yields nothing
  async function* (): AsyncGenerator<StreamPart> {
    throw error;
  };

function turn(agentFields: Record<string, string>, steps: Parameters<typeof scriptedModel>[0], tools: Parameters<typeof engineDeps>[2] = [], random = () => 0) {
  const chat = h.newChat(agentFields, 'Limits');
  const s = scriptedModel(steps);
  const events = new Events();
  const deps = engineDeps(h, s.model, tools, events);
  deps.retry = { ...deps.retry, random };
  return { chat, ...s, events, deps, run: (text: string) => runTurn(deps, { chat, signal: new AbortController().signal, userText: text }) };
}

/** A tool that runs until its signal ends it, with a limit of its own far beyond the test. */
const hang = defineTool({
  name: 'hang',
  description: 'Never finishes.',
  parameters: z.object({}),
  access: 'read',
  timeoutMs: 3_600_000,
  execute: (_args, context) => new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted')))),
});

test('a tool named in agent-tool-timeouts is given up after its own seconds, over the agent-wide and the tool`s own limit', async () => {
  const t = turn(
    { 'agent-tools': 'hang', 'agent-tool-timeout': '3600', 'agent-tool-timeouts': '{"hang": 1}' },
    [toolCalls(['c1', 'hang', {}]), reply('Gave up.')],
    [hang],
  );

  expect(await t.run('Run it.')).toEqual({ status: 'completed' });

  const tool = h.messages(t.chat).find((m) => m.role === 'tool')!;
  expect(tool['tool-status']).toBe('timeout');
  expect(tool.text).toContain('did not finish within 1 s');
});

test('agent-retries 0: a retryable failure is not retried, the turn fails at once', async () => {
  const t = turn({ 'agent-retries': '0' }, [throws(rateLimited()), reply('never asked')]);

  expect(await t.run('Hello')).toEqual({ status: 'failed', error: 'Rate limited by the provider (HTTP 429).' });
  expect(t.requests).toHaveLength(1);
  expect(t.events.of('retrying')).toEqual([]);
});

test('agent-retries, agent-retry-delay and agent-retry-max-delay set the number of attempts and each wait', async () => {
  const failures = [throws(rateLimited()), throws(rateLimited()), throws(rateLimited()), throws(rateLimited())];
  const t = turn({ 'agent-retries': '4', 'agent-retry-delay': '2', 'agent-retry-max-delay': '5' }, [...failures, reply('Fifth time.')], [], () => 1);

  expect(await t.run('Hello')).toEqual({ status: 'completed' });
  expect(t.requests).toHaveLength(5);
  expect(t.events.of('retrying').map((e) => e.maxAttempts)).toEqual([5, 5, 5, 5]);
  // Doubling from 2 s, capped at 5 s (random() = 1: the full wait).
  expect(t.deps.sleeps).toEqual([2000, 4000, 5000, 5000]);
});

test('a broken agent-tool-timeouts fails the turn with the field and what is wrong', async () => {
  const t = turn({ 'agent-tool-timeouts': '{"web-fetch": "soon"}' }, [reply('never asked')]);

  const result = await t.run('Hello');

  expect(result.status).toBe('failed');
  expect(result.error).toContain('agent-tool-timeouts');
  expect(result.error).toContain('whole seconds from 1 to 3600');
  expect(t.requests).toHaveLength(0);
});
