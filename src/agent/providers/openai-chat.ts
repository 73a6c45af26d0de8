/*\
OpenAI Chat Completions (`POST {baseUrl}/chat/completions`, stream: true), which is also what
most OpenAI-compatible servers speak (DeepSeek, OpenRouter, Groq, vLLM, llama.cpp, Ollama /v1).
The decoder is lenient where real servers differ (reasoning keys, where usage rides, how tool
calls are split, `[DONE]` or not) and strict about completion: a stream that stops without a
finish reason or `[DONE]` is reported as truncated, and a chunk that is not valid JSON as
damaged, never as a normal reply.
\*/
import { isObject, nonEmpty, tryParse } from './json';
import { damagedError, unreadable } from './stream-errors';
import { errorFromStreamPayload } from './http-errors';
import { SseDecoder, sseModel } from './sse';
import { bearerHeaders, type ModelSpec, type Usage } from './stream';
import type { FinishReason, ImagePart, LanguageModel, ModelMessage, ModelRequest, ProviderSettings, StreamPart, ToolSpec } from './types';

const CHAT: ModelSpec = { api: 'openai-chat', path: '/chat/completions', headers: bearerHeaders, body: buildRequestBody };

export function createOpenAIChatModel(settings: ProviderSettings): LanguageModel {
  return sseModel(settings, CHAT, (ctx) => new ChatStreamDecoder(ctx));
}

export function buildRequestBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: toWireMessages(request.messages),
    stream: true,
    // Without this OpenAI sends no usage at all in streaming mode.
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  return body;
}

/**
 * A tool message carries text only, and the tool messages answering one reply must follow it
 * without a break; so the images of tool results go in one user message right after the last
 * of them, each labelled with the call it came from.
 */
function toWireMessages(messages: ModelMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let toolImages: Record<string, unknown>[] = [];
  const flush = () => {
    if (toolImages.length) out.push({ role: 'user', content: toolImages });
    toolImages = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flush();
    out.push(toWireMessage(m));
    if (m.role === 'tool' && m.images?.length) {
      toolImages.push(
        { type: 'text', text: `The image${m.images.length > 1 ? 's' : ''} below came with the result of the tool call ${m.toolName} (${m.toolCallId}).` },
        ...m.images.map(imagePart),
      );
    }
  }
  flush();
  return out;
}

/** `data:<type>;base64,<data>`, the form of the OpenAI APIs. */
export function dataUrl(image: ImagePart): string {
  return `data:${image.mediaType};base64,${image.data}`;
}

function imagePart(image: ImagePart): Record<string, unknown> {
  return { type: 'image_url', image_url: { url: dataUrl(image) } };
}

