/*\
Parser fuzzing (issue 14 item 2), shared by the quick suite in test/integration and the long
one in test/soak: fast-check arbitraries for broken model streams and the properties every
adapter must keep on them.
A case is a body (random bytes, a token soup of the wire format, or a recorded stream with
mutations: truncated, frames dropped / duplicated / swapped / replaced by random JSON, a node
of a chunk's JSON replaced, bytes corrupted, invalid UTF-8 or a huge line injected), cut at
random byte offsets into the reads of a real Response, which ends by closing, by a connection
error, by stalling (idle timeout) or by the user's Stop; sometimes the HTTP status or content
type is wrong. The properties: nothing but a ProviderError before the first part escapes the
iterator, no hang, exactly one terminal part (`finish` or `error`) and nothing after it,
well-formed tool calls.
\*/
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAnthropicModel } from '../../src/agent/providers/anthropic';
import { isProviderError } from '../../src/agent/providers/errors';
import { createGeminiModel } from '../../src/agent/providers/gemini';
import { createOllamaModel } from '../../src/agent/providers/ollama';
import { createOpenAIChatModel } from '../../src/agent/providers/openai-chat';
import { createOpenAIResponsesModel } from '../../src/agent/providers/openai-responses';
import type { LanguageModel, ProviderSettings, StreamPart } from '../../src/agent/providers/types';
import { parseToolUses } from '../../src/agent/engine/text-tool-protocol';
import { FIXTURES, fixtureBody, normalize, typedEventsBody } from '../unit/providers/replay';

/** A run that takes longer than this is a hang (the streams are in memory: a case takes milliseconds). */
export const HANG_MS = 5000;

// ---------------------------------------------------------------------------------------------
// The adapters and their corpora

export interface FuzzAdapter {
  name: string;
  /** SSE frames end with a blank line; NDJSON values with one newline. */
  framing: 'sse' | 'ndjson';
  contentType: string;
  create(settings: ProviderSettings): LanguageModel;
  /** Recorded (and a few hand-written) bodies to mutate. */
  corpus: string[];
  /** Words of the wire format for the token soup. */
  vocabulary: string[];
}

const decode = (b: Uint8Array) => new TextDecoder().decode(b);
const files = (dir: string, re: RegExp) =>
  fs
    .readdirSync(path.join(FIXTURES, dir))
    .filter((f) => re.test(f))
    .sort()
    .map((f) => `${dir}/${f}`);

/** A Responses stream with a function call (the recordings have none), as the API documents it. */
const RESPONSES_TOOL_CALL = [
  ['response.created', { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } }],
  [
    'response.output_item.added',
    { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'wiki-read', arguments: '' } },
  ],
  ['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"title":' }],
  ['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '"Garden ☘"}' }],
  [
    'response.function_call_arguments.done',
    { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 0, arguments: '{"title":"Garden ☘"}' },
  ],
  [
    'response.output_item.done',
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'wiki-read', arguments: '{"title":"Garden ☘"}' },
    },
  ],
  ['response.completed', { type: 'response.completed', response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 10, output_tokens: 5 } } }],
]
  .map(([event, data]) => `event: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`)
  .join('');

/** An Ollama reply with a tool call and text in several languages. */
const OLLAMA_TOOL_CALL = [
  { model: 'qwen3', message: { role: 'assistant', content: 'Lass mich nachsehen… 🌱' }, done: false },
  {
    model: 'qwen3',
    message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'wiki-search', arguments: { query: 'Garten' } } }] },
    done: false,
  },
  { model: 'qwen3', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 12, eval_count: 7 },
]
  .map((v) => `${JSON.stringify(v)}\n`)
  .join('');

