/*\
Anthropic Messages (`POST {baseUrl}/messages`, stream: true), baseUrl like
https://api.anthropic.com/v1. Named SSE events (message_start, content_block_start/delta/stop,
message_delta, message_stop, ping, error) become StreamParts. As in the OpenAI adapter, tool
calls are reported complete only at the terminal point (message_stop), and a stream that ends
without message_stop is reported as truncated, an event that is not valid JSON as damaged,
never as a normal reply.
\*/
import { ProviderError } from './errors';
import { argsObject, isObject, nonEmpty } from './json';
import { sseModel, TypedEventDecoder } from './sse';
import { completeCall, jsonHeaders, textDelta, type ModelSpec, type StreamedCall } from './stream';
import type { FinishReason, ImagePart, LanguageModel, ModelMessage, ModelRequest, ProviderSettings, StreamPart, ToolSpec } from './types';

export const ANTHROPIC_VERSION = '2023-06-01';
/** The API requires max_tokens; used when the request does not set maxOutputTokens. */
export const DEFAULT_MAX_TOKENS = 4096;

const MESSAGES: ModelSpec = { api: 'anthropic', path: '/messages', headers: buildAnthropicHeaders, body: buildAnthropicRequestBody };

export function createAnthropicModel(settings: ProviderSettings): LanguageModel {
  return sseModel(settings, MESSAGES, (ctx) => new MessagesStreamDecoder(ctx));
}

export function buildAnthropicHeaders(settings: ProviderSettings): Record<string, string> {
  // Without anthropic-dangerous-direct-browser-access the API refuses browser (CORS) requests with a 401.
  return jsonHeaders(settings, 'x-api-key', '', { 'anthropic-version': ANTHROPIC_VERSION, 'anthropic-dangerous-direct-browser-access': 'true' });
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

/** Event-by-event state of one reply; every method returns the parts to emit next. */
class MessagesStreamDecoder extends TypedEventDecoder {
  private messageId?: string;
  private stopReason?: string;
  private inputTokens?: number;
  private outputTokens?: number;
  private readonly calls: StreamedCall[] = [];
  /** Content block index → tool call; other block types are not tracked. */
  private readonly blocks = new Map<number, StreamedCall>();

  protected typed(type: string | undefined, payload: Record<string, unknown>): StreamPart[] {
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
    const text = textOrThinking(block, 'text', 'thinking');
    if (text) return text;
    switch (block.type) {
      case 'tool_use': {
        const slot = this.calls.length;
        const call: StreamedCall = { slot, id: nonEmpty(block.id) ?? `toolu_${slot}`, name: nonEmpty(block.name) ?? '', argsText: '', done: false };
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
    const text = textOrThinking(delta, 'text_delta', 'thinking_delta');
    if (text) return text;
    switch (delta.type) {
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
      this.calls.map((call) => completeCall(call, raw === 'max_tokens')),
    );
  }
}

/** The text or thinking a block starts with (types `text`, `thinking`) or a delta adds (`text_delta`, `thinking_delta`); undefined for other types. */
function textOrThinking(part: Record<string, unknown>, text: string, thinking: string): StreamPart[] | undefined {
  if (part.type === text) return textDelta('text-delta', part.text);
  if (part.type === thinking) return textDelta('reasoning-delta', part.thinking);
  return undefined;
}
