/*\
The errors every stream decoder raises the same way: text in the body that is not part of
the stream, a body that ends before the reply is complete, and a read that fails.
\*/
import { isProviderError, ProviderError } from './errors';
import { errorFromStreamPayload, parseErrorBody, type ErrorContext } from './http-errors';

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

/** An exception while reading (timeout, abort, connection reset) as the final error. */
export function readFailure(e: unknown, ctx: ErrorContext): ProviderError {
  if (isProviderError(e)) return e;
  const reason = e instanceof Error ? e.message : String(e);
  return new ProviderError({ kind: 'network', message: `The connection to ${ctx.baseUrl} broke during the reply (${reason}).`, retryable: true });
}
