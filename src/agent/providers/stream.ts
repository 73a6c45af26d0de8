/*\
The lifecycle every streaming adapter shares, whatever the wire format (SSE in sse.ts, NDJSON
in ndjson.ts) and whatever the API:
- `openStream`: the POST, with the idle timeout and abort also while waiting for the headers,
  and HTTP errors raised; the format checks the content type.
- `readText`: the body as text, one persistent TextDecoder (a multi-byte character cut between
  reads survives), an idle timeout per read, a prompt end on abort, the body cancelled whenever
  reading stops early.
- `streamReply`: open, read, feed each item to the adapter's decoder, and end with exactly what
  the decoder says at the end, on a failure, or once it has seen the terminal item.
- `replyModel`: an adapter's LanguageModel, from its ModelSpec (api, path, headers, body), its
  wire format and its decoder; `jsonHeaders`, the headers they send.
- `ReplyDecoder`: the decoder's end of it: text outside the format, the body's end (complete or
  truncated), a failed read, an error part, and the finish part after the tool calls and usage.
\*/
import { ProviderError } from './errors';
import { errorFromFetchFailure, errorFromResponse, type ErrorContext } from './http-errors';
import { nonEmpty } from './json';
import { readFailure, residueError, truncatedError } from './stream-errors';
import type { FetchFn, FinishReason, LanguageModel, ModelRequest, ProviderSettings, StreamPart } from './types';

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

/** Bounds a promise by the idle timeout and the abort signal (see withDeadline). */
export type Deadline = <T>(p: Promise<T>) => Promise<T>;

/**
 * Sends the request and returns the body. Throws ProviderError for network failure, timeout or
 * abort before the headers, and HTTP status >= 400; `check` throws for a 200 that is not the
 * stream format (it sees the lower-cased content type).
 */
