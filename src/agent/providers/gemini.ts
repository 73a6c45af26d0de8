/*\
Google Gemini native API (`POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse`,
key in `x-goog-api-key`). Each SSE event is a partial GenerateContentResponse; there is no
`[DONE]`, so the reply is complete only if some event carried a `finishReason` and the body
then ended without an error (an event that is not valid JSON damages it). Function calls
arrive whole (name + args object) in one part; they are announced at once and completed at
the end, like the OpenAI adapter does, so an error after them never leaves complete-looking
calls behind.
Gemini 3 rejects a replayed functionCall without its `thoughtSignature`, which the engine's
ToolCall has no field for: signatures are remembered here by tool-call id (bounded, per
page) and echoed back; when one is missing for a Gemini 3 model the documented sentinel
`skip_thought_signature_validator` is sent instead.
\*/
import { ProviderError } from './errors';
import { argsObject, isObject, nonEmpty, tryParse } from './json';
import { damagedError, unreadable } from './stream-errors';
import { errorFromStreamPayload, type ErrorContext } from './http-errors';
import { SseDecoder, sseModel } from './sse';
import { jsonHeaders, type ModelSpec, type Usage } from './stream';
import type { FinishReason, ImagePart, LanguageModel, ModelMessage, ModelRequest, ProviderSettings, StreamPart, ToolSpec } from './types';

export interface GeminiOptions {
  /** Makes ids for function calls that come without one; unique ids keep signatures apart. */
  generateId?: () => string;
}

export function createGeminiModel(settings: ProviderSettings, options: GeminiOptions = {}): LanguageModel {
  const generateId = options.generateId ?? randomCallId;
  return sseModel(settings, STREAM_CONTENT, (ctx) => new GeminiStreamDecoder(ctx, generateId));
}

const STREAM_CONTENT: ModelSpec = {
  api: 'gemini',
  path: (request) => `/models/${encodeURIComponent(request.model.replace(/^models\//, ''))}:streamGenerateContent?alt=sse`,
  headers: buildGeminiHeaders,
  body: buildGeminiRequestBody,
};

export function buildGeminiHeaders(settings: ProviderSettings): Record<string, string> {
  return jsonHeaders(settings, 'x-goog-api-key');
}

// ---------------------------------------------------------------------------------------
// Request

/** What we remember about a function call we handed out, to replay it faithfully. */
interface CallMemo {
  signature?: string;
  /** The id Gemini itself gave the call (echoed in functionCall/functionResponse). */
  wireId?: string;
}
const MAX_MEMOS = 1000;
const memos = new Map<string, CallMemo>();

function remember(id: string, memo: CallMemo): void {
  if (memo.signature === undefined && memo.wireId === undefined) return;
  memos.delete(id);
  memos.set(id, memo);
  // Map keeps insertion order: the first key is the oldest.
  while (memos.size > MAX_MEMOS) memos.delete(memos.keys().next().value as string);
}

