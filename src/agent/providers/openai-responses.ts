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
import { isObject, nonEmpty } from './json';
import { dataUrl, readOpenAIUsage } from './openai-chat';
import { sseModel, TypedEventDecoder } from './sse';
import { bearerHeaders, completeCall, textDelta, type ModelSpec, type StreamedCall, type Usage } from './stream';
import type { FinishReason, ImagePart, LanguageModel, ModelMessage, ModelRequest, ProviderSettings, StreamPart, ToolSpec } from './types';

const RESPONSES: ModelSpec = { api: 'openai-responses', path: '/responses', headers: bearerHeaders, body: buildResponsesRequestBody };

export function createOpenAIResponsesModel(settings: ProviderSettings): LanguageModel {
  return sseModel(settings, RESPONSES, (ctx) => new ResponsesStreamDecoder(ctx));
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

/** Event-by-event state of one reply; every method returns the parts to emit next. */
class ResponsesStreamDecoder extends TypedEventDecoder {
  private readonly calls: StreamedCall[] = [];
  /** Output item id and output_index → tool call. */
  private readonly byItemId = new Map<string, StreamedCall>();
  private readonly byOutputIndex = new Map<number, StreamedCall>();
  /** Which reasoning part the last reasoning delta belonged to, to separate summary parts. */
  private reasoningPart?: string;

  protected typed(type: string | undefined, payload: Record<string, unknown>): StreamPart[] {
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        // A refusal is the model's answer to the user, so it is shown like text.
        return textDelta('text-delta', payload.delta);
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
    const call: StreamedCall = {
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

  private findCall(payload: Record<string, unknown>): StreamedCall | undefined {
    const itemId = nonEmpty(payload.item_id) ?? (isObject(payload.item) ? nonEmpty(payload.item.id) : undefined);
    const byId = itemId ? this.byItemId.get(itemId) : undefined;
    if (byId) return byId;
    return typeof payload.output_index === 'number' ? this.byOutputIndex.get(payload.output_index) : undefined;
  }

  /**
   * The full argument string of `.done` events is authoritative; deltas that were missed
   * are sent as one more delta so the live view matches what is completed at the end.
   */
  private finalArguments(call: StreamedCall | undefined, args: unknown, closes: boolean): StreamPart[] {
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
      this.calls.map((call) => completeCall(call, raw === 'max_output_tokens')),
    );
  }

  private failed(payload: Record<string, unknown>): StreamPart[] {
    const response = isObject(payload.response) ? payload.response : {};
    const error = isObject(response.error) ? this.streamError({ error: response.error }) : this.streamError({ error: { message: 'the response failed' } });
    this.usage = readUsage(response.usage);
    return this.error(error);
  }

  /** The documented flat `{type:"error",code,message,param}` and the nested `{error:{…}}` of or04. */
  protected override streamError(payload: unknown): ProviderError {
    if (isObject(payload) && !isObject(payload.error) && (typeof payload.message === 'string' || typeof payload.code === 'string')) {
      const { message, code, param } = payload;
      return super.streamError({ error: { message, code, param } });
    }
    return super.streamError(payload);
  }
}

function readUsage(u: unknown): Usage | undefined {
  return readOpenAIUsage(u, 'input_tokens', 'output_tokens');
}
