/*\
Ollama's native chat API (`POST {baseUrl}/api/chat`, base URL without /v1), which streams
newline-delimited JSON: `message.content` and `message.thinking` deltas, whole tool calls
with object arguments in `message.tool_calls`, and a final `done:true` object with
`done_reason` and the token counts. A line `{"error":"…"}` is an error inside the 200
stream; a body that ends without `done:true` is truncated; a line that is not valid JSON with
more of the stream after it damages the reply (its words are lost).
\*/
import { argsObject, isObject, nonEmpty, tryParse } from './json';
import { damagedError, residueError, unreadable } from './stream-errors';
import { errorFromStreamPayload, type ErrorContext } from './http-errors';
import { NdjsonDecoder, ndjsonModel } from './ndjson';
import { bearerHeaders, type ModelSpec, type Usage } from './stream';
import type { FinishReason, ImagePart, LanguageModel, ModelMessage, ModelRequest, ProviderSettings, StreamPart, ToolSpec } from './types';

// Plain Ollama needs no key; one behind a proxy (or ollama.com) takes a Bearer token.
const CHAT: ModelSpec = { api: 'ollama', path: '/api/chat', headers: bearerHeaders, body: buildOllamaRequestBody };

export function createOllamaModel(settings: ProviderSettings): LanguageModel {
  return ndjsonModel(settings, CHAT, (ctx) => new OllamaStreamDecoder(ctx));
}

export function buildOllamaRequestBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages.map(toWireMessage) };
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  body.stream = true;
  const options: Record<string, unknown> = {};
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) options.num_predict = request.maxOutputTokens;
  if (Object.keys(options).length > 0) body.options = options;
  return body;
}

function toWireMessage(m: ModelMessage): Record<string, unknown> {
  switch (m.role) {
    case 'system':
      return { role: m.role, content: m.content };
    case 'user':
      return { role: m.role, content: m.content, ...images(m.images) };
    case 'assistant':
      if (!m.toolCalls || m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      // Arguments go back as an object, the way Ollama sent them.
      return { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: argsObject(c.args) } })) };
    case 'tool':
      // tool_name lets newer Ollama versions match the result to its call.
      return { role: 'tool', content: m.content, tool_name: m.toolName, ...images(m.images) };
  }
}

/** Ollama takes any message's images as a list of base64 strings (the type is in the bytes). */
function images(list: ImagePart[] | undefined): { images?: string[] } {
  return list?.length ? { images: list.map((i) => i.data) } : {};
}

function toWireTool(t: ToolSpec): Record<string, unknown> {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}

const FINISH_REASONS: Record<string, FinishReason> = { stop: 'stop', length: 'length' };

interface SeenCall {
  slot: number;
  id: string;
  name: string;
  args: unknown;
  argsText?: string;
}

class OllamaStreamDecoder extends NdjsonDecoder {
  private readonly calls: SeenCall[] = [];

  constructor(ctx: ErrorContext) {
    super(ctx, 'newline-delimited JSON');
  }

  value(line: unknown): StreamPart[] {
    this.received++;
    if (!isObject(line)) return [];
    if (line.error !== undefined && line.error !== null) return this.error(errorFromStreamPayload(line, this.ctx));
    const out: StreamPart[] = [];
    const message = isObject(line.message) ? line.message : {};
    const thinking = nonEmpty(message.thinking);
    if (thinking) out.push({ type: 'reasoning-delta', text: thinking });
    const content = nonEmpty(message.content);
    if (content) out.push({ type: 'text-delta', text: content });
    if (Array.isArray(message.tool_calls)) for (const c of message.tool_calls) this.addCall(c, out);
    if (line.done === true) out.push(...this.finish(line));
    return out;
  }

  /** Lines inside the stream that were not JSON: an error object is raised, a cut or garbled line damages the reply. */
  invalid(text: string): StreamPart[] {
    const error = residueError(text, this.ctx, true, 'newline-delimited JSON') ?? (unreadable(text) ? damagedError(text, this.ctx) : undefined);
    return error ? this.error(error) : [];
  }

  // Lines after the last value that were not JSON are residue; a body without done:true is truncated (eof).

  private addCall(c: unknown, out: StreamPart[]): void {
    if (!isObject(c)) return;
    const fn = isObject(c.function) ? c.function : {};
    const slot = this.calls.length;
    const call: SeenCall = { slot, id: nonEmpty(c.id) ?? `call_${slot}`, name: nonEmpty(fn.name) ?? '', args: {} };
    const args = fn.arguments;
    if (isObject(args)) call.args = args;
    else if (typeof args === 'string' && args.trim() !== '') {
      // Not what Ollama sends, but a proxy might: treat a JSON string like OpenAI's.
      const parsed = tryParse(args);
      if (isObject(parsed)) call.args = parsed;
      else call.argsText = args;
    }
    this.calls.push(call);
    if (!call.name) return;
    out.push({ type: 'tool-call-start', index: slot, id: call.id, name: call.name });
    out.push({ type: 'tool-call-delta', index: slot, argsText: call.argsText ?? JSON.stringify(call.args) });
  }

  private finish(line: Record<string, unknown>): StreamPart[] {
    const calls = this.calls.map((c): StreamPart => {
      if (!c.name)
        return {
          type: 'tool-call-invalid',
          index: c.slot,
          id: c.id,
          name: '',
          argsText: c.argsText ?? JSON.stringify(c.args),
          reason: 'the model sent a tool call without a name',
        };
      if (c.argsText !== undefined)
        return { type: 'tool-call-invalid', index: c.slot, id: c.id, name: c.name, argsText: c.argsText, reason: 'the arguments are not a JSON object' };
      return { type: 'tool-call', index: c.slot, id: c.id, name: c.name, args: c.args };
    });
    // Usage rides on the last line only, so an error before it has none.
    this.usage = readUsage(line);
    // ol03 ends with done:true and no done_reason at all; done_reason stays "stop" when the
    // model called tools (finishReply makes that tool-calls).
    return this.finishReply(nonEmpty(line.done_reason), FINISH_REASONS, calls);
  }
}

function readUsage(line: Record<string, unknown>): Usage | undefined {
  const usage: Usage = { type: 'usage' };
  if (typeof line.prompt_eval_count === 'number') usage.inputTokens = line.prompt_eval_count;
  if (typeof line.eval_count === 'number') usage.outputTokens = line.eval_count;
  return usage.inputTokens === undefined && usage.outputTokens === undefined ? undefined : usage;
}
