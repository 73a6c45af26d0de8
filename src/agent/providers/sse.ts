/*\
Server-sent events from a fetch Response body, for every SSE-based adapter.
Bytes are decoded with one persistent TextDecoder (so a multi-byte character cut between
reads survives) and framed by eventsource-parser (CR/LF/CRLF, comments, `event:`, multi-line
`data:`, optional space after the colon). Lines that are not SSE at all (a raw JSON error
written into the stream, as Vertex does) are kept and reported once at the end, so the
adapter can decide whether they are an error.
`openEventStream` does the POST in front of it (stream.ts's openStream), refusing bodies that
are JSON or HTML instead of a stream; `sseModel` is stream.ts's replyModel for SSE adapters.
\*/
import { createParser } from 'eventsource-parser';
import { ProviderError } from './errors';
import { errorFromFetchFailure, errorFromHttp, errorFromStreamPayload, parseErrorBody, type ErrorContext } from './http-errors';
import { isObject, tryParse } from './json';
import { damagedError, unreadable } from './stream-errors';
import { openStream, readText, ReplyDecoder, replyModel, type ModelSpec, type OpenStreamOptions, type ReadOptions, type StreamFormat } from './stream';
import type { LanguageModel, ProviderSettings, StreamPart } from './types';

/**
 * Sends the request and returns the event-stream body. Throws ProviderError for everything
 * that goes wrong before the stream starts: network, timeout, abort, HTTP status >= 400, and
 * a 200 whose body is JSON or HTML (an error object in it is raised as that error).
 */
export function openEventStream(opts: OpenStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const { ctx } = opts;
  return openStream(opts, async (res, type, deadline) => {
    if (type.includes('event-stream') || !(type.includes('json') || type.includes('html'))) return;
    const text = await deadline(res.text()).catch((e: unknown) => {
      throw errorFromFetchFailure(e, ctx);
    });
    const info = parseErrorBody(text);
    if (info.isError) throw errorFromHttp(info.status !== undefined && info.status >= 400 ? info.status : res.status, text, res.headers, ctx);
    const what = type.includes('json')
      ? `JSON: ${excerpt(text)}. Does this server support streaming (stream: true)?`
      : 'an HTML page. Check the base URL in the TiddlyAgent settings.';
    throw new ProviderError({ kind: 'invalid-response', message: `Expected a stream of server-sent events from ${ctx.baseUrl} but got ${what}` });
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

export type SseReadOptions = ReadOptions;

/**
 * Yields the events of an SSE body as they arrive. Throws ProviderError `timeout` or
 * `aborted`; ends normally at EOF (whether the stream was complete is the adapter's call).
 * The reader is cancelled whenever iteration stops early, so the connection is released.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, options: SseReadOptions = {}): AsyncGenerator<SseItem, void, undefined> {
  const queue: SseItem[] = [];
  const residue: string[] = [];
  const parser = createParser({
    onEvent: (e) => queue.push(e.event ? { kind: 'event', event: e.event, data: e.data } : { kind: 'event', data: e.data }),
    // Unknown fields are where non-SSE text ends up (`{`, `  "error": {`, ...).
    onError: (err) => {
      if (err.type === 'unknown-field' && err.line !== undefined) residue.push(err.line);
    },
  });
  for await (const { text, end } of readText(body, options)) {
    if (!end) {
      parser.feed(text);
      while (queue.length > 0) yield queue.shift()!;
      continue;
    }
    // End the last line and event: servers that close right after `data: [DONE]\n` (one
    // newline) would otherwise lose their final event.
    parser.feed(`${text}\n\n`);
    while (queue.length > 0) yield { ...queue.shift()!, cut: true } as SseItem;
    const rest = residue.join('\n').trim();
    if (rest !== '') yield { kind: 'residue', text: rest };
  }
}

/** What an adapter's decoder does with the events of one SSE response. */
export abstract class SseDecoder extends ReplyDecoder {
  abstract event(name: string | undefined, data: string): StreamPart[];
}

/**
 * The decoder of an API whose every event is a JSON object naming its own `type` (Anthropic
 * Messages, OpenAI Responses): an `error` event ends the reply with its error, an event that
 * cannot be read damages it, other text (keep-alives) is passed over.
 */
export abstract class TypedEventDecoder extends SseDecoder {
  event(name: string | undefined, data: string): StreamPart[] {
    this.received++;
    const payload = tryParse(data);
    // The `type` in the JSON is authoritative; the `event:` name is the fallback.
    const type = isObject(payload) && typeof payload.type === 'string' ? payload.type : name;
    if (type === 'error' || name === 'error') return this.error(this.streamError(payload ?? data));
    if (payload === undefined && unreadable(data)) return this.error(damagedError(data, this.ctx));
    if (!isObject(payload)) return [];
    return this.typed(type, payload);
  }

  /** The parts of one event's JSON object. */
  protected abstract typed(type: string | undefined, payload: Record<string, unknown>): StreamPart[];

  /** The error an `error` event carries (its JSON, else its text). */
  protected streamError(payload: unknown): ProviderError {
    return errorFromStreamPayload(payload, this.ctx);
  }
}

const SSE: StreamFormat<SseItem, SseDecoder> = {
  open: openEventStream,
  read: readSse,
  feed: (decoder, item) => {
    // The body ended inside an event that cannot be read: the stream was cut there (eof says so), not damaged.
    if (item.kind === 'event' && item.cut && unreadable(item.data)) return [];
    return item.kind === 'event' ? decoder.event(item.event, item.data) : decoder.residue(item.text);
  },
};

/** The LanguageModel of an SSE adapter (stream.ts's replyModel). */
export function sseModel(settings: ProviderSettings, spec: ModelSpec, makeDecoder: (ctx: ErrorContext) => SseDecoder): LanguageModel {
  return replyModel(settings, spec, SSE, makeDecoder);
}