/** Google's documented placeholder for a Gemini 3 function call whose signature is lost. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

export function buildGeminiRequestBody(request: ModelRequest): Record<string, unknown> {
  const system = request.messages.flatMap((m) => (m.role === 'system' && m.content !== '' ? [m.content] : []));
  const body: Record<string, unknown> = {};
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  body.contents = toContents(request.messages, /^(models\/)?gemini-3/i.test(request.model));
  if (request.tools && request.tools.length > 0) body.tools = [{ functionDeclarations: request.tools.map(toFunctionDeclaration) }];
  const config: Record<string, unknown> = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

type Content = { role: 'user' | 'model'; parts: Record<string, unknown>[] };

function toContents(messages: ModelMessage[], needsSignature: boolean): Content[] {
  const contents: Content[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        contents.push({ role: 'user', parts: [{ text: m.content }, ...(m.images ?? []).map(inlineData)] });
        break;
      case 'assistant': {
        const parts: Record<string, unknown>[] = [];
        if (m.content !== '') parts.push({ text: m.content });
        (m.toolCalls ?? []).forEach((c, i) => {
          const memo = memos.get(c.id);
          const call: Record<string, unknown> = { name: c.name, args: argsObject(c.args) };
          if (memo?.wireId) call.id = memo.wireId;
          const part: Record<string, unknown> = { functionCall: call };
          // Of parallel calls only the first carries a signature.
          const signature = memo?.signature ?? (needsSignature && i === 0 ? SKIP_SIGNATURE : undefined);
          if (signature) part.thoughtSignature = signature;
          parts.push(part);
        });
        // Gemini rejects a content without parts.
        if (parts.length > 0) contents.push({ role: 'model', parts });
        break;
      }
      case 'tool': {
        const memo = memos.get(m.toolCallId);
        const response: Record<string, unknown> = { name: m.toolName, response: { content: m.content } };
        if (memo?.wireId) response.id = memo.wireId;
        const part = { functionResponse: response };
        // All answers to one turn's calls go back in one content: the function responses
        // first, then the images they returned, as inline data parts beside them.
        const images = (m.images ?? []).map(inlineData);
        const last = contents[contents.length - 1];
        if (last && last.role === 'user' && last.parts.every((p) => 'functionResponse' in p || 'inlineData' in p)) {
          last.parts.splice(last.parts.filter((p) => 'functionResponse' in p).length, 0, part);
          last.parts.push(...images);
        } else contents.push({ role: 'user', parts: [part, ...images] });
        break;
      }
    }
  }
  return contents;
}

function inlineData(image: ImagePart): Record<string, unknown> {
  return { inlineData: { mimeType: image.mediaType, data: image.data } };
}

function toFunctionDeclaration(t: ToolSpec): Record<string, unknown> {
  const decl: Record<string, unknown> = { name: t.name, description: t.description };
  const parameters = cleanSchema(t.parameters);
  // An OBJECT without properties is rejected; a tool without arguments simply has no parameters.
  const props = isObject(parameters) ? parameters.properties : undefined;
  if (isObject(parameters) && !(parameters.type === 'object' && (!isObject(props) || Object.keys(props).length === 0))) decl.parameters = parameters;
  return decl;
}

/** JSON Schema keywords Gemini's OpenAPI-subset Schema rejects. */
const DROPPED_KEYS = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'definitions',
  'additionalProperties',
  'unevaluatedProperties',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'examples',
  'const',
  'contentEncoding',
  'contentMediaType',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** Copies a JSON Schema without the keywords Gemini rejects; `properties` keys are names, never dropped. */
export function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYS.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, cleanSchema(sub)]));
    } else if (key === 'type' && Array.isArray(value)) {
      // ["string", "null"] is written type + nullable.
      const types = value.filter((t) => t !== 'null');
      if (types.length === 1) out.type = types[0];
      if (types.length !== value.length) out.nullable = true;
    } else if (typeof value === 'object' && value !== null) {
      out[key] = cleanSchema(value);
    } else {
      out[key] = value;
    }
  }
  // `const: "x"` is expressible as a one-value enum.
  if ('const' in schema && out.enum === undefined && typeof schema.const === 'string') out.enum = [schema.const];
  return out;
}

// ---------------------------------------------------------------------------------------
// Stream

const FINISH_REASONS: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
};

interface SeenCall {
  slot: number;
  id: string;
  name: string;
  args: unknown;
}

class GeminiStreamDecoder extends SseDecoder {
  private finishRaw?: string;
  private readonly calls: SeenCall[] = [];

  constructor(
    ctx: ErrorContext,
    private readonly generateId: () => string,
  ) {
    super(ctx);
  }