export const ADAPTERS: FuzzAdapter[] = [
  {
    name: 'openai-chat',
    framing: 'sse',
    contentType: 'text/event-stream',
    create: (s) => createOpenAIChatModel(s),
    corpus: [...files('openai-chat', /\.(sse|chunks\.jsonl)$/), ...files('openai-compat', /\.(sse|chunks\.jsonl)$/)].map((f) => decode(fixtureBody(f))),
    vocabulary: [
      'data: ',
      'data:',
      'event: error\n',
      ': keep-alive\n',
      '[DONE]',
      '{"choices":[{"index":0,"delta":',
      '{"content":"hi"}',
      '"tool_calls":[{"index":0,"id":"c1","function":{"name":"x","arguments":"{\\"a\\":1}"}}]',
      '"finish_reason":"stop"',
      '"finish_reason":"tool_calls"',
      '"usage":{"prompt_tokens":1}',
      '{"error":{"message":"boom"}}',
      '}]}',
      '}',
      '\n',
      '\n\n',
      '\r\n',
      '\r',
    ],
  },
  {
    name: 'openai-responses',
    framing: 'sse',
    contentType: 'text/event-stream',
    create: (s) => createOpenAIResponsesModel(s),
    corpus: [...files('openai-responses', /\.(sse|chunks\.jsonl)$/).map((f) => decode(typedEventsBody(f))), RESPONSES_TOOL_CALL],
    vocabulary: [
      'event: ',
      'data: ',
      'response.output_text.delta',
      'response.completed',
      'response.failed',
      'response.incomplete',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.output_item.done',
      'error',
      '{"type":"',
      '","delta":"x"}',
      '"item":{"type":"function_call","id":"fc_1","name":"f","arguments":"{"}',
      '"item_id":"fc_1"',
      '"output_index":0',
      '"response":{"usage":{"input_tokens":3}}',
      '}',
      '\n',
      '\n\n',
      '\r\n',
    ],
  },
  {
    name: 'anthropic',
    framing: 'sse',
    contentType: 'text/event-stream',
    create: (s) => createAnthropicModel(s),
    corpus: files('anthropic', /\.(sse|chunks\.jsonl)$/).map((f) => decode(typedEventsBody(f))),
    vocabulary: [
      'event: ',
      'data: ',
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
      'ping',
      'error',
      '{"type":"',
      '","index":0',
      '"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}',
      '"delta":{"type":"input_json_delta","partial_json":"{\\"a"}',
      '"delta":{"type":"text_delta","text":"hi"}',
      '"message":{"id":"m1","usage":{"input_tokens":2}}',
      '"delta":{"stop_reason":"tool_use"}',
      '}',
      '\n',
      '\n\n',
      '\r\n',
    ],
  },
  {
    name: 'gemini',
    framing: 'sse',
    contentType: 'text/event-stream',
    // Fixed ids: Math.random would make a failing case irreproducible.
    create: (s) => {
      let n = 0;
      return createGeminiModel(s, { generateId: () => `fuzz_${++n}` });
    },
    corpus: files('gemini', /\.sse$/).map((f) => decode(fixtureBody(f))),
    vocabulary: [
      'data: ',
      '{"candidates":[{"content":{"parts":[',
      '{"text":"hi"}',
      '{"text":"t","thought":true}',
      '{"functionCall":{"name":"f","args":{"a":1}},"thoughtSignature":"sig"}',
      ']},"finishReason":"STOP"}]',
      '"usageMetadata":{"promptTokenCount":1}',
      '"promptFeedback":{"blockReason":"SAFETY"}',
      '{"error":{"code":499,"status":"CANCELLED","message":"x"}}',
      '}',
      ',',
      '\n',
      '\n\n',
      '\r\n',
    ],
  },
  {
    name: 'ollama',
    framing: 'ndjson',
    contentType: 'application/x-ndjson',
    create: (s) => createOllamaModel(s),
    corpus: [...files('ollama', /\.ndjson$/).map((f) => decode(fixtureBody(f))), OLLAMA_TOOL_CALL],
    vocabulary: [
      '{"message":{"content":"hi"},"done":false}',
      '{"message":{"thinking":"hm"}}',
      '{"message":{"tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}}',
      '{"done":true,"done_reason":"stop","eval_count":3}',
      '{"error":"boom"}',
      '{',
      '}',
      '"',
      '\n',
      '\r\n',
      ' ',
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Bodies

export type Mutation =
  | { op: 'truncate'; at: number }
  | { op: 'drop' | 'duplicate'; frame: number; to: number }
  | { op: 'swap'; frame: number; to: number }
  | { op: 'json'; frame: number; value: unknown }
  | { op: 'deep'; frame: number; path: number[]; value: unknown }
  | { op: 'corrupt'; at: number; byte: number }
  | { op: 'invalid-utf8'; at: number; bytes: number[] }
  | { op: 'huge-line'; at: number; size: number; fill: string };

export type BodySpec = { kind: 'bytes'; bytes: Uint8Array } | { kind: 'soup'; tokens: number[] } | { kind: 'mutated'; seed: number; mutations: Mutation[] };

/** Byte runs that are never valid UTF-8: stray continuation bytes, overlong forms, surrogates, > U+10FFFF, a lead byte cut short. */
const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

const index = fc.nat({ max: 1_000_000 });

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: index }),
  fc.record({ op: fc.constantFrom('drop' as const, 'duplicate' as const, 'swap' as const), frame: index, to: index }),
  fc.record({ op: fc.constant('json' as const), frame: index, value: fc.jsonValue({ maxDepth: 3 }) }),
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('deep' as const),
      frame: index,
      path: fc.array(index, { minLength: 1, maxLength: 5 }),
      value: fc.jsonValue({ maxDepth: 2 }),
    }),
  },
  fc.record({ op: fc.constant('corrupt' as const), at: index, byte: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant('invalid-utf8' as const), at: index, bytes: fc.constantFrom(...INVALID_UTF8) }),
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('huge-line' as const),
      at: index,
      size: fc.constantFrom(5_000, 70_000, 300_000),
      fill: fc.constantFrom('a', '{', '"', 'é', ' ', '\\'),
    }),
  },
);