function toWireMessage(m: ModelMessage): Record<string, unknown> {
  switch (m.role) {
    case 'system':
      return { role: m.role, content: m.content };
    case 'user':
      if (!m.images?.length) return { role: m.role, content: m.content };
      return { role: m.role, content: [...(m.content ? [{ type: 'text', text: m.content }] : []), ...m.images.map(imagePart)] };
    case 'assistant': {
      if (!m.toolCalls || m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        // Some compatible servers reject an empty string next to tool_calls; null is the documented form.
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}

function toWireTool(t: ToolSpec): Record<string, unknown> {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

/** Chunk-by-chunk state of one reply; every method returns the parts to emit next. */
class ChatStreamDecoder extends SseDecoder {
  private finishRaw?: string;
  private readonly tools = new ToolCallAccumulator();

  event(name: string | undefined, data: string): StreamPart[] {
    this.received++;
    // Groq: `event: error` with a JSON error body, and no [DONE] after it.
    if (name === 'error') return this.error(errorFromStreamPayload(tryParse(data) ?? data, this.ctx));
    if (data.trim() === '[DONE]') return this.finish();
    const chunk = tryParse(data);
    // A chunk cut or run together loses words: the reply is damaged, never silently complete.
    if (chunk === undefined && unreadable(data)) return this.error(damagedError(data, this.ctx));
    // Other text: gateways re-wrapping keep-alives (`data: : OPENROUTER…`); ignore.
    if (!isObject(chunk)) return [];
    const usage = readChatUsage(chunk.usage) ?? (isObject(chunk.x_groq) ? readChatUsage(chunk.x_groq.usage) : undefined);
    if (usage) this.usage = usage;
    // OpenAI `data: {"error":…}`, and OpenRouter's error next to choices (cc04).
    if (chunk.error !== undefined && chunk.error !== null) return this.error(errorFromStreamPayload(chunk, this.ctx));
    const out: StreamPart[] = [];
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    // We never ask for n > 1; only the first choice is ours.
    const choice = choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0));
    if (!isObject(choice)) return out;
    const delta = isObject(choice.delta) ? choice.delta : {};
    // DeepSeek/vLLM/Qwen say reasoning_content, OpenRouter/Groq/Ollama say reasoning; never both counted.
    const reasoning = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning);
    if (reasoning) out.push({ type: 'reasoning-delta', text: reasoning });
    const text = nonEmpty(delta.content);
    if (text) out.push({ type: 'text-delta', text });
    // A refusal is the model's answer to the user, so it is shown like text.
    const refusal = nonEmpty(delta.refusal);
    if (refusal) out.push({ type: 'text-delta', text: refusal });
    if (Array.isArray(delta.tool_calls)) for (const fragment of delta.tool_calls) this.tools.add(fragment, out);
    // Calls are completed only at the terminal point, so an error that follows a finish_reason
    // (cc04) never leaves complete-looking tool calls behind it.
    const finish = nonEmpty(choice.finish_reason);
    if (finish) this.finishRaw = finish;
    return out;
  }

  /** End of body: complete if a finish reason was seen (some servers omit [DONE]), else truncated. */
  protected override endOfBody(): StreamPart[] | undefined {
    return this.finishRaw ? this.finish() : undefined;
  }

  private finish(): StreamPart[] {
    const calls: StreamPart[] = [];
    this.tools.finalize(calls, this.finishRaw);
    // Gemini's compat layer and others say `stop` even when they called tools (finishReply).
    return this.finishReply(this.finishRaw, FINISH_REASONS, calls);
  }
}

interface PendingCall {
  slot: number;
  id: string;
  name: string;
  argsText: string;
  argsObject?: unknown;
  started: boolean;
  done: boolean;
}

/**
 * Tool calls arrive in fragments. Fragments are matched by `index`, else by `id`, else to the
 * only open call; `id` and `name` are taken from the first non-empty value and never
 * concatenated (servers repeat them or send ""), `arguments` pieces are appended.
 */
class ToolCallAccumulator {
  private readonly calls: PendingCall[] = [];
  private readonly byIndex = new Map<number, PendingCall>();

  add(fragment: unknown, out: StreamPart[]): void {
    if (!isObject(fragment)) return;
    const fn = isObject(fragment.function) ? fragment.function : {};
    const id = nonEmpty(fragment.id);
    const call = this.match(fragment.index, id);
    if (call.done) return;
    if (id && !call.id && !call.started) call.id = id;
    const name = nonEmpty(fn.name);
    if (name && !call.name) call.name = name;
    const args = fn.arguments;
    if (typeof args === 'string') call.argsText += args;
    else if (isObject(args) || Array.isArray(args)) call.argsObject = args;
    if (!call.started && call.name) {
      call.started = true;
      if (!call.id) call.id = `call_${call.slot}`;
      out.push({ type: 'tool-call-start', index: call.slot, id: call.id, name: call.name });
      if (call.argsText !== '') out.push({ type: 'tool-call-delta', index: call.slot, argsText: call.argsText });
    } else if (call.started && typeof args === 'string' && args !== '') {
      out.push({ type: 'tool-call-delta', index: call.slot, argsText: args });
    }
  }

  /** Emits every open call as complete (or invalid), in the order they started. */
  finalize(out: StreamPart[], finishRaw?: string): void {
    for (const call of this.calls) {
      if (call.done) continue;
      call.done = true;
      const id = call.id || `call_${call.slot}`;
      if (!call.name) {
        out.push({ type: 'tool-call-invalid', index: call.slot, id, name: '', argsText: call.argsText, reason: 'the model sent a tool call without a name' });
        continue;
      }
      const parsed = parseArgs(call);
      if (parsed.ok) out.push({ type: 'tool-call', index: call.slot, id, name: call.name, args: parsed.args });
      else {
        const cut = finishRaw === 'length' ? ' (the reply was cut off by the token limit)' : '';
        out.push({
          type: 'tool-call-invalid',
          index: call.slot,
          id,
          name: call.name,
          argsText: call.argsText,
          reason: `the arguments are not valid JSON${cut}: ${parsed.reason}`,
        });
      }
    }
  }

  private match(index: unknown, id: string | undefined): PendingCall {
    if (typeof index === 'number') {
      const known = this.byIndex.get(index);
      // Some servers put every parallel call at index 0; a new id means a new call.
      if (known && !(id && known.id && id !== known.id)) return known;
      const call = this.create();
      this.byIndex.set(index, call);
      return call;
    }
    if (id) return this.calls.find((c) => c.id === id) ?? this.create();
    const open = this.calls.filter((c) => !c.done);
    return open[open.length - 1] ?? this.create();
  }

  private create(): PendingCall {
    const call: PendingCall = { slot: this.calls.length, id: '', name: '', argsText: '', started: false, done: false };
    this.calls.push(call);
    return call;
  }
}

function parseArgs(call: PendingCall): { ok: true; args: unknown } | { ok: false; reason: string } {
  const text = call.argsText.trim();
  // No-argument tools arrive as "", null or nothing at all.
  if (text === '') return { ok: true, args: call.argsObject ?? {} };
  try {
    const args: unknown = JSON.parse(text);
    return { ok: true, args: args ?? {} };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

function readChatUsage(u: unknown): Usage | undefined {
  return readOpenAIUsage(u, 'prompt_tokens', 'completion_tokens');
}

/** The token counts of the OpenAI APIs: `<input>`, `<output>` and `<output>_details.reasoning_tokens`; undefined without the first two. */
export function readOpenAIUsage(u: unknown, input: string, output: string): Usage | undefined {
  if (!isObject(u)) return undefined;
  const usage: Usage = { type: 'usage' };
  const inputTokens = u[input];
  if (typeof inputTokens === 'number') usage.inputTokens = inputTokens;
  const outputTokens = u[output];
  if (typeof outputTokens === 'number') usage.outputTokens = outputTokens;
  const details = u[`${output}_details`];
  if (isObject(details) && typeof details.reasoning_tokens === 'number') usage.reasoningTokens = details.reasoning_tokens;
  return usage.inputTokens === undefined && usage.outputTokens === undefined ? undefined : usage;
}
