/*\
The settings' "Test the connection": one real request to a provider with the values the user
typed, then, only if the model is not in the list the provider gave, a tiny chat request (one
output token) to see whether it knows the model. Per wire API: where the model list is, how
the key goes in the headers and how the list reads. A failure is sorted into what the user
must change: the key, the base URL (unreachable, or nothing of this API there), the model
name, or a provider answering in a format this API does not use. Pure: the fetch is injected.
\*/
import { buildAnthropicHeaders } from './anthropic';
import { errorFromFetchFailure, errorFromHttp, parseErrorBody, type ErrorBodyInfo } from './http-errors';
import { buildGeminiHeaders } from './gemini';
import { isObject } from './json';
import { bearerHeaders } from './stream';
import type { FetchFn, ProviderSettings } from './types';

export interface ProbeInput {
  api: string;
  baseUrl: string;
  apiKey?: string;
  /** The model to check; empty: the list alone. */
  model?: string;
}

/** What the user must change: the key, the address, the model name; or the answer was not this API's. */
export type ProbeProblem = 'key' | 'unreachable' | 'address' | 'model' | 'format' | 'api' | 'refused' | 'other';

export interface ProbeResult {
  ok: boolean;
  problem?: ProbeProblem;
  /** The provider's own words (or the connection error), for the line under the plain sentence. */
  detail?: string;
  /** The models the provider offers, sorted; empty when it gave no list. */
  models: string[];
  /** How the model was checked: in the list, by a chat request that it answered, or not at all. */
  model?: 'listed' | 'answered' | 'unchecked';
}

interface ApiProbe {
  list: { path: string };
  headers(settings: ProviderSettings): Record<string, string>;
  /** The model ids in a list answer, or undefined when the body is not this API's list. */
  readList(body: unknown): string[] | undefined;
  chat(model: string): { path: string; body: Record<string, unknown> };
}

const openAiList = (body: unknown): string[] | undefined => (isObject(body) && Array.isArray(body.data) ? ids(body.data, 'id') : undefined);

