/*\
Server-sent events from a fetch Response body, for every SSE-based adapter.
Bytes are decoded with one persistent TextDecoder (so a multi-byte character cut between
reads survives) and framed by eventsource-parser (CR/LF/CRLF, comments, `event:`, multi-line
`data:`, optional space after the colon). Lines that are not SSE at all (a raw JSON error
written into the stream, as Vertex does) are kept and reported once at the end, so the
adapter can decide whether they are an error.
`openEventStream` does the POST in front of it: idle timeout and abort also while waiting for
the response headers, HTTP errors, and bodies that are JSON or HTML instead of a stream.
\*/
import { createParser } from 'eventsource-parser';
import { ProviderError } from './errors';
import { errorFromFetchFailure, errorFromHttp, errorFromResponse, parseErrorBody, type ErrorContext } from './http-errors';
import { unreadable } from './stream-errors';
import type { FetchFn, ProviderSettings, StreamPart } from './types';

/** Used when the settings give no idle timeout: long enough for a local model to load. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export interface OpenStreamOptions {
  fetch: FetchFn;
  url: string;
  /** Method, headers and body; the signal is supplied here. */
  init: Omit<RequestInit, 'signal'>;
  signal: AbortSignal;
  idleTimeoutMs: number;
  ctx: ErrorContext;
}

/**
 * Sends the request and returns the event-stream body. Throws ProviderError for everything
 * that goes wrong before the stream starts: network, timeout, abort, HTTP status >= 400, and
 * a 200 whose body is JSON or HTML (an error object in it is raised as that error).
 */
export async function openEventStream(opts: OpenStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const { signal } = opts;
  if (signal.aborted) throw abortedError();
  // Our own controller, so a timeout can also cancel the request; it follows the caller's signal.
  const controller = new AbortController();
  const follow = () => controller.abort();
  signal.addEventListener('abort', follow, { once: true });
  try {
    return await openChecked(opts, controller);
  } finally {
    // From here on readSse watches the signal itself (and cancels the body on abort).
    signal.removeEventListener('abort', follow);
  }
}

async function openChecked(opts: OpenStreamOptions, controller: AbortController): Promise<ReadableStream<Uint8Array>> {
  const { signal, idleTimeoutMs, ctx } = opts;
  const deadline = <T>(p: Promise<T>) => withDeadline(p, idleTimeoutMs, signal, controller, ctx.baseUrl);
  let res: Response;
  try {
    res = await deadline(opts.fetch(opts.url, { ...opts.init, signal: controller.signal }));
  } catch (e) {
    throw errorFromFetchFailure(e, ctx);
  }
  if (!res.ok) throw await deadline(errorFromResponse(res, ctx)).catch((e: unknown) => errorFromFetchFailure(e, ctx));
  const type = (res.headers.get('content-type') ?? '').toLowerCase();
  if (!type.includes('event-stream') && (type.includes('json') || type.includes('html'))) {
    const text = await deadline(res.text()).catch((e: unknown) => {
      throw errorFromFetchFailure(e, ctx);
    });
    const info = parseErrorBody(text);
    if (info.isError) throw errorFromHttp(info.status !== undefined && info.status >= 400 ? info.status : res.status, text, res.headers, ctx);
    const what = type.includes('json') ? `JSON: ${excerpt(text)}. Does this server support streaming (stream: true)?` : 'an HTML page. Check the base URL in the TiddlyAgent settings.';
    throw new ProviderError({ kind: 'invalid-response', message: `Expected a stream of server-sent events from ${ctx.baseUrl} but got ${what}` });
  }
  if (!res.body) throw new ProviderError({ kind: 'invalid-response', message: `The response from ${ctx.baseUrl} has no body.` });
  return res.body;
}

/** Settles with `p`, or rejects on timeout/abort without waiting for `p` (an injected fetch may ignore the signal). */
export function withDeadline<T>(p: Promise<T>, ms: number, signal: AbortSignal, controller: AbortController, source: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => finish(() => reject(abortedError()));
    const onTimeout = () => {
      controller.abort(); // frees the connection even though we stop waiting right away
      reject(idleTimeoutError(ms, source));
    };
    const timer = ms > 0 && Number.isFinite(ms) ? setTimeout(() => finish(onTimeout), ms) : undefined;
    const finish = (fn: () => void) => {
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => finish(() => resolve(v)),
      (e) => finish(() => reject(e)),
    );
  });
}

function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export type SseItem =
  /**
   * One dispatched event; `event` is the `event:` name when the server sent one. `cut`: the
   * body ended inside it (no blank line closed it), so it may be only a part of an event.
   */
  | { kind: 'event'; event?: string; data: string; cut?: true }
  /** Non-SSE lines seen anywhere in the body, joined with `\n`; yielded once, after the last event. */
  | { kind: 'residue'; text: string };