  event(_name: string | undefined, data: string): StreamPart[] {
    this.received++;
    const chunk = tryParse(data);
    if (chunk === undefined && unreadable(data)) return this.error(damagedError(data, this.ctx));
    if (!isObject(chunk)) return [];
    // usageMetadata is cumulative and repeated on every chunk: the last one counts.
    const usage = readUsage(chunk.usageMetadata);
    if (usage) this.usage = usage;
    if (chunk.error !== undefined && chunk.error !== null) return this.error(errorFromStreamPayload(chunk, this.ctx));
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    const feedback = isObject(chunk.promptFeedback) ? chunk.promptFeedback : undefined;
    const blockReason = feedback ? nonEmpty(feedback.blockReason) : undefined;
    if (candidates.length === 0 && blockReason) return this.error(blockedError(blockReason, nonEmpty(feedback?.blockReasonMessage)));
    // We never ask for several candidates; only the first is ours.
    const candidate = candidates.find((c) => isObject(c) && (c.index === undefined || c.index === 0));
    const out: StreamPart[] = [];
    if (!isObject(candidate)) return out;
    const content = isObject(candidate.content) ? candidate.content : {};
    // A content may come with a role and no parts at all (ge08).
    for (const part of Array.isArray(content.parts) ? content.parts : []) {
      if (!isObject(part)) continue;
      if (isObject(part.functionCall)) this.addCall(part.functionCall, nonEmpty(part.thoughtSignature), out);
      const text = nonEmpty(part.text);
      if (text) out.push({ type: part.thought === true ? 'reasoning-delta' : 'text-delta', text });
      // inlineData, executableCode and codeExecutionResult have no StreamPart; skipped.
    }
    const finish = nonEmpty(candidate.finishReason);
    if (finish) this.finishRaw = finish;
    return out;
  }

  // Non-SSE text (Vertex writes a raw error object into the 200 stream, ge05) is residue.

  /** End of body: complete only if a finish reason was seen. */
  protected override endOfBody(): StreamPart[] | undefined {
    return this.finishRaw ? this.finish() : undefined;
  }

  private addCall(fc: Record<string, unknown>, signature: string | undefined, out: StreamPart[]): void {
    const name = nonEmpty(fc.name) ?? '';
    const wireId = nonEmpty(fc.id);
    const id = wireId ?? this.generateId();
    const args = isObject(fc.args) ? fc.args : {};
    const call: SeenCall = { slot: this.calls.length, id, name, args };
    this.calls.push(call);
    remember(id, { signature, wireId });
    if (!name) return;
    out.push({ type: 'tool-call-start', index: call.slot, id, name });
    out.push({ type: 'tool-call-delta', index: call.slot, argsText: JSON.stringify(args) });
  }

  private finish(): StreamPart[] {
    const calls = this.calls.map(
      (c): StreamPart =>
        c.name
          ? { type: 'tool-call', index: c.slot, id: c.id, name: c.name, args: c.args }
          : {
              type: 'tool-call-invalid',
              index: c.slot,
              id: c.id,
              name: '',
              argsText: JSON.stringify(c.args),
              reason: 'the model sent a function call without a name',
            },
    );
    // Gemini ends tool turns with STOP (ge04): finishReply makes that tool-calls.
    return this.finishReply(this.finishRaw, FINISH_REASONS, calls);
  }
}

function blockedError(reason: string, detail?: string): ProviderError {
  const why = detail ? ` ${detail.replace(/[.\s]*$/, '.')}` : '';
  return new ProviderError({
    kind: 'stream',
    code: reason,
    message: `Gemini blocked the prompt (block reason ${reason}) and sent no reply.${why} Rephrase the message or check the safety settings.`,
  });
}

function readUsage(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const prompt = num(u.promptTokenCount);
  const candidates = num(u.candidatesTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  if (prompt === undefined && candidates === undefined && thoughts === undefined) return undefined;
  const usage: Usage = { type: 'usage' };
  if (prompt !== undefined) usage.inputTokens = prompt;
  // Gemini counts thoughts apart from candidates; like OpenAI, output includes reasoning here.
  if (candidates !== undefined || thoughts !== undefined) usage.outputTokens = (candidates ?? 0) + (thoughts ?? 0);
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  return usage;
}

let idCounter = 0;
function randomCallId(): string {
  idCounter = (idCounter + 1) % 1_000_000;
  return `call_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}${idCounter.toString(36)}`;
}
