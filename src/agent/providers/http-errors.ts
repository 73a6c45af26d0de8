/*\
Turns failed HTTP calls into ProviderErrors with a message a user can act on.
Understands the error bodies of OpenAI, Anthropic, Gemini and OpenRouter, the retry headers
(`x-should-retry`, `retry-after-ms`, `retry-after`) and Gemini's RetryInfo, and tells quota
or billing failures (never worth a retry) from rate limits (worth one).
\*/
import { ProviderError, isProviderError } from './errors';

/** Who was called, so messages can name the server and the model. */
export interface ErrorContext {
  baseUrl: string;
  model?: string;
}

/** What we could read out of an error body, whatever the provider. */
export interface ErrorBodyInfo {
  message?: string;
  /** Machine code: OpenAI `code`/`type`, Anthropic `error.type`, Gemini `status`. */
  code?: string;
  /** A numeric status found in the body (Gemini `code`, OpenRouter `code`, Groq `status_code`). */
  status?: number;
  /** Gemini RetryInfo.retryDelay in ms. */
  retryDelayMs?: number;
  quota: boolean;
  /** Gemini ErrorInfo reason API_KEY_INVALID and friends: an auth failure under a 400. */
  badKey: boolean;
  /** The body was JSON with an error object in it. */
  isError: boolean;
}

const QUOTA_CODES = new Set(['insufficient_quota', 'billing_error', 'enforced_spend_limit_reached', 'billing_hard_limit_reached', 'billing_not_active']);
const BAD_KEY_CODES = new Set(['invalid_api_key', 'authentication_error', 'API_KEY_INVALID', 'API_KEY_EXPIRED', 'UNAUTHENTICATED']);

/** Reads the body of a non-OK response and classifies it. Never throws. */
export async function errorFromResponse(res: Response, ctx: ErrorContext): Promise<ProviderError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // The body is only decoration; status and headers are enough to classify.
  }
  return errorFromHttp(res.status, text, res.headers, ctx);
}

/** Classifies an HTTP failure from its parts (also used for an error JSON sent with status 200). */
export function errorFromHttp(status: number, bodyText: string, headers: Headers, ctx: ErrorContext): ProviderError {
  const info = parseErrorBody(bodyText);
  const quota = info.quota || status === 402;
  const retryable = shouldRetryHeader(headers) ?? isRetryableStatus(status);
  const retryAfterMs = retryAfterFromHeaders(headers) ?? clampDelay(info.retryDelayMs);
  const detail = info.message ?? snippet(bodyText) ?? statusText(status);
  const source = status >= 400 ? `HTTP ${status} from ${ctx.baseUrl}` : `Error from ${ctx.baseUrl}`;
  const message = `${source}: ${sentence(detail)} ${hint(status, info, quota, ctx)}`.trim();
  return new ProviderError({ kind: 'http', message, status, code: info.code, retryable, retryAfterMs, quota });
}

/** An error object found inside a 200 stream (`data: {"error":…}`, `event: error`, cc04). */
export function errorFromStreamPayload(payload: unknown, ctx: ErrorContext): ProviderError {
  const info = typeof payload === 'string' ? parseErrorBody(payload) : readErrorObject(payload);
  const text = typeof payload === 'string' ? payload : '';
  const detail = info.message ?? snippet(text) ?? 'unknown error';
  const status = info.status;
  const overloaded = info.code === 'overloaded_error' || info.code === 'server_error' || info.code === 'api_error';
  return new ProviderError({
    kind: 'stream',
    message: `Error from ${ctx.baseUrl} during the reply: ${sentence(detail)}`,
    status,
    code: info.code,
    retryable: overloaded || (status !== undefined && isRetryableStatus(status)),
    quota: info.quota,
  });
}

/** Maps what `fetch` threw (no response at all) to a `network`, `timeout` or `aborted` error. */
export function errorFromFetchFailure(err: unknown, ctx: ErrorContext): ProviderError {
  if (isProviderError(err)) return err;
  const name = (err as { name?: string } | null)?.name;
  if (name === 'AbortError') return new ProviderError({ kind: 'aborted', message: 'The request was stopped.' });
  if (name === 'TimeoutError') {
    return new ProviderError({ kind: 'timeout', message: `${ctx.baseUrl} did not answer in time.`, retryable: true });
  }
  const code = causeCode(err);
  const reason = code ? (NETWORK_REASONS[code] ?? code) : causeMessage(err);
  return new ProviderError({
    kind: 'network',
    message: `Could not connect to ${ctx.baseUrl} (${reason}). Is the server running? In a browser this can also be CORS.`,
    code,
    retryable: true,
  });
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/** Node's fetch hides the socket error in `cause`, sometimes inside an AggregateError (IPv4 + IPv6). */
function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const o = e as { code?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof o.code === 'string' && o.code !== '') return o.code;
    e = o.cause ?? (Array.isArray(o.errors) ? o.errors[0] : undefined);
  }
  return undefined;
}

/** `fetch failed` says nothing; the innermost cause (`bad port`, `other side closed`) says more. */
function causeMessage(err: unknown): string {
  let message = String(err);
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const m = (e as { message?: unknown }).message;
    if (typeof m === 'string' && m !== '') message = m;
    e = (e as { cause?: unknown }).cause;
  }
  return message;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `x-should-retry: true|false` is the server's own verdict and wins over the status. */