const PROBES: Record<string, ApiProbe> = {
  'openai-chat': {
    list: { path: '/models' },
    headers: bearerHeaders,
    readList: openAiList,
    chat: (model) => ({ path: '/chat/completions', body: { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1 } }),
  },
  'openai-responses': {
    list: { path: '/models' },
    headers: bearerHeaders,
    readList: openAiList,
    // 16 is the least max_output_tokens the Responses API accepts.
    chat: (model) => ({ path: '/responses', body: { model, input: 'Hi', max_output_tokens: 16, store: false } }),
  },
  anthropic: {
    list: { path: '/models?limit=1000' },
    headers: buildAnthropicHeaders,
    readList: openAiList,
    chat: (model) => ({ path: '/messages', body: { model, max_tokens: 1, messages: [{ role: 'user', content: 'Hi' }] } }),
  },
  gemini: {
    list: { path: '/models?pageSize=1000' },
    headers: buildGeminiHeaders,
    // Gemini names models "models/gemini-2.5-flash"; profiles use the bare id.
    readList: (body) => (isObject(body) && Array.isArray(body.models) ? ids(body.models, 'name').map((n) => n.replace(/^models\//, '')) : undefined),
    chat: (model) => ({
      path: `/models/${encodeURIComponent(model)}:generateContent`,
      body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { maxOutputTokens: 1 } },
    }),
  },
  ollama: {
    list: { path: '/api/tags' },
    headers: bearerHeaders,
    readList: (body) => (isObject(body) && Array.isArray(body.models) ? ids(body.models, 'name') : undefined),
    chat: (model) => ({ path: '/api/chat', body: { model, messages: [{ role: 'user', content: 'Hi' }], stream: false, options: { num_predict: 1 } } }),
  },
};

export const PROBE_APIS = Object.keys(PROBES);

/** Tests the connection; never throws (an aborted signal reads as unreachable). */
export async function probeProvider(input: ProbeInput, fetch: FetchFn, signal?: AbortSignal): Promise<ProbeResult> {
  // The API comes from a profile or the page: a name like `constructor` is no probe either.
  const probe = Object.hasOwn(PROBES, input.api) ? PROBES[input.api] : undefined;
  if (!probe) return { ok: false, problem: 'api', detail: input.api, models: [] };
  const baseUrl = input.baseUrl.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) return { ok: false, problem: 'address', detail: baseUrl || '(empty)', models: [] };
  // The probe appends its paths: a query or fragment would send it elsewhere than a turn goes.
  if (/[?#]/.test(baseUrl)) return { ok: false, problem: 'address', detail: `${baseUrl}: a base URL has no "?" or "#" part`, models: [] };
  const settings: ProviderSettings = { baseUrl, apiKey: input.apiKey, fetch };
  const headers = probe.headers(settings);
  const model = input.model?.trim() ?? '';

  const list = await call(fetch, `${baseUrl}${probe.list.path}`, { method: 'GET', headers: withoutContentType(headers), signal }, { baseUrl });
  if (list.kind === 'failed' && list.problem !== 'address') return { ok: false, problem: list.problem, detail: list.detail, models: [] };
  let models: string[] = [];
  if (list.kind === 'json') {
    const read = probe.readList(list.body);
    if (!read) return { ok: false, problem: 'format', detail: shapeOf(list.body), models: [] };
    models = [...new Set(read)].sort();
    if (!model) return { ok: true, models, model: 'unchecked' };
    if (models.includes(model)) return { ok: true, models, model: 'listed' };
  } else if (list.kind === 'other') {
    return { ok: false, problem: 'format', detail: list.detail, models: [] };
  }
  // No list at this address (some compatible servers have none), or the model is not in it: ask the model itself.
  if (!model) return { ok: false, problem: 'address', detail: list.kind === 'failed' ? list.detail : undefined, models };
  const request = probe.chat(model);
  const chat = await call(fetch, `${baseUrl}${request.path}`, { method: 'POST', headers, body: JSON.stringify(request.body), signal }, { baseUrl, model });
  if (chat.kind === 'json') return { ok: true, models, model: 'answered' };
  if (chat.kind === 'other') return { ok: false, problem: 'format', detail: chat.detail, models };
  if (chat.problem === 'address' && list.kind !== 'failed') return { ok: false, problem: 'model', detail: chat.detail, models };
  return { ok: false, problem: chat.problem, detail: chat.detail, models };
}

type Answer = { kind: 'json'; body: unknown } | { kind: 'other'; detail: string } | { kind: 'failed'; problem: ProbeProblem; detail: string };

/** `ctx.model` set: a chat request, whose 404 may be about the model; a list's 404 is about the address. */
async function call(fetch: FetchFn, url: string, init: RequestInit, ctx: { baseUrl: string; model?: string }): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    const failure = errorFromFetchFailure(e, ctx);
    return { kind: 'failed', problem: failure.kind === 'refused' ? 'refused' : 'unreachable', detail: failure.message };
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    const info = parseErrorBody(text);
    const problem = problemOf(res.status, info);
    return {
      kind: 'failed',
      problem: problem === 'model' && !ctx.model ? 'address' : problem,
      detail: errorFromHttp(res.status, text, res.headers, ctx).message,
    };
  }
  try {
    return { kind: 'json', body: JSON.parse(text) };
  } catch {
    const type = res.headers.get('content-type') ?? 'no content type';
    return {
      kind: 'other',
      detail: `${type}: ${
        text
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
          .slice(0, 120) || '(empty)'
      }`,
    };
  }
}

const MODEL_CODES = new Set(['model_not_found', 'not_found_error', 'NOT_FOUND']);

function problemOf(status: number, info: ErrorBodyInfo): ProbeProblem {
  if (status === 401 || status === 403 || info.badKey) return 'key';
  if (status === 404) return (info.code && MODEL_CODES.has(info.code)) || /\bmodel/i.test(info.message ?? '') ? 'model' : 'address';
  if (status === 405) return 'address';
  return 'other';
}

/** A GET has no body; a content type on it makes some servers (and CORS) fuss. */
function withoutContentType(headers: Record<string, string>): Record<string, string> {
  const { 'content-type': _drop, ...rest } = headers;
  return rest;
}

function ids(items: unknown[], key: string): string[] {
  return items.flatMap((item) => (isObject(item) && typeof item[key] === 'string' && item[key] !== '' ? [item[key] as string] : []));
}

function shapeOf(body: unknown): string {
  const text = JSON.stringify(body) ?? String(body);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