export async function openStream(
  opts: OpenStreamOptions,
  check: (res: Response, type: string, deadline: Deadline) => Promise<void> | void,
): Promise<ReadableStream<Uint8Array>> {
  const { signal, idleTimeoutMs, ctx } = opts;
  if (signal.aborted) throw abortedError();
  // Our own controller, so a timeout can also cancel the request; it follows the caller's signal.
  const controller = new AbortController();
  const follow = () => controller.abort();
  signal.addEventListener('abort', follow, { once: true });
  const deadline: Deadline = (p) => withDeadline(p, idleTimeoutMs, signal, controller, ctx.baseUrl);
  try {
    let res: Response;
    try {
      res = await deadline(opts.fetch(opts.url, { ...opts.init, signal: controller.signal }));
    } catch (e) {
      throw errorFromFetchFailure(e, ctx);
    }
    if (!res.ok) throw await deadline(errorFromResponse(res, ctx)).catch((e: unknown) => errorFromFetchFailure(e, ctx));
    await check(res, (res.headers.get('content-type') ?? '').toLowerCase(), deadline);
    if (!res.body) throw new ProviderError({ kind: 'invalid-response', message: `The response from ${ctx.baseUrl} has no body.` });
    return res.body;
  } finally {
    // From here on readText watches the signal itself (and cancels the body on abort).
    signal.removeEventListener('abort', follow);
  }
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

export interface ReadOptions {
  /** Fail with a `timeout` ProviderError when no byte arrives for this long; 0 or undefined disables. */
  idleTimeoutMs?: number;
  /** Aborting ends the read promptly with an `aborted` ProviderError. */
  signal?: AbortSignal;
  /** Names the server in timeout messages, e.g. the base URL. */
  source?: string;
}

/**
 * Yields the body's text as it arrives, then once, with `end`, what the decoder still held
 * (possibly ''). Throws ProviderError `timeout` or `aborted`. The reader is cancelled whenever
 * iteration stops before the end of the body, so the connection is released.
 */
export async function* readText(body: ReadableStream<Uint8Array>, options: ReadOptions): AsyncGenerator<{ text: string; end?: true }, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await readChunk(reader, options);
      if (done) break;
      yield { text: decoder.decode(value, { stream: true }) };
    }
    finished = true;
    yield { text: decoder.decode(), end: true };
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** One read raced against the idle timer and the abort signal; the timer restarts per read. */
export function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>, options: ReadOptions): Promise<ReadableStreamReadResult<Uint8Array>> {
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

/** One streaming POST as an adapter describes it. */
export interface StreamRequest {
  model: string;
  signal: AbortSignal;
  /** Appended to the base URL. */
  path: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body: unknown;
}

/** How one wire format opens a stream, splits its body into items and hands each to its kind of decoder. */
export interface StreamFormat<Item, D extends ReplyDecoder> {
  open(opts: OpenStreamOptions): Promise<ReadableStream<Uint8Array>>;
  read(body: ReadableStream<Uint8Array>, options: ReadOptions): AsyncIterable<Item>;
  /** The parts one item makes. */
  feed(decoder: D, item: Item): StreamPart[];
}

/** The request side of an adapter: what its model sends for each ModelRequest. */
export interface ModelSpec {
  /** The LanguageModel's `api`. */
  api: string;
  /** Appended to the base URL. */
  path: string | ((request: ModelRequest) => string);
  headers(settings: ProviderSettings): Record<string, string>;
  /** Sent as JSON. */
  body(request: ModelRequest): unknown;
}

/** An adapter's LanguageModel: each `stream` is one streamReply of the request its spec builds, read by a new decoder. */
export function replyModel<Item, D extends ReplyDecoder>(
  settings: ProviderSettings,
  spec: ModelSpec,
  format: StreamFormat<Item, D>,
  makeDecoder: (ctx: ErrorContext) => D,
): LanguageModel {
  return {
    api: spec.api,
    async *stream(request, signal) {
      const path = typeof spec.path === 'string' ? spec.path : spec.path(request);
      return yield* streamReply(
        settings,
        { model: request.model, signal, path, headers: spec.headers(settings), body: spec.body(request) },
        format,
        makeDecoder,
      );
    },
  };
}

/**
 * The headers of an adapter's JSON POST: the content type, the API's fixed headers, the key in
 * the API's key header (left out when no key is set: local servers need none, and some reject
 * an empty one), and the settings' own headers over all of them.
 */
export function jsonHeaders(settings: ProviderSettings, keyHeader: string, keyPrefix = '', fixed: Record<string, string> = {}): Record<string, string> {
  const key = settings.apiKey?.trim();
  return { 'content-type': 'application/json', ...fixed, ...(key ? { [keyHeader]: keyPrefix + key } : {}), ...settings.headers };
}

/** The headers of the OpenAI APIs and of Ollama (behind a proxy or at ollama.com): the key as a Bearer token. */
export function bearerHeaders(settings: ProviderSettings): Record<string, string> {
  return jsonHeaders(settings, 'authorization', 'Bearer ');
}

/**
 * One streaming POST, the way every adapter makes it: open the stream (HTTP errors are
 * thrown), feed its items to the adapter's decoder, and end with exactly what the decoder
 * says at the end, on a failure, or once it has seen the terminal item.
 */
export async function* streamReply<Item, D extends ReplyDecoder>(
  settings: ProviderSettings,
  request: StreamRequest,
  format: StreamFormat<Item, D>,
  makeDecoder: (ctx: ErrorContext) => D,
): AsyncGenerator<StreamPart> {
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const ctx: ErrorContext = { baseUrl, model: request.model };
  const idleTimeoutMs = settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const { signal } = request;
  const body = await format.open({
    fetch: settings.fetch,
    url: `${baseUrl}${request.path}`,
    init: { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) },
    signal,
    idleTimeoutMs,
    ctx,
  });
  const decoder = makeDecoder(ctx);
  try {
    for await (const item of format.read(body, { idleTimeoutMs, signal, source: baseUrl })) {
      yield* format.feed(decoder, item);
      if (decoder.ended) return;
    }
    yield* decoder.eof();
  } catch (e) {
    yield* decoder.fail(e);
  }
}

export type Usage = Extract<StreamPart, { type: 'usage' }>;

/**
 * Item-by-item state of one reply; every method returns the parts to emit next. An adapter's
 * decoder adds what reads its items and counts them in `received`.
 */
