/*\
Newline-delimited JSON from a fetch Response body (Ollama's native API), the NDJSON sibling of
sse.ts with the same behaviour: one persistent TextDecoder, lines split across reads are
joined, `\r\n` accepted, the last line counts without a trailing newline, an idle timeout per
read and a prompt end on abort (the body is cancelled). Lines that are not JSON and that the
stream goes on after are reported as they are passed (`invalid`: the stream was damaged
there); those after the last value are kept and reported once at the end (a pretty-printed
error object spans several lines).
`openNdjsonStream` does the POST in front of it (stream.ts's openStream). openEventStream cannot
be reused because it reads any `…json` content type (which `application/x-ndjson` is) as a
one-shot error body. `ndjsonModel` is stream.ts's replyModel for NDJSON adapters.
\*/
import { ProviderError } from './errors';
import type { ErrorContext } from './http-errors';
import { openStream, readText, ReplyDecoder, replyModel, type ModelSpec, type OpenStreamOptions, type ReadOptions, type StreamFormat } from './stream';
import type { LanguageModel, ProviderSettings, StreamPart } from './types';

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
export function openNdjsonStream(opts: OpenStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const { ctx } = opts;
  return openStream(opts, (res, type) => {
    if (!type.includes('html') && !type.includes('event-stream')) return;
    res.body?.cancel().catch(() => undefined);
    const what = type.includes('html') ? 'an HTML page' : 'a stream of server-sent events (an OpenAI-compatible /v1 endpoint?)';
    throw new ProviderError({
      kind: 'invalid-response',
      message: `Expected newline-delimited JSON from ${ctx.baseUrl} but got ${what}. Check the base URL in the TiddlyAgent settings (Ollama's native API has no /v1).`,
    });
  });
}

/**
 * Yields the JSON values of an NDJSON body as they arrive. Throws ProviderError `timeout` or
 * `aborted`; ends normally at EOF. The reader is cancelled whenever iteration stops early.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>, options: ReadOptions = {}): AsyncGenerator<NdjsonItem, void, undefined> {
  /** Lines since the last value that were not JSON. */
  let residue: string[] = [];
  let pending = '';
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
    return invalid
      ? [
          { kind: 'invalid', text: invalid },
          { kind: 'value', value },
        ]
      : [{ kind: 'value', value }];
  };
  for await (const { text, end } of readText(body, options)) {
    if (!end) {
      pending += text;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const items = parse(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        yield* items;
      }
      continue;
    }
    yield* parse(pending + text);
    const rest = residue.join('\n').trim();
    if (rest !== '') yield { kind: 'residue', text: rest };
  }
}

/** What an adapter's decoder does with the items of one NDJSON response. */
export abstract class NdjsonDecoder extends ReplyDecoder {
  /** One JSON value. */
  abstract value(value: unknown): StreamPart[];
  /** Lines inside the stream that were not JSON. */
  abstract invalid(text: string): StreamPart[];
}

const NDJSON: StreamFormat<NdjsonItem, NdjsonDecoder> = {
  open: openNdjsonStream,
  read: readNdjson,
  feed: (decoder, item) =>
    item.kind === 'value' ? decoder.value(item.value) : item.kind === 'invalid' ? decoder.invalid(item.text) : decoder.residue(item.text),
};

/** The LanguageModel of an NDJSON adapter (stream.ts's replyModel). */
export function ndjsonModel(settings: ProviderSettings, spec: ModelSpec, makeDecoder: (ctx: ErrorContext) => NdjsonDecoder): LanguageModel {
  return replyModel(settings, spec, NDJSON, makeDecoder);
}
