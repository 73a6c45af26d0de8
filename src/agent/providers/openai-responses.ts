/*\
OpenAI Responses (`POST {baseUrl}/responses`, stream: true, store: false). Typed SSE events
(`event: response.output_text.delta` …) become StreamParts. There is no `[DONE]`: the reply is
complete only after `response.completed`, `response.incomplete` or `response.failed` (or an
`error` event); a stream that stops before one of them is reported as truncated, and an event
that is not valid JSON as damaged. As in the other adapters, tool calls stream live (start +
argument deltas) but are reported complete only at the terminal point, so an error after them
never leaves a complete-looking call behind.
\*/
import type { ProviderError } from './errors';
import { isObject, nonEmpty, tryParse } from './json';
import { damagedError, unreadable } from './stream-errors';
import { errorFromStreamPayload } from './http-errors';
import { buildHeaders } from './openai-chat';
import { SseDecoder, streamSse } from './sse';
import type { Usage } from './stream';
import {
  dataUrl,
  type FinishReason,
  type ImagePart,
  type LanguageModel,
  type ModelMessage,
  type ModelRequest,
  type ProviderSettings,
  type StreamPart,
  type ToolSpec,
} from './types';

export function createOpenAIResponsesModel(settings: ProviderSettings): LanguageModel {
  return {
    api: 'openai-responses',
    stream: (request, signal) => streamResponses(settings, request, signal),
  };
}

async function* streamResponses(settings: ProviderSettings, request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamPart> {
  return yield* streamSse(
    settings,
    { model: request.model, signal, path: '/responses', headers: buildHeaders(settings), body: buildResponsesRequestBody(request) },
    (ctx) => new ResponsesStreamDecoder(ctx),
  );
}

export function buildResponsesRequestBody(request: ModelRequest): Record<string, unknown> {
  const instructions = request.messages.flatMap((m) => (m.role === 'system' && m.content.trim() !== '' ? [m.content] : [])).join('\n\n');
  const body: Record<string, unknown> = { model: request.model };
  if (instructions !== '') body.instructions = instructions;
  body.input = request.messages.flatMap(toInputItems);
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  body.stream = true;
  // The history is sent in full every turn; nothing needs to be kept on OpenAI's side.
  body.store = false;
  return body;
}

function toInputItems(m: ModelMessage): Record<string, unknown>[] {
  switch (m.role) {
    case 'system':
      return [];
    case 'user':
      return [{ role: 'user', content: [{ type: 'input_text', text: m.content }, ...(m.images ?? []).map(inputImage)] }];
    case 'assistant': {
      const items: Record<string, unknown>[] = [];
      if (m.content !== '') items.push({ role: 'assistant', content: [{ type: 'output_text', text: m.content }] });
      for (const c of m.toolCalls ?? []) {
        items.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) });
      }
      return items;
    }
    case 'tool':
      // A function call's output may be a list of input parts, images included.
      if (m.images?.length)
        return [{ type: 'function_call_output', call_id: m.toolCallId, output: [{ type: 'input_text', text: m.content }, ...m.images.map(inputImage)] }];
      return [{ type: 'function_call_output', call_id: m.toolCallId, output: m.content }];
  }
}

function inputImage(image: ImagePart): Record<string, unknown> {
  return { type: 'input_image', image_url: dataUrl(image) };
}

function toWireTool(t: ToolSpec): Record<string, unknown> {
  // `strict` defaults to true in this API, which rejects ordinary JSON Schemas (optional
  // properties, no additionalProperties: false); the tools here are not written for strict mode.
  return { type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false };
}

const INCOMPLETE_REASONS: Record<string, FinishReason> = {
  max_output_tokens: 'length',
  content_filter: 'content-filter',
};

interface PendingCall {
  slot: number;
  id: string;
  name: string;
  argsText: string;
  /** output_item.done was seen: the arguments are final. */
  done: boolean;
}

/** Event-by-event state of one reply; every method returns the parts to emit next. */
class ResponsesStreamDecoder extends SseDecoder {
  private readonly calls: PendingCall[] = [];
  /** Output item id and output_index → tool call. */
  private readonly byItemId = new Map<string, PendingCall>();
  private readonly byOutputIndex = new Map<number, PendingCall>();
  /** Which reasoning part the last reasoning delta belonged to, to separate summary parts. */
  private reasoningPart?: string;

