/*\
What kind of failure an error message in the chat reports, stored on it as `error-kind` so the
UI can show a headline in the user's language (language key `Error/<kind>`) above the
technical detail, which stays as written (it quotes servers and names fields). The engine
only records the kind: it knows no language.
An error thrown where a turn is set up may carry a `hint` (a key such as `no-key`): what the
user can do about it, stored as `error-hint` so the UI can say it in the user's language
(`Error/Hint/<hint>`) where the English detail says it already.
\*/
import type { ProviderError } from '../providers/errors';

export type ErrorKind =
  | 'network' // the model's server could not be reached
  | 'timeout' // the server stopped answering
  | 'auth' // the key was refused (HTTP 401/403, or a bad-key code)
  | 'not-found' // wrong model name or base URL (HTTP 404)
  | 'rate-limit' // too many requests (HTTP 429)
  | 'quota' // quota or billing used up
  | 'server' // the provider failed (HTTP 5xx, an error inside the stream)
  | 'http' // any other error status
  | 'invalid-response' // an answer in an unexpected format
  | 'truncated' // the reply stopped before its end
  | 'damaged' // a part of the stream could not be read
  | 'empty-reply' // neither text nor a tool call
  | 'length' // cut off at the output token limit
  | 'context-overflow' // the prompt does not fit the context window
  | 'max-rounds' // agent-max-rounds reached
  | 'budget' // a token or money budget reached
  | 'attachment' // an attached image this model cannot take
  | 'config' // the agent or provider definition cannot be used
  | 'refused' // the server's owner does not let it call that address
  | 'compaction' // the older turns could not be summarized
  | 'interrupted' // the page or server stopped during the turn
  | 'unanswered' // a turn no user started waited for a question or confirmation nobody answered in time
  | 'unexpected';

const BAD_KEY = /key|auth/i;

/** The hint a thrown error carries (a lower-case key), if any. */
export function errorHint(e: unknown): string | undefined {
  const hint = (e as { hint?: unknown } | null)?.hint;
  return typeof hint === 'string' && /^[a-z][a-z-]*$/.test(hint) ? hint : undefined;
}

/** `error` with a hint for the user attached (see above). */
export function withHint<T extends Error>(error: T, hint: string): T & { hint: string } {
  return Object.assign(error, { hint });
}

/** The kind of a failed model call, from the provider's classification. */
export function providerErrorKind(e: ProviderError): ErrorKind {
  if (e.quota) return 'quota';
  switch (e.kind) {
    case 'network':
    case 'timeout':
    case 'truncated':
    case 'damaged':
    case 'invalid-response':
    case 'refused':
      return e.kind;
    case 'stream':
      return e.status === 429 ? 'rate-limit' : 'server';
    case 'http':
      if (e.status === 401 || e.status === 403 || (e.status === 400 && BAD_KEY.test(e.code ?? ''))) return 'auth';
      if (e.status === 404) return 'not-found';
      if (e.status === 429) return 'rate-limit';
      return e.status !== undefined && e.status >= 500 ? 'server' : 'http';
    default:
      return 'unexpected';
  }
}
