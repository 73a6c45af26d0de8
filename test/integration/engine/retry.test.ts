// Retries at the engine level (runTurn in a real TiddlyWiki, scripted model): a retryable 429
// is retried with a `retrying` event, a quota 429 is not, and nothing is retried once output
// was shown — the partial reply is kept and marked incomplete.
import { runTurn } from '../../../src/agent/engine/loop';
import { ProviderError } from '../../../src/agent/providers/errors';
import type { StreamPart } from '../../../src/agent/providers/types';
import { bootEngineWiki, engineDeps, Events, part, reply, scriptedModel, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
});

const rateLimited = (extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {}) =>
  new ProviderError({ kind: 'http', status: 429, message: 'Rate limited by the provider (HTTP 429).', retryable: true, ...extra });

function turn(steps: Parameters<typeof scriptedModel>[0]) {
  const chat = h.newChat({}, 'Retry');
  const s = scriptedModel(steps);
  const events = new Events();
  const deps = engineDeps(h, s.model, [], events);
  return { chat, ...s, events, deps, run: (text: string) => runTurn(deps, { chat, signal: new AbortController().signal, userText: text }) };
}

/** A step whose stream throws before any part, as an adapter does for an HTTP error. */
const throws = (error: unknown) =>
  // biome-ignore lint/correctness/useYield: the stream ends with the error before its first part, so it yields nothing
  async function* (): AsyncGenerator<StreamPart> {
    throw error;
  };

test('a 429 with retry-after is retried: a retrying event (attempt 2 of 3), then the reply', async () => {
  const t = turn([throws(rateLimited({ retryAfterMs: 1234 })), reply('Made it.')]);

  expect(await t.run('Hello')).toEqual({ status: 'completed' });

  expect(t.requests).toHaveLength(2);
  expect(t.requests[1]).toEqual(t.requests[0]); // the same request, sent again
  expect(t.events.of('retrying')).toEqual([
    { type: 'retrying', chat: t.chat, attempt: 2, maxAttempts: 3, delayMs: 1234, reason: 'Rate limited by the provider (HTTP 429).' },
  ]);
  expect(t.deps.sleeps).toEqual([1234]);
  // The retry happens inside one round: one reply-started, no error anywhere.
  expect(t.events.of('reply-started')).toHaveLength(1);
  expect(t.events.of('error')).toEqual([]);
  expect(h.messages(t.chat).map((m) => [m.role, m.text])).toEqual([
    ['user', 'Hello'],
    ['assistant', 'Made it.'],
  ]);
  expect(t.events.statuses()).toEqual(['working', 'completed']);
});

test('without retry-after the backoff comes from the schedule (full jitter, injected random)', async () => {
  const t = turn([throws(rateLimited()), throws(rateLimited()), reply('Third time.')]);

  expect(await t.run('Hello')).toEqual({ status: 'completed' });

  expect(t.requests).toHaveLength(3);
  expect(t.events.of('retrying').map((e) => [e.attempt, e.maxAttempts])).toEqual([
    [2, 3],
    [3, 3],
  ]);
  expect(t.deps.sleeps).toEqual([0, 0]); // random() = 0
});

test("giving up after the last attempt fails the turn with the provider's message", async () => {
  const t = turn([throws(rateLimited()), throws(rateLimited()), throws(rateLimited()), reply('never asked')]);

  const result = await t.run('Hello');

  expect(result).toEqual({ status: 'failed', error: 'Rate limited by the provider (HTTP 429).' });
  expect(t.requests).toHaveLength(3);
  expect(t.events.of('retrying')).toHaveLength(2);
  expect(h.messages(t.chat).map((m) => [m.role, m.text])).toEqual([
    ['user', 'Hello'],
    ['error', 'Rate limited by the provider (HTTP 429).'],
  ]);
});

test('a quota 429 is not retried: one attempt, failed, with a clear message', async () => {
  const quota = rateLimited({ quota: true, code: 'insufficient_quota', message: 'You exceeded your current quota (HTTP 429): check your plan and billing.' });
  expect(quota.retryable).toBe(false);
  const t = turn([throws(quota), reply('never asked')]);

  const result = await t.run('Hello');

  expect(result.status).toBe('failed');
  expect(result.error).toBe('You exceeded your current quota (HTTP 429): check your plan and billing.');
  expect(t.requests).toHaveLength(1);
  expect(t.events.of('retrying')).toEqual([]);
  expect(t.deps.sleeps).toEqual([]);
  expect(h.status(t.chat)).toBe('failed');
  const list = h.messages(t.chat);
  expect(list.map((m) => m.role)).toEqual(['user', 'error']);
  expect(list[1]!.text).toContain('quota');
  expect(t.events.of('error')).toEqual([{ type: 'error', chat: t.chat, message: result.error }]);
});

test('an error part after the first token is not retried: the partial text is kept with agent-finish error', async () => {
  const overloaded = new ProviderError({ kind: 'stream', code: 'overloaded_error', message: 'The provider is overloaded.', retryable: true });
  const t = turn([[part.text('The answer '), part.text('is'), { type: 'error', error: overloaded }], reply('never asked')]);

  const result = await t.run('Hello');

  expect(result.status).toBe('failed');
  expect(result.error).toBe('The provider is overloaded. The partial reply above is kept and marked incomplete.');
  expect(t.requests).toHaveLength(1);
  expect(t.events.of('retrying')).toEqual([]);
  const list = h.messages(t.chat);
  expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'error']);
  expect(list[1]).toMatchObject({ text: 'The answer is', 'agent-finish': 'error' });
  expect(list[2]!.text).toBe(result.error);
  expect(
    t.events
      .of('text-delta')
      .map((e) => e.text)
      .join(''),
  ).toBe('The answer is');
});

test('a throw after the first token is not retried either', async () => {
  const t = turn([
    async function* () {
      yield part.text('Half a');
      throw new ProviderError({ kind: 'network', message: 'The connection was reset.', retryable: true });
    },
    reply('never asked'),
  ]);

  const result = await t.run('Hello');

  expect(result).toEqual({ status: 'failed', error: 'The connection was reset. The partial reply above is kept and marked incomplete.' });
  expect(t.requests).toHaveLength(1);
  expect(h.messages(t.chat)[1]).toMatchObject({ role: 'assistant', text: 'Half a', 'agent-finish': 'error' });
});

test('a retryable error part before any content is retried, and usage of the dropped attempt is not counted', async () => {
  const t = turn([
    [part.usage(5, 0), { type: 'error', error: rateLimited({ kind: 'stream', retryAfterMs: 0 }) }],
    [part.text('Fine.'), part.usage(7, 2), part.finish('stop')],
  ]);

  expect(await t.run('Hello')).toEqual({ status: 'completed' });

  expect(t.requests).toHaveLength(2);
  expect(t.events.of('retrying').map((e) => e.attempt)).toEqual([2]);
  expect(t.events.of('usage')).toEqual([{ type: 'usage', chat: t.chat, inputTokens: 7, outputTokens: 2 }]);
  expect(h.messages(t.chat)[1]).toMatchObject({ text: 'Fine.', 'tokens-in': '7', 'tokens-out': '2' });
});
