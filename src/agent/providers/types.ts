/*\
The provider contract: one interface for every wire API and one union of stream parts.
Adapters translate a provider's HTTP stream into StreamParts; nothing else in the product
knows a wire format. Providers get `fetch` injected and never touch TiddlyWiki globals, the DOM or Node.
\*/
import type { ProviderError } from './errors';

/** A tool call as the engine sees it once its arguments are complete. */
export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}

/**
 * An image for the model: one of image/png, image/jpeg, image/gif, image/webp and its bytes
 * in base64 (no `data:` prefix). The engine checks both before it builds a request.
 */
export interface ImagePart {
  mediaType: string;
  data: string;
}

/**
 * Provider-neutral chat history, assembled by the engine. A user message or a tool result may
 * carry images, which follow its text; each adapter sends them in its own wire format.
 */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; images?: ImagePart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; images?: ImagePart[] };

/** A tool offered to the model for native function calling; `parameters` is JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxOutputTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'other';

export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** A tool call's name is known; its arguments follow as deltas. */
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argsText: string }
  /** A complete tool call with parsed arguments (`{}` when the model sent none). */
  | { type: 'tool-call'; index: number; id: string; name: string; args: unknown }
  /** A tool call whose arguments are not valid JSON (e.g. cut off by the token limit). */
  | { type: 'tool-call-invalid'; index: number; id: string; name: string; argsText: string; reason: string }
  | { type: 'usage'; inputTokens?: number; outputTokens?: number; reasoningTokens?: number }
  | { type: 'finish'; reason: FinishReason; raw?: string }
  /** An error after the HTTP response started (in-stream error, truncation, stall). */
  | { type: 'error'; error: ProviderError };

/** The subset of WHATWG fetch that adapters use; injected so they run anywhere. */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

export interface ProviderSettings {
  /** e.g. https://api.openai.com/v1 (no trailing slash needed) */
  baseUrl: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Give up when no byte arrives for this long (also before the first byte). */
  idleTimeoutMs?: number;
  fetch: FetchFn;
}

export interface LanguageModel {
  /** Human name of the wire API, for error messages. */
  readonly api: string;
  /**
   * Streams one model reply. HTTP-level failures (status >= 400, network errors, a body that
   * is not a stream) are thrown as ProviderError before the first part; failures after the
   * stream started are yielded as an `error` part and end the stream. Aborting `signal`
   * ends the iteration promptly.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart>;
}
