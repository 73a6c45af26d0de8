/*\
Newline-delimited JSON from a fetch Response body (Ollama's native API), the NDJSON sibling of
sse.ts with the same behaviour: one persistent TextDecoder, lines split across reads are
joined, `\r\n` accepted, the last line counts without a trailing newline, an idle timeout per
read and a prompt end on abort (the body is cancelled). Lines that are not JSON and that the
stream goes on after are reported as they are passed (`invalid`: the stream was damaged
there); those after the last value are kept and reported once at the end (a pretty-printed
error object spans several lines).
`openNdjsonStream` does the POST in front of it. openEventStream cannot be reused because it
reads any `…json` content type (which `application/x-ndjson` is) as a one-shot error body.
\*/
import { ProviderError } from './errors';
import { errorFromFetchFailure, errorFromResponse } from './http-errors';
import { abortedError, readChunk, withDeadline, type OpenStreamOptions, type SseReadOptions } from './sse';

export type NdjsonItem =
  /** One parsed line. */
  | { kind: 'value'; value: unknown }
  /** Lines that were not JSON, with more of the stream after them, joined with `\n`; yielded before the value that follows. */
  | { kind: 'invalid'; text: string }
  /** Lines after the last value that were not JSON, joined with `\n`; yielded once, at the end. */
  | { kind: 'residue'; text: string };

/**
 * Sends the request and returns the body. Throws ProviderError for network failure, timeout or
 * abort before the headers, HTTP status >= 400, an HTML page, and an SSE stream (a /v1 URL).
 */
export async function openNdjsonStream(opts: OpenStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const { signal, idleTimeoutMs, ctx } = opts;
  if (signal.aborted) throw abortedError();
  const controller = new AbortController();
  const follow = () => controller.abort();
  signal.addEventListener('abort', follow, { once: true });
  const deadline = <T>(p: Promise<T>) => withDeadline(p, idleTimeoutMs, signal, controller, ctx.baseUrl);
  try {
    let res: Response;
    try {
      res = await deadline(opts.fetch(opts.url, { ...opts.init, signal: controller.signal }));
    } catch (e) {
      throw errorFromFetchFailure(e, ctx);
    }
    if (!res.ok) throw await deadline(errorFromResponse(res, ctx)).catch((e: unknown) => errorFromFetchFailure(e, ctx));
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    if (type.includes('html') || type.includes('event-stream')) {
      res.body?.cancel().catch(() => undefined);
      const what = type.includes('html') ? 'an HTML page' : 'a stream of server-sent events (an OpenAI-compatible /v1 endpoint?)';
      throw new ProviderError({
        kind: 'invalid-response',
        message: `Expected newline-delimited JSON from ${ctx.baseUrl} but got ${what}. Check the base URL in the TiddlyAgent settings (Ollama's native API has no /v1).`,
      });
    }
    if (!res.body) throw new ProviderError({ kind: 'invalid-response', message: `The response from ${ctx.baseUrl} has no body.` });
    return res.body;
  } finally {
    signal.removeEventListener('abort', follow);
  }
}

/**
 * Yields the JSON values of an NDJSON body as they arrive. Throws ProviderError `timeout` or
 * `aborted`; ends normally at EOF. The reader is cancelled whenever iteration stops early.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>, options: SseReadOptions = {}): AsyncGenerator<NdjsonItem, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  /** Lines since the last value that were not JSON. */
  let residue: string[] = [];
  let pending = '';
  let finished = false;
  const parse = (line: string): NdjsonItem[] => {
    const text = line.replace(/^\uFEFF/, '').trim();
    if (text === '') return [];
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      residue.push(text);
      return [];
    }
    const invalid = residue.join('\n');
    residue = [];
    return invalid ? [{ kind: 'invalid', text: invalid }, { kind: 'value', value }] : [{ kind: 'value', value }];
  };
  try {
    for (;;) {
      const { done, value } = await readChunk(reader, options);
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const items = parse(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        yield* items;
      }
    }
    finished = true;
    yield* parse(pending + decoder.decode());
    const text = residue.join('\n').trim();
    if (text !== '') yield { kind: 'residue', text };
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