export function bodyArb(adapter: FuzzAdapter): fc.Arbitrary<BodySpec> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 600 }) }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('soup' as const), tokens: fc.array(fc.nat({ max: adapter.vocabulary.length - 1 }), { maxLength: 120 }) }),
    },
    { weight: 7, arbitrary: fc.record({ kind: fc.constant('mutated' as const), seed: index, mutations: fc.array(mutationArb, { maxLength: 4 }) }) },
  );
}

/** SSE frames end at a blank line (any line ending); NDJSON frames at a newline. Separators stay with their frame. */
function frames(text: string, framing: FuzzAdapter['framing']): string[] {
  const re = framing === 'sse' ? /(?:\r\n|\r|\n){2,}/g : /\n/g;
  const out: string[] = [];
  let start = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(text.slice(start, m.index + m[0].length));
    start = m.index + m[0].length;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** Replaces the node at `path` (each step picks a key or an element, modulo their count) in a copy of `value`. */
function replaceNode(value: unknown, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...value }) as Record<string, unknown>;
  const key = keys[path[0]! % keys.length]!;
  copy[key] = replaceNode(copy[key], path.slice(1), replacement);
  return copy;
}

function mutateFrame(frame: string, framing: FuzzAdapter['framing'], path: number[], value: unknown): string {
  const m = framing === 'sse' ? /^data: ?(.*)$/m.exec(frame) : /^(.*)$/m.exec(frame);
  if (!m) return frame;
  let parsed: unknown;
  try {
    parsed = JSON.parse(m[1]!);
  } catch {
    return frame;
  }
  const start = m.index + m[0].length - m[1]!.length;
  return frame.slice(0, start) + JSON.stringify(replaceNode(parsed, path, value)) + frame.slice(start + m[1]!.length);
}

function jsonFrame(value: unknown, framing: FuzzAdapter['framing']): string {
  return framing === 'sse' ? `data: ${JSON.stringify(value)}\n\n` : `${JSON.stringify(value)}\n`;
}

