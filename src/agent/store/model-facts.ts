/*\
What the product knows about a model: its context window, its output limit, whether it takes
images, and its prices. Presets for common models, overridden by what the provider profile
says (its `context-window` and `max-output` for every model, its `model-facts` per model).
Pure data and lookup: the engine (window, image check, budget), the cost arithmetic and the
UI all ask here, so there is one answer per model. No zod here: the chat widget bundles this
module to price replies without loading the library.
\*/
import type { ProviderProfile } from './schemas';

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  /** A request whose input is over `over` tokens is billed at these rates instead (Gemini, Claude's 1M window). */
  longContext?: { over: number; input: number; output: number };
}

export interface ModelFacts {
  contextWindow?: number;
  maxOutput?: number;
  /** true: takes image input; false: known not to; undefined: unknown (images are sent). */
  images?: boolean;
  /** undefined: unknown, never taken as free. */
  price?: Price;
}

/**
 * When the presets were taken from the providers' own pages: prices change, so a profile's
 * `model-facts` overrides them. Sources: platform.openai.com/docs/pricing and /docs/models,
 * docs.anthropic.com/en/docs/about-claude/models/overview and /pricing,
 * ai.google.dev/gemini-api/docs/models and /pricing, ollama.com/library; cross-checked against
 * LiteLLM's model_prices_and_context_window.json. Standard (not batch, not cached) list prices.
 */
export const PRESETS_AS_OF = '2025-11';

const openai = (contextWindow: number, maxOutput: number, images: boolean, input: number, output: number): ModelFacts => ({
  contextWindow,
  maxOutput,
  images,
  price: { input, output },
});
const claude = (maxOutput: number, input: number, output: number, longContext?: Price['longContext']): ModelFacts => ({
  contextWindow: 200_000,
  maxOutput,
  images: true,
  price: { input, output, ...(longContext ? { longContext } : {}) },
});
const gemini = (contextWindow: number, maxOutput: number, input: number, output: number, longContext?: Price['longContext']): ModelFacts => ({
  contextWindow,
  maxOutput,
  images: true,
  price: { input, output, ...(longContext ? { longContext } : {}) },
});
/** Models that take images (or not), named in one space-separated list; nothing else is known of them. */
const ollama = (images: boolean, models: string): Record<string, ModelFacts> => Object.fromEntries(models.split(' ').map((model) => [model, { images }]));

/**
 * Presets by model id (lower case, without a `vendor/` path). An id not listed takes the
 * facts of its longest listed prefix that ends where the id's next part begins (`-`, `:`,
 * `@`, `/`): `gpt-4o-2024-08-06` is `gpt-4o`, `llama3.1:8b` is `llama3.1`, but `gpt-4o-mini`
 * is its own entry and `gpt-5.1` is not `gpt-5`. Variants priced differently from their
 * prefix are listed so they do not inherit a cheaper price (`o3-pro`, `gpt-5-pro`, …).
 */
