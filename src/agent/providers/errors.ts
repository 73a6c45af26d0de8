/*\
ProviderError: every way a model call can fail, classified once so the engine can decide
about retries and the chat can show a clear message.
\*/

export type ProviderErrorKind =
  | 'http' // the server answered with an error status
  | 'network' // connection refused, DNS, CORS, reset before a response
  | 'timeout' // no data for too long (before or during the stream)
  | 'stream' // the provider reported an error inside a 200 stream
  | 'truncated' // the stream ended without a terminal marker
  | 'damaged' // a frame inside the stream could not be read (not valid JSON): words are missing
  | 'invalid-response' // e.g. JSON where an event stream was expected
  | 'refused' // this process may not call that address (the server owner's rules); never retried
  | 'aborted'; // the user pressed Stop

export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  code?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  quota?: boolean;
}

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly code?: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly quota: boolean;

  constructor(init: ProviderErrorInit) {
    super(init.message);
    this.name = 'ProviderError';
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.quota = init.quota ?? false;
    this.retryable = (init.retryable ?? false) && !this.quota;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export function isProviderError(e: unknown): e is ProviderError {
  return e instanceof ProviderError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'ProviderError');
}