function splice(bytes: Uint8Array, at: number, insert: Uint8Array, remove = 0): Uint8Array {
  const out = new Uint8Array(bytes.length + insert.length - remove);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

export function buildBody(adapter: FuzzAdapter, spec: BodySpec): Uint8Array {
  if (spec.kind === 'bytes') return spec.bytes;
  if (spec.kind === 'soup') return new TextEncoder().encode(spec.tokens.map((t) => adapter.vocabulary[t]).join(''));
  const base = adapter.corpus[spec.seed % adapter.corpus.length]!;
  // Frame-level mutations first, on the text; byte-level ones after, on the encoded body.
  const list = frames(base, adapter.framing);
  for (const m of spec.mutations) {
    if (list.length === 0) break;
    const i = 'frame' in m ? m.frame % list.length : 0;
    const j = 'to' in m ? m.to % list.length : 0;
    if (m.op === 'drop') list.splice(i, 1);
    else if (m.op === 'duplicate') list.splice(j, 0, list[i]!);
    else if (m.op === 'swap') [list[i], list[j]] = [list[j]!, list[i]!];
    else if (m.op === 'json') list[i] = jsonFrame(m.value, adapter.framing);
    else if (m.op === 'deep') list[i] = mutateFrame(list[i]!, adapter.framing, m.path, m.value);
  }
  let bytes: Uint8Array = new TextEncoder().encode(list.join(''));
  for (const m of spec.mutations) {
    const at = 'at' in m ? m.at % (bytes.length + 1) : 0;
    if (m.op === 'truncate') bytes = bytes.subarray(0, at);
    else if (m.op === 'corrupt' && bytes.length > 0) bytes = splice(bytes, Math.min(at, bytes.length - 1), new Uint8Array([m.byte]), 1);
    else if (m.op === 'invalid-utf8') bytes = splice(bytes, at, new Uint8Array(m.bytes));
    else if (m.op === 'huge-line') bytes = splice(bytes, at, new TextEncoder().encode(m.fill.repeat(m.size)));
  }
  return bytes;
}

/** Cuts `bytes` at the given offsets (modulo its length): the reads the adapter gets. */
export function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const at = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const o of [...at, bytes.length]) {
    if (o > start) out.push(bytes.subarray(start, o));
    start = Math.max(start, o);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One run

export type Ending =
  | { kind: 'close' }
  /** The connection breaks after the last chunk; `thrown` is what the body's reader rejects with. */
  | { kind: 'reset'; thrown: 'error' | 'type-error' | 'string' | 'undefined' }
  /** No more bytes and no close: the idle timeout must end it. */
  | { kind: 'stall' }
  /** The user presses Stop after this many parts. */
  | { kind: 'stop'; afterParts: number };

export type Http = { status: number; contentType?: string };

export interface StreamCase {
  body: BodySpec;
  offsets: number[];
  ending: Ending;
  http: Http;
}

export function streamCaseArb(adapter: FuzzAdapter): fc.Arbitrary<StreamCase> {
  return fc.record({
    body: bodyArb(adapter),
    offsets: fc.oneof(fc.array(index, { maxLength: 80 }), fc.array(index, { minLength: 100, maxLength: 400 })),
    ending: fc.oneof(
      { weight: 16, arbitrary: fc.constant<Ending>({ kind: 'close' }) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('reset' as const),
          thrown: fc.constantFrom('error' as const, 'type-error' as const, 'string' as const, 'undefined' as const),
        }),
      },
      { weight: 1, arbitrary: fc.constant<Ending>({ kind: 'stall' }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('stop' as const), afterParts: fc.nat({ max: 30 }) }) },
    ),
    http: fc.oneof(
      { weight: 18, arbitrary: fc.constant<Http>({ status: 200, contentType: adapter.contentType }) },
      {
        weight: 1,
        arbitrary: fc.record({
          status: fc.constantFrom(200, 201, 204),
          contentType: fc.constantFrom(undefined, 'application/json', 'text/html', 'text/plain', 'text/event-stream', 'application/x-ndjson'),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          status: fc.constantFrom(400, 401, 404, 408, 429, 500, 502, 503, 529),
          contentType: fc.constantFrom(undefined, 'application/json', 'text/html', adapter.contentType),
        }),
      },
    ),
  });
}

function thrownValue(kind: Extract<Ending, { kind: 'reset' }>['thrown']): unknown {
  if (kind === 'error') return new Error('socket hang up');
  if (kind === 'type-error') return new TypeError('terminated');
  return kind === 'string' ? 'ECONNRESET' : undefined;
}

function body(chunks: Uint8Array[], ending: Ending): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else if (ending.kind === 'reset') controller.error(thrownValue(ending.thrown));
      else if (ending.kind !== 'stall') controller.close();
      // A stall enqueues nothing and never closes: only the idle timeout (or Stop) ends the read.
    },
  });
}

export interface RunResult {
  parts: StreamPart[];
  /** What escaped the iterator, if anything. */
  thrown?: unknown;
  /** Set when the run took longer than HANG_MS. */
  hung?: boolean;
  ms: number;
}

const STALL_TIMEOUT_MS = 15;
// A made-up key (not a secret): the checks look for it in every error message.
const API_KEY = 'fuzz-test-key-0123456789abcdef';

