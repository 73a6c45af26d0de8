/*\
Embedding adapters: texts in, one vector per text out, for the semantic index (search/).
One request per batch: OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, most servers,
Ollama's /v1), Ollama's native `POST {baseUrl}/api/embed`, and Gemini's
`POST {baseUrl}/models/{model}:batchEmbedContents`. Failures are ProviderErrors classified
as for chat requests (http-errors.ts: 429 and 5xx retryable, retry-after read); the caller
retries. A reply whose vectors are missing, of mixed sizes or not numbers is an error here,
so nothing malformed reaches the index. `fetch` is injected; the key is sent, never logged.
\*/
import { ProviderError } from './errors';
import { errorFromFetchFailure, errorFromResponse, type ErrorContext } from './http-errors';
import type { FetchFn } from './types';

export interface EmbeddingSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  fetch: FetchFn;
  /** Milliseconds a request may take; default 60 000. */
  timeoutMs?: number;
}

export interface EmbeddingModel {
  readonly model: string;
  /** One vector per text, in order, all of one size. Throws ProviderError. */
  embed(texts: string[], signal: AbortSignal): Promise<Float32Array[]>;
}

type Wire = { path: string; headers: Record<string, string>; body: unknown; vectors: (json: unknown) => unknown };

const WIRES: Record<string, (s: EmbeddingSettings, texts: string[]) => Wire> = {
  openai: (s, texts) => ({
    path: '/embeddings',
    headers: keyHeader('authorization', s.apiKey && `Bearer ${s.apiKey}`),
    body: { model: s.model, input: texts },
    // OpenAI returns `index` per item; order by it rather than trust the array order.
    vectors: (json) => {
      const data = (json as { data?: { index?: number; embedding?: unknown }[] })?.data;
      return Array.isArray(data) ? [...data].sort((a, b) => (a?.index ?? 0) - (b?.index ?? 0)).map((d) => d?.embedding) : undefined;
    },
  }),
  ollama: (s, texts) => ({
    path: '/api/embed',
    headers: keyHeader('authorization', s.apiKey && `Bearer ${s.apiKey}`),
    body: { model: s.model, input: texts },
    vectors: (json) => (json as { embeddings?: unknown })?.embeddings,
  }),
  gemini: (s, texts) => {
    const model = s.model.startsWith('models/') ? s.model : `models/${s.model}`;
    return {
      path: `/${model.split('/').map(encodeURIComponent).join('/')}:batchEmbedContents`,
      headers: keyHeader('x-goog-api-key', s.apiKey),
      body: { requests: texts.map((text) => ({ model, content: { parts: [{ text }] } })) },
      vectors: (json) => {
        const list = (json as { embeddings?: { values?: unknown }[] })?.embeddings;
        return Array.isArray(list) ? list.map((e) => e?.values) : undefined;
      },
    };
  },
};

function keyHeader(name: string, value: string | undefined): Record<string, string> {
  return value ? { [name]: value } : {};
}

/** Which embedding wire a provider profile's chat `api` implies. */
export function embeddingWire(api: string): 'openai' | 'ollama' | 'gemini' | undefined {
  if (api === 'openai-chat' || api === 'openai-responses') return 'openai';
  if (api === 'ollama' || api === 'gemini') return api;
  return undefined;
}

export function createEmbeddingModel(api: string, settings: EmbeddingSettings): EmbeddingModel {
  const wire = embeddingWire(api);
  if (!wire)
    throw new Error(
      `The API "${api}" has no embeddings endpoint TiddlyAgent knows; use an OpenAI-compatible, Ollama or Gemini profile for the embedding model.`,
    );
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const ctx: ErrorContext = { baseUrl, model: settings.model };
  return {
    model: settings.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const w = WIRES[wire]!(settings, texts);
      const timeout = AbortSignal.timeout(settings.timeoutMs ?? 60_000);
      let res: Response;
      try {
        res = await settings.fetch(`${baseUrl}${w.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...w.headers },
          body: JSON.stringify(w.body),
          signal: AbortSignal.any([signal, timeout]),
        });
      } catch (e) {
        throw errorFromFetchFailure(e, ctx);
      }
      if (!res.ok) throw await errorFromResponse(res, ctx);
      let json: unknown;
      try {
        json = await res.json();
      } catch (e) {
        throw signal.aborted || timeout.aborted ? errorFromFetchFailure(e, ctx) : malformed(ctx, 'the reply is not JSON');
      }
      return checkVectors(w.vectors(json), texts.length, ctx);
    },
  };
}

/** The reply's vectors as Float32Arrays, or a clear error: one per text, one size, finite numbers. */
export function checkVectors(raw: unknown, count: number, ctx: ErrorContext): Float32Array[] {
  if (!Array.isArray(raw)) throw malformed(ctx, 'the reply has no list of embeddings');
  if (raw.length !== count) throw malformed(ctx, `${raw.length} vectors came back for ${count} texts`);
  const vectors = raw.map((v, i) => {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw malformed(ctx, `vector ${i + 1} is not a list of numbers`);
    return Float32Array.from(v as number[]);
  });
  const size = vectors[0]!.length;
  const odd = vectors.findIndex((v) => v.length !== size);
  if (odd >= 0) throw malformed(ctx, `vector ${odd + 1} has ${vectors[odd]!.length} dimensions, the first has ${size}`);
  return vectors;
}

function malformed(ctx: ErrorContext, why: string): ProviderError {
  return new ProviderError({ kind: 'invalid-response', message: `The embeddings from ${ctx.baseUrl} (model "${ctx.model}") cannot be used: ${why}.` });
}
