/*\
retryStream: retries before the first content part only, backoff with full jitter,
retry-after, quota, abort, and pass-through once content has started.
\*/
import { ProviderError } from '../../../src/agent/providers/errors';
import type { StreamPart } from '../../../src/agent/providers/types';
import { defaultSleep, retryDelay, retryStream, type RetryInfo, type RetryOptions } from '../../../src/agent/engine/retry';

/** One scripted attempt: parts to yield, then optionally a throw. */
type Script = { parts?: StreamPart[]; throws?: unknown };

const text = (t: string): StreamPart => ({ type: 'text-delta', text: t });
const finish: StreamPart = { type: 'finish', reason: 'stop' };
const usage: StreamPart = { type: 'usage', inputTokens: 10 };
const errPart = (error: ProviderError): StreamPart => ({ type: 'error', error });

const http = (status: number, extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {}) =>
  new ProviderError({ kind: 'http', status, message: `HTTP ${status}`, retryable: status === 429 || status >= 500, ...extra });
const overloaded = () => new ProviderError({ kind: 'stream', code: 'overloaded_error', message: 'Overloaded', retryable: true });

function harness(scripts: Script[], opts: Partial<RetryOptions> = {}) {
  const opened: number[] = [];
  const closed: number[] = [];
  const delays: number[] = [];
  const retries: RetryInfo[] = [];
  const controller = new AbortController();
  const open = (attempt: number): AsyncIterable<StreamPart> => {
    opened.push(attempt);
    const script = scripts[attempt - 1];
    if (!script) throw new Error(`unexpected attempt ${attempt}`);
    return (async function* () {
      try {
        for (const p of script.parts ?? []) yield p;
        if (script.throws !== undefined) throw script.throws;
      } finally {
        closed.push(attempt);
      }
    })();
  };
  const options: RetryOptions = {
    signal: controller.signal,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 1,
    onRetry: (info) => retries.push(info),
    ...opts,
  };
  const run = async () => {
    const out: StreamPart[] = [];
    let error: unknown;
    try {
      for await (const p of retryStream(open, options)) out.push(p);
    } catch (e) {
      error = e;
    }
    return { out, error };
  };
  return { run, opened, closed, delays, retries, controller, open, options };
}