/** Streams one case through the adapter, with an injected fetch answering the given body. */
export async function runCase(adapter: FuzzAdapter, c: StreamCase): Promise<RunResult> {
  const bytes = buildBody(adapter, c.body);
  const chunks = cut(bytes, c.offsets);
  const stop = new AbortController();
  const headers: Record<string, string> = c.http.contentType ? { 'content-type': c.http.contentType } : {};
  const fetch = async () => new Response(c.http.status === 204 ? null : body(chunks, c.ending), { status: c.http.status, headers });
  const model = adapter.create({
    baseUrl: 'https://llm.example/v1',
    apiKey: API_KEY,
    fetch,
    idleTimeoutMs: c.ending.kind === 'stall' ? STALL_TIMEOUT_MS : 60_000,
  });
  const parts: StreamPart[] = [];
  const started = performance.now();
  let thrown: unknown;
  if (c.ending.kind === 'stop' && c.ending.afterParts === 0) stop.abort();
  const iterate = (async () => {
    try {
      for await (const part of model.stream({ model: 'fuzz-model', messages: [{ role: 'user', content: 'hi' }] }, stop.signal)) {
        parts.push(part);
        if (c.ending.kind === 'stop' && parts.length === c.ending.afterParts) stop.abort();
      }
    } catch (e) {
      thrown = e ?? new Error('undefined was thrown');
    }
    return false;
  })();
  // The timer only fires when the iteration waits forever; a synchronous loop is caught by `ms` below.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hangs = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), HANG_MS)));
  const hung = await Promise.race([iterate, hangs]);
  clearTimeout(timer);
  stop.abort();
  const ms = performance.now() - started;
  return { parts, thrown, hung: hung || ms > HANG_MS, ms };
}

// ---------------------------------------------------------------------------------------------
// The properties

const FINISH_REASONS = new Set(['stop', 'length', 'tool-calls', 'content-filter', 'other']);
const ERROR_KINDS = new Set(['http', 'network', 'timeout', 'stream', 'truncated', 'invalid-response', 'damaged', 'refused', 'aborted']);

/** Everything wrong with one run, as sentences; [] when the run kept every property. */
export function violations(r: RunResult): string[] {
  const bad: string[] = [];
  if (r.hung) return [`hung (${Math.round(r.ms)} ms, ${r.parts.length} parts so far)`];
  if (r.thrown !== undefined) {
    if (!isProviderError(r.thrown)) bad.push(`threw a non-ProviderError: ${String(r.thrown)}`);
    else if (r.parts.length > 0) bad.push(`threw after ${r.parts.length} parts: ${(r.thrown as Error).message}`);
    else if (!ERROR_KINDS.has((r.thrown as { kind: string }).kind) || !(r.thrown as Error).message) bad.push('threw a malformed ProviderError');
    return bad;
  }
  const terminal = r.parts.filter((p) => p.type === 'finish' || p.type === 'error');
  if (terminal.length !== 1) bad.push(`${terminal.length} terminal parts`);
  else if (r.parts[r.parts.length - 1] !== terminal[0]) bad.push('parts after the terminal part');
  if (r.parts.filter((p) => p.type === 'usage').length > 1) bad.push('more than one usage part');
  const secret = r.parts.find((p) => p.type === 'error' && p.error.message.includes(API_KEY));
  if (secret) bad.push('an error message holds the API key');
  const started = new Set<number>();
  const completed = new Set<number>();
  for (const p of r.parts) {
    switch (p.type) {
      case 'text-delta':
      case 'reasoning-delta':
        if (typeof p.text !== 'string' || p.text === '') bad.push(`${p.type} without text`);
        break;
      case 'tool-call-start':
        if (!Number.isInteger(p.index) || started.has(p.index)) bad.push(`tool-call-start ${p.index} repeated or not an integer`);
        if (typeof p.id !== 'string' || p.id === '' || typeof p.name !== 'string') bad.push('tool-call-start without an id or name');
        started.add(p.index);
        break;
      case 'tool-call-delta':
        if (!started.has(p.index) || completed.has(p.index)) bad.push(`tool-call-delta for call ${p.index}, which is not open`);
        if (typeof p.argsText !== 'string') bad.push('tool-call-delta without argsText');
        break;
      case 'tool-call':
      case 'tool-call-invalid':
        if (!Number.isInteger(p.index) || completed.has(p.index)) bad.push(`${p.type} ${p.index} repeated or not an integer`);
        completed.add(p.index);
        if (typeof p.id !== 'string' || p.id === '') bad.push(`${p.type} without an id`);
        if (p.type === 'tool-call') {
          if (typeof p.name !== 'string' || p.name === '') bad.push('tool-call without a name');
          if (p.args === undefined || p.args === null) bad.push('tool-call without parsed args');
          else if (JSON.stringify(JSON.parse(JSON.stringify(p.args))) !== JSON.stringify(p.args)) bad.push('tool-call args are not JSON data');
        } else if (typeof p.argsText !== 'string' || typeof p.reason !== 'string' || p.reason === '') bad.push('tool-call-invalid without argsText or reason');
        break;
      case 'usage':
        for (const k of ['inputTokens', 'outputTokens', 'reasoningTokens'] as const)
          if (p[k] !== undefined && typeof p[k] !== 'number') bad.push(`usage.${k} is not a number`);
        break;
      case 'finish':
        if (!FINISH_REASONS.has(p.reason)) bad.push(`unknown finish reason ${String(p.reason)}`);
        break;
      case 'error':
        if (!isProviderError(p.error) || !ERROR_KINDS.has(p.error.kind) || typeof p.error.message !== 'string' || p.error.message === '')
          bad.push('error part without a ProviderError');
        break;
      default:
        bad.push(`unknown part ${(p as { type: string }).type}`);
    }
  }
  // Calls complete only at the terminal point: all of them at a finish, none at an error.
  const ended = terminal.length === 1 ? terminal[0]! : undefined;
  if (ended?.type === 'finish') for (const i of started) if (!completed.has(i)) bad.push(`call ${i} started but never completed before the finish`);
  if (ended?.type === 'error' && r.parts.some((p) => p.type === 'tool-call')) bad.push('a complete tool call in a reply that failed');
  return bad;
}

