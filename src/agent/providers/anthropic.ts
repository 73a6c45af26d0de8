/*\
Anthropic Messages (`POST {baseUrl}/messages`, stream: true), baseUrl like
https://api.anthropic.com/v1. Named SSE events (message_start, content_block_start/delta/stop,
message_delta, message_stop, ping, error) become StreamParts. As in the OpenAI adapter, tool
calls are reported complete only at the terminal point (message_stop), and a stream that ends
without message_stop is reported as truncated, an event that is not valid JSON as damaged,
never as a normal reply.
\*/
import { ProviderError } from './errors';
import { argsObject, isObject, nonEmpty, tryParse } from './json';
import { damagedError, unreadable } from './stream-errors';
import { errorFromStreamPayload } from './http-errors';
import { SseDecoder, streamSse } from './sse';
import type { FinishReason, ImagePart, LanguageModel, ModelMessage, ModelRequest, ProviderSettings, StreamPart, ToolSpec } from './types';

export const ANTHROPIC_VERSION = '2023-06-01';
/** The API requires max_tokens; used when the request does not set maxOutputTokens. */
export const DEFAULT_MAX_TOKENS = 4096;

export function createAnthropicModel(settings: ProviderSettings): LanguageModel {
  return {
    api: 'anthropic',
    stream: (request, signal) => streamMessages(settings, request, signal),
  };
}

async function* streamMessages(settings: ProviderSettings, request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamPart> {
  return yield* streamSse(
    settings,
    { model: request.model, signal, path: '/messages', headers: buildAnthropicHeaders(settings), body: buildAnthropicRequestBody(request) },
    (ctx) => new MessagesStreamDecoder(ctx),
  );
}

export function buildAnthropicHeaders(settings: ProviderSettings): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    // Without it the API refuses browser (CORS) requests with a 401.
    'anthropic-dangerous-direct-browser-access': 'true',
  };
  const key = settings.apiKey?.trim();
  if (key) headers['x-api-key'] = key;
  return { ...headers, ...settings.headers };
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

export function buildAnthropicRequestBody(request: ModelRequest): Record<string, unknown> {
  const system = request.messages.flatMap((m) => (m.role === 'system' && m.content.trim() !== '' ? [m.content] : [])).join('\n\n');
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
  };
  if (system !== '') body.system = system;
  body.messages = toWireMessages(request.messages);
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  body.stream = true;
  return body;
}

/**
 * Anthropic wants strictly alternating user/assistant turns: system messages go to `system`,
 * tool results become `tool_result` blocks of a user turn, and consecutive turns of the same
 * role are merged. Empty text blocks are rejected by the API, so they are left out.
 */
function toWireMessages(messages: ModelMessage[]): Record<string, unknown>[] {
  const out: WireMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const blocks: Block[] = [];
    let role: WireMessage['role'];
    if (m.role === 'user') {
      role = 'user';
      if (m.content !== '') blocks.push({ type: 'text', text: m.content });
      blocks.push(...(m.images ?? []).map(imageBlock));
    } else if (m.role === 'assistant') {
      role = 'assistant';
      if (m.content !== '') blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: argsObject(c.args) });
    } else {
      role = 'user';
      // A tool_result's content may hold image blocks next to its text.
      const content = m.images?.length ? [{ type: 'text', text: m.content }, ...m.images.map(imageBlock)] : m.content;
      blocks.push({ type: 'tool_result', tool_use_id: m.toolCallId, content });
    }
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out.map((m) => {
    // Tool results must open the user turn that answers the tool_use blocks.
    const content = m.role === 'user' ? [...m.content.filter(isToolResult), ...m.content.filter((b) => !isToolResult(b))] : m.content;
    const only = content.length === 1 ? content[0]! : undefined;
    return { role: m.role, content: only && only.type === 'text' ? only.text : content };
  });
}

function imageBlock(image: ImagePart): Block {
  return { type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } };
}

function isToolResult(b: Block): boolean {
  return b.type === 'tool_result';
}

function toWireTool(t: ToolSpec): Record<string, unknown> {
  return { name: t.name, description: t.description, input_schema: t.parameters };
}

const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
};

interface PendingCall {
  slot: number;
  id: string;
  name: string;
  argsText: string;
  /** `input` of content_block_start when it is not the usual empty `{}`. */
  inputObject?: Record<string, unknown>;
  done: boolean;
}

/** Event-by-event state of one reply; every method returns the parts to emit next. */
class MessagesStreamDecoder extends SseDecoder {
  private messageId?: string;
  private stopReason?: string;
  private inputTokens?: number;
  private outputTokens?: number;
  private readonly calls: PendingCall[] = [];
  /** Content block index → tool call; other block types are not tracked. */
  private readonly blocks = new Map<number, PendingCall>();