export const MODEL_PRESETS: Record<string, ModelFacts> = {
  // OpenAI
  'gpt-3.5-turbo': openai(16_385, 4_096, false, 0.5, 1.5),
  'gpt-4-turbo': openai(128_000, 4_096, true, 10, 30),
  'gpt-4o': openai(128_000, 16_384, true, 2.5, 10),
  'gpt-4o-2024-05-13': openai(128_000, 4_096, true, 5, 15),
  'gpt-4o-mini': openai(128_000, 16_384, true, 0.15, 0.6),
  'gpt-4.1': openai(1_047_576, 32_768, true, 2, 8),
  'gpt-4.1-mini': openai(1_047_576, 32_768, true, 0.4, 1.6),
  'gpt-4.1-nano': openai(1_047_576, 32_768, true, 0.1, 0.4),
  o1: openai(200_000, 100_000, true, 15, 60),
  'o1-mini': openai(128_000, 65_536, false, 1.1, 4.4),
  'o1-preview': openai(128_000, 32_768, false, 15, 60),
  'o1-pro': openai(200_000, 100_000, true, 150, 600),
  o3: openai(200_000, 100_000, true, 2, 8),
  'o3-mini': openai(200_000, 100_000, false, 1.1, 4.4),
  'o3-pro': openai(200_000, 100_000, true, 20, 80),
  'o4-mini': openai(200_000, 100_000, true, 1.1, 4.4),
  'gpt-5': openai(400_000, 128_000, true, 1.25, 10),
  'gpt-5-mini': openai(400_000, 128_000, true, 0.25, 2),
  'gpt-5-nano': openai(400_000, 128_000, true, 0.05, 0.4),
  'gpt-5-chat': openai(128_000, 16_384, true, 1.25, 10),
  'gpt-5-pro': openai(400_000, 272_000, true, 15, 120),
  // Anthropic (200,000-token window; Sonnet 4 and 4.5 bill prompts over 200,000 tokens, possible with the 1M beta, at more)
  'claude-3-haiku': claude(4_096, 0.25, 1.25),
  'claude-3-opus': claude(4_096, 15, 75),
  'claude-3-5-haiku': claude(8_192, 0.8, 4),
  'claude-3-5-sonnet': claude(8_192, 3, 15),
  'claude-3-7-sonnet': claude(64_000, 3, 15),
  'claude-sonnet-4': claude(64_000, 3, 15, { over: 200_000, input: 6, output: 22.5 }),
  'claude-sonnet-4-5': claude(64_000, 3, 15, { over: 200_000, input: 6, output: 22.5 }),
  'claude-opus-4': claude(32_000, 15, 75),
  'claude-opus-4-1': claude(32_000, 15, 75),
  'claude-opus-4-5': claude(64_000, 5, 25),
  'claude-haiku-4-5': claude(64_000, 1, 5),
  // Google Gemini (there is no generally available Gemini 2.0 Pro)
  'gemini-1.5-pro': gemini(2_097_152, 8_192, 1.25, 5, { over: 128_000, input: 2.5, output: 10 }),
  'gemini-1.5-flash': gemini(1_048_576, 8_192, 0.075, 0.3, { over: 128_000, input: 0.15, output: 0.6 }),
  'gemini-1.5-flash-8b': gemini(1_048_576, 8_192, 0.0375, 0.15, { over: 128_000, input: 0.075, output: 0.3 }),
  'gemini-2.0-flash': gemini(1_048_576, 8_192, 0.1, 0.4),
  'gemini-2.0-flash-lite': gemini(1_048_576, 8_192, 0.075, 0.3),
  'gemini-2.5-pro': gemini(1_048_576, 65_536, 1.25, 10, { over: 200_000, input: 2.5, output: 15 }),
  'gemini-2.5-flash': gemini(1_048_576, 65_536, 0.3, 2.5),
  'gemini-2.5-flash-lite': gemini(1_048_576, 65_536, 0.1, 0.4),
  // Open-weight models as Ollama names them: image support only. No window (Ollama runs a
  // model with its own `num_ctx`, not the window it was trained for, and cuts the rest
  // silently) and no price (what they cost depends on who runs them: a profile says so).
  ...ollama(true, 'llama3.2-vision llama4 qwen2.5vl mistral-small3.1 mistral-small3.2 gemma3 llava'),
  ...ollama(false, 'llama3 llama3.1 llama3.2 llama3.3 qwen2.5 qwen2.5-coder qwen3 mistral mistral-nemo mistral-small gemma2 gemma3:1b deepseek-r1 phi4'),
};

/** What a profile's `model-facts` says about a model (or, under `*`, every model of the profile). */
export interface ModelFactsEntry {
  'context-window'?: number;
  'max-output'?: number;
  images?: boolean;
  'price-input'?: number;
  'price-output'?: number;
}
export type ModelFactsTable = Record<string, ModelFactsEntry>;

/** The profile fields the facts depend on. */
export type ProfileFacts = Partial<Pick<ProviderProfile, 'context-window' | 'max-output' | 'model-facts'>>;

const ENTRY_KEYS: Record<keyof ModelFactsEntry, { check(v: unknown): boolean; want: string }> = {
  'context-window': {
    check: (v) => Number.isInteger(v) && (v as number) >= 256 && (v as number) <= 10_000_000,
    want: 'a whole number of tokens from 256 to 10000000',
  },
  'max-output': { check: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1_000_000, want: 'a whole number of tokens from 1 to 1000000' },
  images: { check: (v) => typeof v === 'boolean', want: 'true or false' },
  'price-input': {
    check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100_000,
    want: 'US dollars per million input tokens, a number of at least 0',
  },
  'price-output': {
    check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100_000,
    want: 'US dollars per million output tokens, a number of at least 0',
  },
};
export const MODEL_FACTS_EXAMPLE =
  '{"gpt-4o": {"price-input": 2.5, "price-output": 10}, "my-model": {"context-window": 32000, "max-output": 4096, "images": false}}';