export interface FuzzStats {
  cases: number;
  ms: number;
  finishes: number;
  errors: number;
  thrown: number;
  toolCalls: number;
  invalidCalls: number;
}

/** Runs `numRuns` cases against one adapter; throws fast-check's report (seed, path, shrunk case) on the first violation. */
export async function fuzzAdapter(adapter: FuzzAdapter, numRuns: number, seed: number): Promise<FuzzStats> {
  const stats: FuzzStats = { cases: 0, ms: 0, finishes: 0, errors: 0, thrown: 0, toolCalls: 0, invalidCalls: 0 };
  const started = performance.now();
  await assertWithCause(
    fc.asyncProperty(streamCaseArb(adapter), async (c) => {
      const r = await runCase(adapter, c);
      stats.cases++;
      const last = r.parts[r.parts.length - 1];
      if (r.thrown !== undefined) stats.thrown++;
      else if (last?.type === 'finish') stats.finishes++;
      else if (last?.type === 'error') stats.errors++;
      stats.toolCalls += r.parts.filter((p) => p.type === 'tool-call').length;
      stats.invalidCalls += r.parts.filter((p) => p.type === 'tool-call-invalid').length;
      const bad = violations(r);
      // Where the reads are cut must not matter: the same body in one read gives the same parts.
      if (bad.length === 0 && c.ending.kind === 'close' && c.offsets.length > 0) {
        const whole = await runCase(adapter, { ...c, offsets: [] });
        const a = JSON.stringify(normalize(r.parts));
        const b = JSON.stringify(normalize(whole.parts));
        if (a !== b || String(r.thrown) !== String(whole.thrown)) bad.push(`cut into reads it gives ${a.slice(0, 1500)} but in one read ${b.slice(0, 1500)}`);
      }
      if (bad.length > 0) throw new Error(`${adapter.name}: ${bad.join('; ')}`);
    }),
    { seed, numRuns },
  );
  stats.ms = performance.now() - started;
  return stats;
}