export abstract class ReplyDecoder {
  /** Set once a terminal part (finish or error) was produced. */
  ended = false;
  /** Items of the stream seen so far. */
  protected received = 0;
  /** The latest token counts, sent before the finish or error part. */
  protected usage?: Usage;

  constructor(
    protected readonly ctx: ErrorContext,
    /** Names the wire format in messages; residueError's default when not given. */
    private readonly format?: string,
  ) {}

  /** Text in the body outside the format: an error object is raised, anything else only matters if nothing else came. */
  residue(text: string): StreamPart[] {
    const error = residueError(text, this.ctx, this.received > 0, this.format);
    return error ? this.error(error) : [];
  }

  /** The body ended: what endOfBody completes, else the reply is truncated. */
  eof(): StreamPart[] {
    if (this.ended) return [];
    return this.endOfBody() ?? this.error(truncatedError(this.ctx));
  }

  /** An exception while reading (timeout, abort, connection reset) becomes the final error part. */
  fail(e: unknown): StreamPart[] {
    return this.ended ? [] : this.error(readFailure(e, this.ctx));
  }

  /** The parts that complete the reply when the body ends without its terminal item; undefined: truncated. */
  protected endOfBody(): StreamPart[] | undefined {
    return undefined;
  }

  protected error(error: ProviderError): StreamPart[] {
    // Tokens were spent even if the reply failed; budgets still want them.
    const out: StreamPart[] = [...(this.usage ? [this.usage] : []), { type: 'error', error }];
    this.ended = true;
    return out;
  }

  /**
   * The tool calls completed, the usage, then the finish part: `raw` is the API's own reason,
   * mapped through `reasons` (unknown ones are `other`, none is `stop`). APIs that say stop
   * after calling tools get `tool-calls`.
   */
  protected finishReply(raw: string | undefined, reasons: Record<string, FinishReason>, calls: StreamPart[]): StreamPart[] {
    let reason: FinishReason = raw ? (reasons[raw] ?? 'other') : 'stop';
    if (reason === 'stop' && calls.length > 0) reason = 'tool-calls';
    const out: StreamPart[] = [...calls, ...(this.usage ? [this.usage] : [])];
    out.push(raw ? { type: 'finish', reason, raw } : { type: 'finish', reason });
    this.ended = true;
    return out;
  }
}

/** A text or reasoning delta, or no part for an empty one (servers send "" and null for nothing). */
export function textDelta(type: 'text-delta' | 'reasoning-delta', value: unknown): StreamPart[] {
  const text = nonEmpty(value);
  return text ? [{ type, text }] : [];
}

/** A tool call whose arguments stream as JSON text, until its block or item closes. */
export interface StreamedCall {
  slot: number;
  id: string;
  name: string;
  argsText: string;
  /** The arguments when no argument text comes (Anthropic: `input` of content_block_start when it is not the usual empty `{}`). */
  inputObject?: Record<string, unknown>;
  /** Its block or item closed: the arguments are final. */
  done: boolean;
}

/** A streamed call as it ends the reply: complete, or invalid without a name or valid JSON; `cutByLimit`: the reply hit the token limit. */
export function completeCall(call: StreamedCall, cutByLimit: boolean): StreamPart {
  const { slot: index, id, name, argsText } = call;
  if (!name) return { type: 'tool-call-invalid', index, id, name, argsText, reason: 'the model sent a tool call without a name' };
  const text = argsText.trim();
  // A tool without arguments may send no argument text at all, or only "".
  if (text === '') return { type: 'tool-call', index, id, name, args: call.inputObject ?? {} };
  try {
    const args: unknown = JSON.parse(text);
    return { type: 'tool-call', index, id, name, args: args ?? {} };
  } catch (e) {
    const cut = cutByLimit ? ' (the reply was cut off by the token limit)' : !call.done ? ' (the tool call was never closed)' : '';
    return {
      type: 'tool-call-invalid',
      index,
      id,
      name,
      argsText,
      reason: `the arguments are not valid JSON${cut}: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}