export interface SseReadOptions {
  /** Fail with a `timeout` ProviderError when no byte arrives for this long; 0 or undefined disables. */
  idleTimeoutMs?: number;
  /** Aborting ends the read promptly with an `aborted` ProviderError. */
  signal?: AbortSignal;
  /** Names the server in timeout messages, e.g. the base URL. */
  source?: string;
}

/**
 * Yields the events of an SSE body as they arrive. Throws ProviderError `timeout` or
 * `aborted`; ends normally at EOF (whether the stream was complete is the adapter's call).
 * The reader is cancelled whenever iteration stops early, so the connection is released.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, options: SseReadOptions = {}): AsyncGenerator<SseItem, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  const queue: SseItem[] = [];
  const residue: string[] = [];
  const parser = createParser({
    onEvent: (e) => queue.push(e.event ? { kind: 'event', event: e.event, data: e.data } : { kind: 'event', data: e.data }),
    // Unknown fields are where non-SSE text ends up (`{`, `  "error": {`, ...).
    onError: (err) => {
      if (err.type === 'unknown-field' && err.line !== undefined) residue.push(err.line);
    },
  });
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await readChunk(reader, options);
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
    finished = true;
    // Flush the decoder, then end the last line and event: servers that close right after
    // `data: [DONE]\n` (one newline) would otherwise lose their final event.
    parser.feed(decoder.decode() + '\n\n');
    while (queue.length > 0) yield { ...queue.shift()!, cut: true } as SseItem;
    const text = residue.join('\n').trim();
    if (text !== '') yield { kind: 'residue', text };
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** One read raced against the idle timer and the abort signal; the timer restarts per read. */
export function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>, options: SseReadOptions): Promise<ReadableStreamReadResult<Uint8Array>> {
  const { idleTimeoutMs, signal, source } = options;
  if (signal?.aborted) return Promise.reject(abortedError());
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => settle(() => reject(abortedError()));
    const settle = (fn: () => void) => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    if (idleTimeoutMs && idleTimeoutMs > 0 && Number.isFinite(idleTimeoutMs)) {
      timer = setTimeout(() => settle(() => reject(idleTimeoutError(idleTimeoutMs, source))), idleTimeoutMs);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (r) => settle(() => resolve(r)),
      (e) => settle(() => reject(e)),
    );
  });
}

export function idleTimeoutError(idleTimeoutMs: number, source?: string): ProviderError {
  const from = source ? ` from ${source}` : '';
  return new ProviderError({
    kind: 'timeout',
    message: `No data arrived${from} for ${formatSeconds(idleTimeoutMs)}; gave up waiting. The server may be overloaded or the model still loading; try again or raise the timeout.`,
    retryable: true,
  });
}

export function abortedError(): ProviderError {
  return new ProviderError({ kind: 'aborted', message: 'The request was stopped.' });
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** What an adapter's decoder does with the items of one SSE response. */
export interface SseDecoder {
  readonly ended: boolean;
  event(name: string | undefined, data: string): StreamPart[];
  residue(text: string): StreamPart[];
  /** The body ended: complete the reply, or report it as truncated. */
  eof(): StreamPart[];
  fail(error: unknown): StreamPart[];
}

/**
 * One streaming POST, the way every SSE adapter makes it: open the stream (HTTP errors are
 * thrown), feed its events to the adapter's decoder, and end with exactly what the decoder
 * says at the end, on a failure, or once it has seen the terminal event.
 */
export async function* streamSse(
  settings: ProviderSettings,
  request: { model: string; signal: AbortSignal; path: string; headers: Record<string, string>; body: unknown },
  makeDecoder: (ctx: ErrorContext) => SseDecoder,
): AsyncGenerator<StreamPart> {
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const ctx: ErrorContext = { baseUrl, model: request.model };
  const idleTimeoutMs = settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const { signal } = request;
  const body = await openEventStream({
    fetch: settings.fetch,
    url: `${baseUrl}${request.path}`,
    init: { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) },
    signal,
    idleTimeoutMs,
    ctx,
  });
  const decoder = makeDecoder(ctx);
  try {
    for await (const item of readSse(body, { idleTimeoutMs, signal, source: baseUrl })) {
      // The body ended inside an event that cannot be read: the stream was cut there (eof says so), not damaged.
      if (item.kind === 'event' && item.cut && unreadable(item.data)) continue;
      yield* item.kind === 'event' ? decoder.event(item.event, item.data) : decoder.residue(item.text);
      if (decoder.ended) return;
    }
    yield* decoder.eof();
  } catch (e) {
    yield* decoder.fail(e);
  }
}