/** fc.assert, with the property's own message in the report (fast-check keeps it in `cause`). */
export async function assertWithCause<T>(property: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  try {
    await fc.assert(property, params);
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    throw new Error(`${(e as Error).message}\n\n${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export function formatStats(name: string, s: FuzzStats): string {
  return `${name.padEnd(18)} ${String(s.cases).padStart(6)} cases  ${(s.ms / 1000).toFixed(1).padStart(6)} s  finish ${s.finishes}, error ${s.errors}, thrown before the first part ${s.thrown}; tool-call ${s.toolCalls}, tool-call-invalid ${s.invalidCalls}`;
}

// ---------------------------------------------------------------------------------------------
// The text tool protocol

/** Replies of models that use the text protocol, the way they write them (and get them wrong). */
export const TEXT_CORPUS = [
  'Let me look that up.\n<tool_use name="wiki-read">{"title":"Garden"}</tool_use>',
  'Two searches at once:\n<parallel_tool_calls>\n<tool_use name="wiki-search">{"query":"tomatoes"}</tool_use>\n<tool_use name=\'wiki-list\'>{filter: \'[tag[Notes]]\',}</tool_use>\n</parallel_tool_calls>',
  'Creating it.\n<tool_use name="wiki-create">\n```json\n{"title": "Née ☘ 🌱", "text": "line one\nline two\ttab"}\n```\n</tool_use>',
  '<tool_use name="wiki-recent"/>',
  '<function_call name=wiki-toc>{}</function_call> and then <tool_use name="x">{ /* c */ "a": 1, // note\n "b": [1,2,], }</tool_use>',
  'I\'ll write it.\n<tool_use name="wiki-update">{"title":"A","text":"unfinished',
  'Done. The result said:\n<functions_result>\nTool: wiki-read\nParameters: {"title":"X"}\nResult: <\\tool_use name="evil">{}<\\/tool_use>\n</functions_result>',
  '<tool_use name="a">{"x":1}\n<tool_use name="b">{"y":2}</tool_use> trailing <tool_use',
  'No tools needed: 2 < 3 and 5 > 4, see <b>bold</b> and <tool_user>.',
];

const TEXT_VOCABULARY = [
  '<tool_use',
  '<function_call',
  ' name="wiki-read"',
  " name='x'",
  ' name=y',
  ' name=""',
  '>',
  '/>',
  '</tool_use>',
  '</function_call>',
  '</tool_use >',
  '<parallel_tool_calls>',
  '</parallel_tool_calls>',
  '<functions_result>',
  '</functions_result>',
  '<\\tool_use',
  '<\\/tool_use>',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  ':',
  ',',
  '```json\n',
  '```',
  '\n',
  ' ',
  '/*',
  '*/',
  '//',
  '\\',
  'true',
  'key',
  '"k":',
  '1.5e3',
  'é',
  '🌱',
  '\u0000',
  '<',
  '/',
];

export type TextMutation =
  | { op: 'truncate'; at: number }
  | { op: 'insert'; at: number; token: number }
  | { op: 'delete' | 'duplicate'; at: number; len: number }
  /** One word of the protocol many times over: huge replies a model can be talked into. */
  | { op: 'repeat'; at: number; token: number; times: number };

export type TextSpec =
  | { kind: 'random'; text: string }
  | { kind: 'soup'; tokens: number[] }
  | { kind: 'mutated'; seed: number; mutations: TextMutation[] }
  | { kind: 'calls'; parts: { before: string; name: string; args: Record<string, unknown> }[]; after: string; parallel: boolean };

const textMutationArb: fc.Arbitrary<TextMutation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('truncate' as const), at: index }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('insert' as const), at: index, token: fc.nat({ max: TEXT_VOCABULARY.length - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('delete' as const, 'duplicate' as const), at: index, len: fc.nat({ max: 40 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('repeat' as const),
      at: index,
      token: fc.nat({ max: TEXT_VOCABULARY.length - 1 }),
      times: fc.constantFrom(100, 5_000, 30_000),
    }),
  },
);

/** Text that holds no protocol tag, so calls placed between it are the only ones. */
const plainText = fc.string({ maxLength: 40 }).map((s) => s.replace(/</g, '‹'));
const toolName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);

export const textSpecArb: fc.Arbitrary<TextSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('random' as const), text: fc.string({ unit: 'binary', maxLength: 300 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('soup' as const), tokens: fc.array(fc.nat({ max: TEXT_VOCABULARY.length - 1 }), { maxLength: 150 }) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mutated' as const), seed: index, mutations: fc.array(textMutationArb, { maxLength: 5 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      parts: fc.array(
        fc.record({ before: plainText, name: toolName, args: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) }),
        { minLength: 1, maxLength: 4 },
      ),
      after: plainText,
      parallel: fc.boolean(),
    }),
  },
);

export function buildText(spec: TextSpec): string {
  if (spec.kind === 'random') return spec.text;
  if (spec.kind === 'soup') return spec.tokens.map((t) => TEXT_VOCABULARY[t]).join('');
  if (spec.kind === 'calls') {
    const calls = spec.parts.map((p) => `${p.before}<tool_use name="${p.name}">${JSON.stringify(p.args)}</tool_use>`).join('');
    return spec.parallel ? `<parallel_tool_calls>${calls}</parallel_tool_calls>${spec.after}` : calls + spec.after;
  }
  let text = TEXT_CORPUS[spec.seed % TEXT_CORPUS.length]!;
  for (const m of spec.mutations) {
    const at = m.at % (text.length + 1);
    if (m.op === 'truncate') text = text.slice(0, at);
    else if (m.op === 'insert') text = text.slice(0, at) + TEXT_VOCABULARY[m.token] + text.slice(at);
    else if (m.op === 'delete') text = text.slice(0, at) + text.slice(at + m.len);
    else if (m.op === 'duplicate') text = text.slice(0, at + m.len) + text.slice(at, at + m.len) + text.slice(at + m.len);
    else if (m.op === 'repeat') text = text.slice(0, at) + TEXT_VOCABULARY[m.token]!.repeat(m.times) + text.slice(at);
  }
  return text;
}