  event(name: string | undefined, data: string): StreamPart[] {
    this.received++;
    const payload = tryParse(data);
    // The `type` in the JSON is authoritative; the `event:` name is the fallback.
    const type = isObject(payload) && typeof payload.type === 'string' ? payload.type : name;
    if (type === 'error' || name === 'error') return this.error(this.streamError(payload ?? data));
    if (payload === undefined && unreadable(data)) return this.error(damagedError(data, this.ctx));
    if (!isObject(payload)) return [];
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        // A refusal is the model's answer to the user, so it is shown like text.
        const text = nonEmpty(payload.delta);
        return text ? [{ type: 'text-delta', text }] : [];
      }
      case 'response.reasoning_summary_text.delta':
        return this.reasoning(payload, `summary:${String(payload.item_id)}:${String(payload.summary_index)}`);
      case 'response.reasoning_text.delta':
        return this.reasoning(payload, `text:${String(payload.item_id)}:${String(payload.content_index)}`);
      case 'response.output_item.added':
        return this.itemAdded(payload);
      case 'response.function_call_arguments.delta': {
        const call = this.findCall(payload);
        const text = nonEmpty(payload.delta);
        if (!call || call.done || !text) return [];
        call.argsText += text;
        return [{ type: 'tool-call-delta', index: call.slot, argsText: text }];
      }
      case 'response.function_call_arguments.done':
        return this.finalArguments(this.findCall(payload), payload.arguments, false);
      case 'response.output_item.done': {
        const item = isObject(payload.item) ? payload.item : {};
        if (item.type !== 'function_call') return [];
        return this.finalArguments(this.findCall(payload), item.arguments, true);
      }
      case 'response.completed':
        return this.finish(payload, 'completed');
      case 'response.incomplete':
        return this.finish(payload, 'incomplete');
      case 'response.failed':
        return this.failed(payload);
      default:
        // created, in_progress, content_part.*, *.done, annotations, built-in tool events, …
        return [];
    }
  }

  // A body that ends without response.completed/incomplete/failed is truncated (eof).

  private reasoning(payload: Record<string, unknown>, part: string): StreamPart[] {
    const text = nonEmpty(payload.delta);
    if (!text) return [];
    // Summary parts are separate paragraphs (each opens with a **title**); keep them apart.
    const sep = this.reasoningPart !== undefined && this.reasoningPart !== part ? '\n\n' : '';
    this.reasoningPart = part;
    return [{ type: 'reasoning-delta', text: sep + text }];
  }

  private itemAdded(payload: Record<string, unknown>): StreamPart[] {
    const item = isObject(payload.item) ? payload.item : {};
    if (item.type !== 'function_call') return [];
    const slot = this.calls.length;
    const call: PendingCall = {
      slot,
      id: nonEmpty(item.call_id) ?? nonEmpty(item.id) ?? `call_${slot}`,
      name: nonEmpty(item.name) ?? '',
      argsText: '',
      done: false,
    };
    this.calls.push(call);
    const itemId = nonEmpty(item.id);
    if (itemId) this.byItemId.set(itemId, call);
    if (typeof payload.output_index === 'number') this.byOutputIndex.set(payload.output_index, call);
    const out: StreamPart[] = [{ type: 'tool-call-start', index: slot, id: call.id, name: call.name }];
    const args = nonEmpty(item.arguments);
    if (args) {
      call.argsText = args;
      out.push({ type: 'tool-call-delta', index: slot, argsText: args });
    }
    return out;
  }

  private findCall(payload: Record<string, unknown>): PendingCall | undefined {
    const itemId = nonEmpty(payload.item_id) ?? (isObject(payload.item) ? nonEmpty(payload.item.id) : undefined);
    const byId = itemId ? this.byItemId.get(itemId) : undefined;
    if (byId) return byId;
    return typeof payload.output_index === 'number' ? this.byOutputIndex.get(payload.output_index) : undefined;
  }

  /**
   * The full argument string of `.done` events is authoritative; deltas that were missed
   * are sent as one more delta so the live view matches what is completed at the end.
   */
  private finalArguments(call: PendingCall | undefined, args: unknown, closes: boolean): StreamPart[] {
    if (!call || call.done) return [];
    const out: StreamPart[] = [];
    if (typeof args === 'string' && args !== call.argsText) {
      if (args.startsWith(call.argsText)) out.push({ type: 'tool-call-delta', index: call.slot, argsText: args.slice(call.argsText.length) });
      call.argsText = args;
    }
    if (closes) call.done = true;
    return out;
  }

  private finish(payload: Record<string, unknown>, status: 'completed' | 'incomplete'): StreamPart[] {
    const response = isObject(payload.response) ? payload.response : {};
    let raw: string | undefined;
    if (status === 'incomplete') {
      const details = isObject(response.incomplete_details) ? response.incomplete_details : {};
      raw = nonEmpty(details.reason) ?? 'incomplete';
    }
    this.usage = readUsage(response.usage);
    // Completed is `stop`, or `tool-calls` when there were calls (finishReply).
    return this.finishReply(
      raw,
      INCOMPLETE_REASONS,
      this.calls.map((call) => completeCall(call, raw)),
    );
  }

  private failed(payload: Record<string, unknown>): StreamPart[] {
    const response = isObject(payload.response) ? payload.response : {};
    const error = isObject(response.error) ? this.streamError({ error: response.error }) : this.streamError({ error: { message: 'the response failed' } });
    this.usage = readUsage(response.usage);
    return this.error(error);
  }

  /** The documented flat `{type:"error",code,message,param}` and the nested `{error:{…}}` of or04. */
  private streamError(payload: unknown): ProviderError {
    if (isObject(payload) && !isObject(payload.error) && (typeof payload.message === 'string' || typeof payload.code === 'string')) {
      const { message, code, param } = payload;
      return errorFromStreamPayload({ error: { message, code, param } }, this.ctx);
    }
    return errorFromStreamPayload(payload, this.ctx);
  }
}

function completeCall(call: PendingCall, incompleteReason: string | undefined): StreamPart {
  const { slot: index, id, name, argsText } = call;
  if (!name) return { type: 'tool-call-invalid', index, id, name, argsText, reason: 'the model sent a tool call without a name' };
  const text = argsText.trim();
  // A tool without arguments may send "" or nothing at all.
  if (text === '') return { type: 'tool-call', index, id, name, args: {} };
  try {
    const args: unknown = JSON.parse(text);
    return { type: 'tool-call', index, id, name, args: args ?? {} };
  } catch (e) {
    const cut =
      incompleteReason === 'max_output_tokens' ? ' (the reply was cut off by the token limit)' : !call.done ? ' (the tool call was never closed)' : '';
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

function readUsage(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const usage: Usage = { type: 'usage' };
  if (typeof u.input_tokens === 'number') usage.inputTokens = u.input_tokens;
  if (typeof u.output_tokens === 'number') usage.outputTokens = u.output_tokens;
  const details = u.output_tokens_details;
  if (isObject(details) && typeof details.reasoning_tokens === 'number') usage.reasoningTokens = details.reasoning_tokens;
  return usage.inputTokens === undefined && usage.outputTokens === undefined ? undefined : usage;
}