function shouldRetryHeader(headers: Headers): boolean | undefined {
  const v = headers.get('x-should-retry')?.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

/**
 * `retry-after-ms` (float ms), then `retry-after` (seconds or HTTP date), as the server asked:
 * never shortened, so a wait longer than the retry policy allows (engine/retry.ts
 * `maxRetryAfterMs`) surfaces the error at once instead of retrying before the server is ready.
 */
export function retryAfterFromHeaders(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const v = clampDelay(Number(ms));
    if (v !== undefined) return v;
  }
  const ra = headers.get('retry-after')?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return clampDelay(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : clampDelay(date - now);
}

function clampDelay(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return undefined;
  return Math.round(ms);
}

/** Parses any known error body shape; text that is not JSON yields an empty result. */
export function parseErrorBody(text: string): ErrorBodyInfo {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { quota: false, badKey: false, isError: false };
  }
  return readErrorObject(json);
}

function readErrorObject(json: unknown): ErrorBodyInfo {
  const info: ErrorBodyInfo = { quota: false, badKey: false, isError: false };
  if (!isObject(json)) return info;
  // OpenAI, Anthropic, Gemini and OpenRouter nest it under `error`; Ollama sends a string.
  const err: Record<string, unknown> | undefined = isObject(json.error) ? json.error : typeof json.error === 'string' ? { message: json.error } : undefined;
  if (!err) return info;
  info.isError = true;
  if (typeof err.message === 'string' && err.message.trim() !== '') info.message = err.message.trim();
  const codes: string[] = [];
  for (const c of [err.code, err.type, err.status]) if (typeof c === 'string' && c !== '') codes.push(c);
  info.code = codes[0];
  const numeric = [err.code, err.status_code, json.status_code].find((c) => typeof c === 'number');
  if (typeof numeric === 'number') info.status = numeric;
  // OpenRouter relays the upstream provider's message in metadata.raw.
  const meta = isObject(err.metadata) ? err.metadata : undefined;
  if (meta && typeof meta.raw === 'string' && meta.raw.trim() !== '' && !info.message?.includes(meta.raw)) {
    const who = typeof meta.provider_name === 'string' ? `${meta.provider_name}: ` : '';
    info.message = `${info.message ?? 'upstream error'} (${who}${snippet(meta.raw, 300)})`;
  }
  // Anthropic's spend limit hides in error.details.error_code.
  if (isObject(err.details) && typeof err.details.error_code === 'string') codes.push(err.details.error_code);
  for (const d of Array.isArray(err.details) ? err.details : []) {
    if (!isObject(d)) continue;
    const type = typeof d['@type'] === 'string' ? d['@type'] : '';
    if (type.endsWith('RetryInfo') && typeof d.retryDelay === 'string') info.retryDelayMs = parseDuration(d.retryDelay);
    if (type.endsWith('ErrorInfo') && typeof d.reason === 'string') codes.push(d.reason);
    // A per-day Gemini quota will not recover within any sensible retry wait.
    if (type.endsWith('QuotaFailure') && Array.isArray(d.violations)) {
      if (d.violations.some((v) => isObject(v) && /PerDay/i.test(`${v.quotaId ?? ''} ${v.quotaMetric ?? ''}`))) info.quota = true;
    }
  }
  if (codes.some((c) => QUOTA_CODES.has(c))) info.quota = true;
  if (codes.some((c) => BAD_KEY_CODES.has(c))) info.badKey = true;
  return info;
}

/** Protobuf JSON durations: "34.4s", "1.5s", "0s". */
function parseDuration(s: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(s);
  return m ? Number(m[1]) * 1000 : undefined;
}

function hint(status: number, info: ErrorBodyInfo, quota: boolean, ctx: ErrorContext): string {
  const model = ctx.model ? `"${ctx.model}"` : 'the model';
  if (quota) return 'The quota or credit for this account is used up; check the plan and billing with the provider.';
  if (status === 401 || status === 403 || info.badKey) return 'Check the API key for this provider in the TiddlyAgent settings.';
  if (status === 404) {
    const aboutModel = info.code === 'model_not_found' || info.code === 'not_found_error' || /model/i.test(info.message ?? '');
    return aboutModel
      ? `The model ${model} is unknown to this provider; check the model name in the TiddlyAgent settings.`
      : 'Check the base URL in the TiddlyAgent settings (OpenAI-compatible servers usually end in /v1).';
  }
  if (status === 429) return 'The provider is rate-limiting requests; wait a moment and try again.';
  if (status === 529 || info.code === 'overloaded_error') return 'The provider is overloaded; try again later.';
  if (status >= 500) return 'The provider had a server error; try again later.';
  return '';
}

function statusText(status: number): string {
  return `request failed with status ${status}`;
}

/** A short, single-line excerpt of a non-JSON body (HTML error pages, proxies). */
function snippet(text: string, max = 200): string | undefined {
  const flat = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat === '') return undefined;
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function sentence(s: string): string {
  return /[.!?…]$/.test(s) ? s : `${s}.`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
