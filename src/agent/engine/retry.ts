/*\
Retries a model stream with exponential backoff and full jitter, around the request and until
the first token. An attempt that fails retryably (a thrown retryable ProviderError, or a
retryable `error` part) before any content part is dropped and the request is opened again;
once content has been yielded the stream passes straight through and is never retried.

The schedule is written by hand rather than with the `exponential-backoff` package: its waits
are a bare setTimeout that an AbortSignal cannot cut short, its jitter calls Math.random
directly (no deterministic tests), and it has no notion of a server-asked delay (retry-after)
or of giving up when that delay is too long. The arithmetic is one line; see `retryDelay`.

No TiddlyWiki globals, no DOM, no Node: timers come through the injected `sleep`.
\*/
import { isProviderError, ProviderError } from '../providers/errors';
import type { StreamPart } from '../providers/types';

export interface RetryInfo {
  /** The retry number, 1-based: the attempt about to start is `attempt + 1` of `maxAttempts`. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: ProviderError;
}

export interface RetryOptions {
  signal: AbortSignal;
  /** Default 2 (3 attempts). */
  maxRetries?: number;
  /** Default 500; doubled each retry, capped by maxDelayMs (default 8000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Default 60000: a server-asked delay above this is not waited for; the error surfaces. */
  maxRetryAfterMs?: number;
  /** Default: setTimeout-based, returns early when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** For full jitter; default Math.random. */
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

/** The agent's retry policy (its `agent-retries`, `agent-retry-delay`, `agent-retry-max-delay`, in seconds), as RetryOptions; unset fields keep the defaults. */
export function agentRetryPolicy(
  agent: { 'agent-retries'?: number; 'agent-retry-delay'?: number; 'agent-retry-max-delay'?: number } | undefined,
): Pick<RetryOptions, 'maxRetries' | 'baseDelayMs' | 'maxDelayMs'> {
  const policy: Pick<RetryOptions, 'maxRetries' | 'baseDelayMs' | 'maxDelayMs'> = {};
  if (agent?.['agent-retries'] !== undefined) policy.maxRetries = agent['agent-retries'];
  if (agent?.['agent-retry-delay'] !== undefined) policy.baseDelayMs = agent['agent-retry-delay'] * 1000;
  if (agent?.['agent-retry-max-delay'] !== undefined) policy.maxDelayMs = agent['agent-retry-max-delay'] * 1000;
  return policy;
}

/** Parts that mean the user has seen output; after one of these there is no retry. */
const CONTENT: ReadonlySet<StreamPart['type']> = new Set<StreamPart['type']>([
  'text-delta',
  'reasoning-delta',
  'tool-call-start',
  'tool-call-delta',
  'tool-call',
  'tool-call-invalid',
]);

export function stoppedError(): ProviderError {
  return new ProviderError({ kind: 'aborted', message: 'Stopped.' });
}

/** Waits `ms`, or less if `signal` aborts (it then resolves at once; the caller checks the signal). */
export function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || !(ms > 0)) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer: ReturnType<typeof setTimeout> = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The delay before retry number `n` (1-based), or undefined when `error` must not be retried
 * (not retryable, or the server asked for a longer wait than `maxRetryAfterMs`).
 */
export function retryDelay(
  error: ProviderError,
  n: number,
  o: { baseDelayMs: number; maxDelayMs: number; maxRetryAfterMs: number; random: () => number },
): number | undefined {
  if (!error.retryable) return undefined;
  const asked = error.retryAfterMs;
  if (asked !== undefined && !Number.isNaN(asked)) return asked > o.maxRetryAfterMs ? undefined : Math.max(asked, 0);
  return o.random() * Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (n - 1));
}

/**
 * Streams `open(attempt)` (attempt is 1-based), opening it again after a retryable failure
 * that came before any content part. Non-content parts seen before the first content part
 * (e.g. `usage`) are held back until the attempt is known to stand, then yielded in order.
 * The last attempt's failure surfaces exactly as it came (thrown, or yielded as a part).
 * Aborting `options.signal` during a wait ends with ProviderError kind 'aborted' ("Stopped.").
 */
export async function* retryStream(open: (attempt: number) => AsyncIterable<StreamPart>, options: RetryOptions): AsyncGenerator<StreamPart, void, undefined> {
  const { signal, onRetry } = options;
  const maxAttempts = Math.max(0, Math.floor(options.maxRetries ?? 2)) + 1;
  const schedule = {
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 8000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60000,
    random: options.random ?? Math.random,
  };
  const sleep = options.sleep ?? defaultSleep;
  /** The delay before retrying after `attempt` failed with `error`, or undefined: do not retry. */
  const delayAfter = (error: ProviderError, attempt: number) => (attempt < maxAttempts ? retryDelay(error, attempt, schedule) : undefined);

  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw stoppedError();
    const held: StreamPart[] = [];
    let live = false;
    let failure: ProviderError | undefined;
    let delayMs = 0;
    try {
      for await (const part of open(attempt)) {
        if (live) {
          yield part; // hot path
          continue;
        }
        if (part.type === 'error') {
          const d = delayAfter(part.error, attempt);
          if (d !== undefined) {
            failure = part.error;
            delayMs = d;
            break; // closes this attempt's iterator
          }
        } else if (!CONTENT.has(part.type)) {
          held.push(part);
          continue;
        }
        // First content part, or an error part that ends the stream unretried: commit.
        live = true;
        for (const p of held) yield p;
        held.length = 0;
        yield part;
      }
    } catch (e) {
      const d = !live && isProviderError(e) ? delayAfter(e, attempt) : undefined;
      if (d === undefined) {
        for (const p of held) yield p;
        throw e;
      }
      failure = e as ProviderError;
      delayMs = d;
    }
    if (!failure) {
      for (const p of held) yield p;
      return;
    }
    if (signal.aborted) throw stoppedError();
    onRetry?.({ attempt, maxAttempts, delayMs, error: failure });
    try {
      await sleep(delayMs, signal);
    } catch (e) {
      if (signal.aborted) throw stoppedError();
      throw e;
    }
    if (signal.aborted) throw stoppedError();
  }
}
