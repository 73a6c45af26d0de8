/*\
What the product knows about a model: its context window, its output limit, whether it takes
images, and its prices. Presets for common models, overridden by what the provider profile
says. Pure data and lookup: the engine (window, image check, budget), the cost arithmetic
and the UI all ask here, so there is one answer per model.
\*/
import type { ProviderProfile } from './schemas';

export interface ModelFacts {
  contextWindow?: number;
  maxOutput?: number;
  /** true: takes image input; false: known not to; undefined: unknown (images are sent). */
  images?: boolean;
  /** US dollars per million tokens. */
  price?: { input: number; output: number };
}

/** Presets by model id prefix; the longest matching prefix wins. */
export const MODEL_PRESETS: Record<string, ModelFacts> = {
  'gpt-4o-mini': { contextWindow: 128_000, maxOutput: 16_384, images: true, price: { input: 0.15, output: 0.6 } },
  'gpt-4o': { contextWindow: 128_000, maxOutput: 16_384, images: true, price: { input: 2.5, output: 10 } },
  'gpt-4.1': { contextWindow: 1_047_576, maxOutput: 32_768, images: true, price: { input: 2, output: 8 } },
  'gpt-4.1-mini': { contextWindow: 1_047_576, maxOutput: 32_768, images: true, price: { input: 0.4, output: 1.6 } },
  'gpt-3.5-turbo': { contextWindow: 16_385, maxOutput: 4_096, images: false },
  'claude-': { contextWindow: 200_000, images: true },
  'gemini-': { contextWindow: 1_048_576, images: true },
};

/** The facts for `model`: the preset of its longest matching prefix, then the profile's own fields. */
export function modelFacts(profile: ProviderProfile | undefined, model: string): ModelFacts {
  let best = '';
  for (const prefix of Object.keys(MODEL_PRESETS)) if (model.startsWith(prefix) && prefix.length > best.length) best = prefix;
  const preset = best ? MODEL_PRESETS[best]! : {};
  return {
    ...preset,
    ...(profile?.['context-window'] !== undefined ? { contextWindow: profile['context-window'] } : {}),
    ...(profile?.['max-output'] !== undefined ? { maxOutput: profile['max-output'] } : {}),
  };
}