describe('retryStream', () => {
  it('retries a 429 once after exactly retryAfterMs and yields only the successful stream', async () => {
    const e429 = http(429, { retryAfterMs: 1000 });
    const h = harness([{ throws: e429 }, { parts: [text('Hi'), text('!'), usage, finish] }]);
    const { out, error } = await h.run();
    expect(error).toBeUndefined();
    expect(out).toEqual([text('Hi'), text('!'), usage, finish]);
    expect(h.opened).toEqual([1, 2]);
    expect(h.delays).toEqual([1000]);
    expect(h.retries).toEqual([{ attempt: 1, maxAttempts: 3, delayMs: 1000, error: e429 }]);
  });

  it('does not retry a quota 429', async () => {
    const quota = http(429, { quota: true, code: 'insufficient_quota' });
    expect(quota.retryable).toBe(false);
    const h = harness([{ throws: quota }, { parts: [text('never')] }]);
    const { out, error } = await h.run();
    expect(error).toBe(quota);
    expect(out).toEqual([]);
    expect(h.opened).toEqual([1]);
    expect(h.delays).toEqual([]);
    expect(h.retries).toEqual([]);
  });

  it('retries a 503 with full-jitter exponential delays (random() = 1: the bound itself)', async () => {
    const h = harness([{ throws: http(503) }, { throws: http(503) }, { parts: [text('ok'), finish] }]);
    const { out, error } = await h.run();
    expect(error).toBeUndefined();
    expect(out).toEqual([text('ok'), finish]);
    expect(h.delays).toEqual([500, 1000]);
    expect(h.retries.map((r) => [r.attempt, r.maxAttempts, r.delayMs])).toEqual([
      [1, 3, 500],
      [2, 3, 1000],
    ]);
  });

  it('scales the jittered delay by random() (0.5 -> half the bound)', async () => {
    const h = harness([{ throws: http(503) }, { throws: http(500) }, { parts: [finish] }], { random: () => 0.5 });
    await h.run();
    expect(h.delays).toEqual([250, 500]);
  });

  it('caps the exponential bound at maxDelayMs', () => {
    const o = { baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60000, random: () => 1 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(http(503), n, o))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(retryDelay(http(503), 3, { ...o, random: () => 0 })).toBe(0);
    expect(retryDelay(http(503, { retryAfterMs: -20 }), 1, o)).toBe(0);
    expect(retryDelay(http(401), 1, o)).toBeUndefined();
  });

  it('surfaces the third failure after 3 attempts', async () => {
    const errors = [http(503), http(502), http(500)];
    const h = harness(errors.map((e) => ({ throws: e })));
    const { out, error } = await h.run();
    expect(error).toBe(errors[2]);
    expect(out).toEqual([]);
    expect(h.opened).toEqual([1, 2, 3]);
    expect(h.delays).toHaveLength(2);
    expect(h.retries.map((r) => r.error)).toEqual([errors[0], errors[1]]);
  });

  it('surfaces a last-attempt error part as a part, with the parts before it', async () => {
    const last = overloaded();
    const h = harness([{ parts: [errPart(overloaded())] }, { parts: [usage, errPart(last)] }], { maxRetries: 1 });
    const { out, error } = await h.run();
    expect(error).toBeUndefined();
    expect(out).toEqual([usage, errPart(last)]);
    expect(h.opened).toEqual([1, 2]);
  });

  it('never retries after the first token: the partial text and the error part pass through', async () => {
    const late = overloaded();
    const h = harness([{ parts: [text('Hel'), errPart(late)] }, { parts: [text('never')] }]);
    const { out, error } = await h.run();
    expect(error).toBeUndefined();
    expect(out).toEqual([text('Hel'), errPart(late)]);
    expect(h.opened).toEqual([1]);
    expect(h.retries).toEqual([]);
  });

  it('never retries after the first token: a thrown retryable error is rethrown unchanged', async () => {
    const late = new ProviderError({ kind: 'network', message: 'reset', retryable: true });
    const h = harness([{ parts: [{ type: 'tool-call-start', index: 0, id: 'c1', name: 'search' }], throws: late }]);
    const { out, error } = await h.run();
    expect(error).toBe(late);
    expect(out).toEqual([{ type: 'tool-call-start', index: 0, id: 'c1', name: 'search' }]);
    expect(h.opened).toEqual([1]);
  });

  it("retries an early retryable error part and drops the failed attempt's parts", async () => {
    const h = harness([{ parts: [usage, errPart(overloaded())] }, { parts: [{ type: 'reasoning-delta', text: 'hmm' }, text('ok'), finish] }]);
    const { out, error } = await h.run();
    expect(error).toBeUndefined();
    expect(out).toEqual([{ type: 'reasoning-delta', text: 'hmm' }, text('ok'), finish]);
    expect(h.opened).toEqual([1, 2]);
    expect(h.closed).toEqual([1, 2]); // the failed attempt's iterator was closed
    expect(h.delays).toEqual([500]);
  });

  it('holds non-content parts until content starts, then yields them in order', async () => {
    const h = harness([{ parts: [usage, text('a'), usage, finish] }]);
    const { out } = await h.run();
    expect(out).toEqual([usage, text('a'), usage, finish]);
  });

  it('yields held parts of a stream that ends without content', async () => {
    const h = harness([{ parts: [usage, finish] }]);
    expect((await h.run()).out).toEqual([usage, finish]);
  });

  it('passes a non-retryable early error part through without retrying', async () => {
    const bad = new ProviderError({ kind: 'stream', message: 'invalid request' });
    const h = harness([{ parts: [errPart(bad)] }, { parts: [text('never')] }]);
    const { out, error } = await h.run();
    expect(error).toBeUndefined();
    expect(out).toEqual([errPart(bad)]);
    expect(h.opened).toEqual([1]);
  });

  it('throws a non-retryable 401 once', async () => {
    const e401 = http(401);
    const h = harness([{ throws: e401 }, { parts: [text('never')] }]);
    const { error } = await h.run();
    expect(error).toBe(e401);
    expect(h.opened).toEqual([1]);
    expect(h.delays).toEqual([]);
  });

  it('does not wait for a retryAfterMs above maxRetryAfterMs', async () => {
    const long = http(429, { retryAfterMs: 120_000 });
    const h = harness([{ throws: long }, { parts: [text('never')] }]);
    const { error } = await h.run();
    expect(error).toBe(long);
    expect(h.opened).toEqual([1]);
    expect(h.delays).toEqual([]);

    const custom = harness([{ throws: http(429, { retryAfterMs: 2000 }) }, { parts: [finish] }], { maxRetryAfterMs: 1000 });
    expect((await custom.run()).error).toMatchObject({ status: 429 });
    expect(custom.opened).toEqual([1]);
  });

  it('ends promptly with kind aborted when the signal aborts during a sleep, with no further attempt', async () => {
    let h!: ReturnType<typeof harness>;
    h = harness([{ throws: http(503) }, { parts: [text('never')] }], {
      sleep: (ms, signal) =>
        new Promise<void>((_resolve, reject) => {
          h.delays.push(ms);
          signal.addEventListener('abort', () => reject(new Error('sleep aborted')), { once: true });
          h.controller.abort();
        }),
    });
    const { out, error } = await h.run();
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'aborted', message: 'Stopped.' });
    expect(out).toEqual([]);
    expect(h.opened).toEqual([1]);
  });

  it('starts no attempt when the signal is already aborted', async () => {
    const h = harness([{ parts: [text('never')] }]);
    h.controller.abort();
    const { error } = await h.run();
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(h.opened).toEqual([]);
  });

  it('rethrows a non-ProviderError without retrying', async () => {
    const boom = new TypeError('boom');
    const h = harness([{ throws: boom }, { parts: [text('never')] }]);
    const { error } = await h.run();
    expect(error).toBe(boom);
    expect(h.opened).toEqual([1]);
    expect(h.retries).toEqual([]);
  });

  it('rethrows a synchronous throw from open()', async () => {
    const h = harness([]);
    const { error } = await h.run();
    expect(error).toEqual(new Error('unexpected attempt 1'));
  });

  it('closes the live attempt when the consumer stops early', async () => {
    const h = harness([{ parts: [text('a'), text('b'), text('c')] }]);
    const out: StreamPart[] = [];
    for await (const p of retryStream(h.open, h.options)) {
      out.push(p);
      break;
    }
    expect(out).toEqual([text('a')]);
    expect(h.closed).toEqual([1]);
  });

  it('honours maxRetries: 0 (one attempt)', async () => {
    const e = http(503);
    const h = harness([{ throws: e }], { maxRetries: 0 });
    expect((await h.run()).error).toBe(e);
    expect(h.opened).toEqual([1]);
  });

  describe('with the real default sleep', () => {
    it('waits a tiny retryAfterMs and then succeeds', async () => {
      const h = harness([{ throws: http(429, { retryAfterMs: 5 }) }, { parts: [text('ok')] }], { sleep: undefined });
      const t0 = Date.now();
      const { out, error } = await h.run();
      expect(error).toBeUndefined();
      expect(out).toEqual([text('ok')]);
      expect(h.opened).toEqual([1, 2]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(4);
    });

    it('returns early when the signal aborts during a long wait', async () => {
      const h = harness([{ throws: http(429, { retryAfterMs: 30_000 }) }, { parts: [text('never')] }], { sleep: undefined });
      setTimeout(() => h.controller.abort(), 10);
      const t0 = Date.now();
      const { error } = await h.run();
      expect(error).toMatchObject({ kind: 'aborted', message: 'Stopped.' });
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(h.opened).toEqual([1]);
    });

    it('defaultSleep resolves at once for an aborted signal or a non-positive delay', async () => {
      const c = new AbortController();
      c.abort();
      await expect(defaultSleep(60_000, c.signal)).resolves.toBeUndefined();
      await expect(defaultSleep(0, new AbortController().signal)).resolves.toBeUndefined();
    });
  });
});