  event(name: string | undefined, data: string): StreamPart[] {
    this.received++;
    const payload = tryParse(data);
    // The `type` in the JSON is authoritative; the `event:` name is the fallback.
    const type = isObject(payload) && typeof payload.type === 'string' ? payload.type : name;
    if (type === 'error' || name === 'error') return this.error(errorFromStreamPayload(payload ?? data, this.ctx));
    if (payload === undefined && unreadable(data)) return this.error(damagedError(data, this.ctx));
    if (!isObject(payload)) return [];
    switch (type) {
      case 'message_start':
        return this.messageStart(payload);
      case 'content_block_start':
        return this.blockStart(payload);
      case 'content_block_delta':
        return this.blockDelta(payload);
      case 'content_block_stop': {
        const call = typeof payload.index === 'number' ? this.blocks.get(payload.index) : undefined;
        if (call) call.done = true;
        return [];
      }
      case 'message_delta': {
        const delta = isObject(payload.delta) ? payload.delta : {};
        if (typeof delta.stop_reason === 'string' && delta.stop_reason !== '') this.stopReason = delta.stop_reason;
        this.readUsage(payload.usage);
        return [];
      }
      case 'message_stop':
        return this.finish();
      default:
        // ping, and event types added after this was written.
        return [];
    }
  }

  // A body that ends without message_stop is truncated (eof), even if a stop_reason was seen.

  private messageStart(payload: Record<string, unknown>): StreamPart[] {
    const message = isObject(payload.message) ? payload.message : {};
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (this.messageId !== undefined) {
      // A repeated message_start of the same message is harmless (vercel/ai #18402); another id
      // means two generations were spliced into one stream, and merging them would corrupt both.
      if (id === undefined || id === this.messageId) return [];
      return this.error(
        new ProviderError({
          kind: 'invalid-response',
          message: `The stream from ${this.ctx.baseUrl} mixed two replies (message ${this.messageId}, then ${id}); the reply was discarded.`,
          retryable: true,
        }),
      );
    }
    this.messageId = id ?? '';
    this.readUsage(message.usage);
    return [];
  }

  private blockStart(payload: Record<string, unknown>): StreamPart[] {
    const block = isObject(payload.content_block) ? payload.content_block : {};
    const index = typeof payload.index === 'number' ? payload.index : undefined;
    switch (block.type) {
      case 'text': {
        const text = nonEmpty(block.text);
        return text ? [{ type: 'text-delta', text }] : [];
      }
      case 'thinking': {
        const text = nonEmpty(block.thinking);
        return text ? [{ type: 'reasoning-delta', text }] : [];
      }
      case 'tool_use': {
        const slot = this.calls.length;
        const call: PendingCall = { slot, id: nonEmpty(block.id) ?? `toolu_${slot}`, name: nonEmpty(block.name) ?? '', argsText: '', done: false };
        if (isObject(block.input) && Object.keys(block.input).length > 0) call.inputObject = block.input;
        this.calls.push(call);
        if (index !== undefined) this.blocks.set(index, call);
        return [{ type: 'tool-call-start', index: slot, id: call.id, name: call.name }];
      }
      default:
        // redacted_thinking, server_tool_use, web_search_tool_result, …: nothing to show.
        return [];
    }
  }

  private blockDelta(payload: Record<string, unknown>): StreamPart[] {
    const delta = isObject(payload.delta) ? payload.delta : {};
    switch (delta.type) {
      case 'text_delta': {
        const text = nonEmpty(delta.text);
        return text ? [{ type: 'text-delta', text }] : [];
      }
      case 'thinking_delta': {
        const text = nonEmpty(delta.thinking);
        return text ? [{ type: 'reasoning-delta', text }] : [];
      }
      case 'input_json_delta': {
        const call = typeof payload.index === 'number' ? this.blocks.get(payload.index) : undefined;
        const text = nonEmpty(delta.partial_json);
        if (!call || call.done || !text) return [];
        call.argsText += text;
        return [{ type: 'tool-call-delta', index: call.slot, argsText: text }];
      }
      default:
        // signature_delta, citations_delta, …
        return [];
    }
  }

  private readUsage(u: unknown): void {
    if (!isObject(u)) return;
    // input_tokens excludes cached prompt tokens; count them all, as OpenAI's prompt_tokens does.
    const input = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'].map((k) => u[k]).filter((v): v is number => typeof v === 'number');
    if (input.length > 0) this.inputTokens = input.reduce((a, b) => a + b, 0);
    // message_delta's output_tokens is cumulative, so the latest value wins.
    if (typeof u.output_tokens === 'number') this.outputTokens = u.output_tokens;
    if (this.inputTokens === undefined && this.outputTokens === undefined) return;
    this.usage = { type: 'usage' };
    if (this.inputTokens !== undefined) this.usage.inputTokens = this.inputTokens;
    if (this.outputTokens !== undefined) this.usage.outputTokens = this.outputTokens;
  }

  private finish(): StreamPart[] {
    const raw = this.stopReason;
    return this.finishReply(
      raw,
      FINISH_REASONS,
      this.calls.map((call) => completeCall(call, raw)),
    );
  }
}

function completeCall(call: PendingCall, stopReason: string | undefined): StreamPart {
  const { slot: index, id, name, argsText } = call;
  if (!name) return { type: 'tool-call-invalid', index, id, name, argsText, reason: 'the model sent a tool call without a name' };
  const text = argsText.trim();
  // A tool without arguments may send no input_json_delta at all, or only "".
  if (text === '') return { type: 'tool-call', index, id, name, args: call.inputObject ?? {} };
  try {
    const args: unknown = JSON.parse(text);
    return { type: 'tool-call', index, id, name, args: args ?? {} };
  } catch (e) {
    const cut = stopReason === 'max_tokens' ? ' (the reply was cut off by the token limit)' : !call.done ? ' (the tool call was never closed)' : '';
    return {
      type: 'tool-call-invalid',
      index,
      id,
      name,
      argsText,
      reason: `the arguments are not valid JSON${cut}: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}