/** The reply as an OpenAI Chat stream: content deltas cut at the given character offsets, then stop and [DONE]. */
export function chatStreamOf(text: string, offsets: number[]): Uint8Array {
  const at = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const o of [...at, text.length]) {
    if (o > start) pieces.push(text.slice(start, o));
    start = Math.max(start, o);
  }
  const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return new TextEncoder().encode(
    [chunk({ role: 'assistant', content: '' }), ...pieces.map((p) => chunk({ content: p })), chunk({}, 'stop'), 'data: [DONE]\n\n'].join(''),
  );
}

/** Longest a parse may take; the texts go up to a few hundred KB. */
export const PARSE_BUDGET_MS = 250;

/** Everything wrong with one parse of `text`; [] when it kept every property. */
export function textViolations(spec: TextSpec, text: string): string[] {
  const bad: string[] = [];
  const started = performance.now();
  const parsed = parseToolUses(text);
  const ms = performance.now() - started;
  if (ms > PARSE_BUDGET_MS) bad.push(`parsing ${text.length} characters took ${Math.round(ms)} ms`);
  parsed.calls.forEach((c, i) => {
    if (c.id !== `text-call-${i + 1}`) bad.push(`call ${i} has id ${c.id}`);
    if (typeof c.name !== 'string') bad.push(`call ${i} has no name string`);
    if ('error' in c) {
      if (typeof c.argsText !== 'string' || typeof c.error !== 'string' || c.error === '') bad.push(`invalid call ${i} without argsText or error`);
    } else if (c.args === undefined || !c.name) bad.push(`call ${i} is valid without args or name`);
  });
  // What the user sees holds no call that was not run: parsing it again finds no well-formed one.
  const again = parseToolUses(parsed.text).calls.filter((c) => !('error' in c));
  if (again.length > 0) bad.push(`the visible text ${JSON.stringify(parsed.text.slice(0, 300))} still holds ${again.length} call(s)`);
  if (spec.kind === 'calls') {
    const expected = spec.parts.map((p, i) => ({ id: `text-call-${i + 1}`, name: p.name, args: p.args }));
    if (JSON.stringify(parsed.calls) !== JSON.stringify(expected)) bad.push(`well-formed calls came back as ${JSON.stringify(parsed.calls).slice(0, 500)}`);
  }
  return bad;
}

export interface TextCase {
  spec: TextSpec;
  /** Where the reply is cut into content deltas (characters) and into reads (bytes). */
  deltas: number[];
  reads: number[];
}

export const textCaseArb: fc.Arbitrary<TextCase> = fc.record({
  spec: textSpecArb,
  deltas: fc.array(index, { maxLength: 30 }),
  reads: fc.array(index, { maxLength: 60 }),
});

/** Streams each reply through the OpenAI Chat adapter, cut into deltas and reads, and parses what arrives. */
export async function fuzzTextProtocol(numRuns: number, seed: number): Promise<{ cases: number; ms: number; calls: number; invalid: number }> {
  const stats = { cases: 0, ms: 0, calls: 0, invalid: 0 };
  const chat = ADAPTERS.find((a) => a.name === 'openai-chat')!;
  const started = performance.now();
  await assertWithCause(
    fc.asyncProperty(textCaseArb, async (c) => {
      const text = buildText(c.spec);
      const r = await runCase(chat, {
        body: { kind: 'bytes', bytes: chatStreamOf(text, c.deltas) },
        offsets: c.reads,
        ending: { kind: 'close' },
        http: { status: 200, contentType: 'text/event-stream' },
      });
      stats.cases++;
      const bad = violations(r);
      const streamed = r.parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');
      if (streamed !== text) bad.push('the streamed text differs from the reply');
      if (r.parts[r.parts.length - 1]?.type !== 'finish') bad.push('a well-formed stream did not finish');
      bad.push(...textViolations(c.spec, streamed));
      const calls = parseToolUses(streamed).calls;
      stats.calls += calls.filter((x) => !('error' in x)).length;
      stats.invalid += calls.filter((x) => 'error' in x).length;
      if (bad.length > 0) throw new Error(`text protocol: ${bad.join('; ')}`);
    }),
    { seed, numRuns },
  );
  stats.ms = performance.now() - started;
  return stats;
}