/**
 * Parse a profile's `model-facts` field: a JSON object keyed by model id (or `*`), each entry
 * an object of the keys of ModelFactsEntry. Throws an Error naming the model and the key.
 */
export function parseModelFactsTable(text: string): ModelFactsTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`is not JSON (${e instanceof Error ? e.message : String(e)}); write it like ${MODEL_FACTS_EXAMPLE}`);
  }
  if (!isObject(value)) throw new Error(`must be a JSON object keyed by model id, like ${MODEL_FACTS_EXAMPLE}`);
  const table: ModelFactsTable = {};
  for (const [model, entry] of Object.entries(value)) {
    if (!isObject(entry)) throw new Error(`has an entry for "${model}" that is not an object of facts, like {"price-input": 2.5, "price-output": 10}`);
    for (const [key, v] of Object.entries(entry)) {
      const rule = ENTRY_KEYS[key as keyof ModelFactsEntry];
      if (!rule) throw new Error(`has an unknown key "${key}" for "${model}"; the keys are ${Object.keys(ENTRY_KEYS).join(', ')}`);
      if (!rule.check(v)) throw new Error(`has "${key}": ${JSON.stringify(v)} for "${model}"; it must be ${rule.want}`);
    }
    table[model] = entry as ModelFactsEntry;
  }
  return table;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The longest key of `table` that is `id` or a prefix of it ending at a part boundary. */
function longestPrefix(keys: Iterable<string>, id: string): string | undefined {
  let best: string | undefined;
  for (const key of keys) {
    if (!id.startsWith(key) || (best !== undefined && key.length <= best.length)) continue;
    if (id.length === key.length || /[-:@/]/.test(id[key.length]!)) best = key;
  }
  return best;
}

/** The preset facts of a model id (`openai/gpt-4o` and `models/gemini-2.5-pro` count as their last part). */
export function presetFacts(model: string): ModelFacts {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  const key = longestPrefix(Object.keys(MODEL_PRESETS), id);
  return key === undefined ? {} : MODEL_PRESETS[key]!;
}

/**
 * The facts for `model`: the preset, then the profile's `context-window` and `max-output`,
 * then its `model-facts` (`*`, then the longest key matching the model as the presets do).
 * `presets: false` gives only what the profile itself says: the output limit a request
 * carries is the user's (a preset's limit only reserves room in the window).
 */
export function modelFacts(profile: ProfileFacts | undefined, model: string, options: { presets?: boolean } = {}): ModelFacts {
  let facts: ModelFacts = options.presets === false ? {} : { ...presetFacts(model) };
  if (profile?.['context-window'] !== undefined) facts.contextWindow = profile['context-window'];
  if (profile?.['max-output'] !== undefined) facts.maxOutput = profile['max-output'];
  const table = profile?.['model-facts'];
  if (table) {
    const key = longestPrefix(
      Object.keys(table).filter((k) => k !== '*'),
      model,
    );
    for (const entry of [table['*'], key === undefined ? undefined : table[key]]) if (entry) facts = withEntry(facts, entry);
  }
  return facts;
}

function withEntry(facts: ModelFacts, entry: ModelFactsEntry): ModelFacts {
  const out = { ...facts };
  if (entry['context-window'] !== undefined) out.contextWindow = entry['context-window'];
  if (entry['max-output'] !== undefined) out.maxOutput = entry['max-output'];
  if (entry.images !== undefined) out.images = entry.images;
  if (entry['price-input'] !== undefined || entry['price-output'] !== undefined) {
    // A price the user sets is flat: the preset's long-context rates were for the preset's price.
    const input = entry['price-input'] ?? facts.price?.input;
    const output = entry['price-output'] ?? facts.price?.output;
    out.price = input !== undefined && output !== undefined ? { input, output } : undefined;
  }
  return out;
}
