/*\
The errors every stream decoder raises the same way: text in the body that is not part of
the stream, a body that ends before the reply is complete, a frame inside it that cannot be
read, and a read that fails.
\*/
import { isProviderError, ProviderError } from './errors';
import { errorFromStreamPayload, parseErrorBody, type ErrorContext } from './http-errors';
import { tryParse } from './json';

/**
 * Text in the body outside the stream format: an error object is raised; anything else only
 * matters when nothing of the stream came (the server does not stream at all).
 */
export function residueError(text: string, ctx: ErrorContext, sawStream: boolean, format = 'server-sent events'): ProviderError | undefined {
  if (parseErrorBody(text).isError) {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined; // errorFromStreamPayload then reports a generic stream error
    }
    return errorFromStreamPayload(payload, ctx);
  }
  if (sawStream) return undefined;
  return new ProviderError({ kind: 'invalid-response', message: `Expected ${format} from ${ctx.baseUrl} but got: ${text.slice(0, 200)}` });
}

export function truncatedError(ctx: ErrorContext): ProviderError {
  return new ProviderError({ kind: 'truncated', message: `The stream from ${ctx.baseUrl} ended before the reply was complete.`, retryable: true });
}

/**
 * A frame of the stream that should be JSON and is not (cut, or two frames run together):
 * what it carried is lost. Anything else that is not JSON (a gateway's keep-alive text) is no
 * part of the reply.
 */
export function unreadable(frame: string): boolean {
  return /^\s*[[{]/.test(frame) && tryParse(frame) === undefined;
}

/**
 * An unreadable frame inside the stream: the reply cannot be complete. Retried only before
 * any output (engine/retry.ts); after that the reply stops there, kept and marked.
 */
export function damagedError(frame: string, ctx: ErrorContext): ProviderError {
  const text = frame.trim();
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return new ProviderError({
    kind: 'damaged',
    message: `Part of the reply from ${ctx.baseUrl} could not be read: a piece of the stream is not valid JSON (${shown}). The words it carried are missing, so the reply stops there.`,
    retryable: true,
  });
}

/** An exception while reading (timeout, abort, connection reset) as the final error. */
export function readFailure(e: unknown, ctx: ErrorContext): ProviderError {
  if (isProviderError(e)) return e;
  const reason = e instanceof Error ? e.message : String(e);
  return new ProviderError({ kind: 'network', message: `The connection to ${ctx.baseUrl} broke during the reply (${reason}).`, retryable: true });
}
