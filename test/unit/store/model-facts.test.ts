// Model facts: the preset table's longest-prefix lookup (a variant never takes a cheaper
// relative's price), the profile's fields and its `model-facts` over the presets, and bad
// `model-facts` entries reported by profile, model and key.
import { MODEL_PRESETS, modelFacts, parseModelFactsTable, presetFacts } from '../../../src/agent/store/model-facts';
import { ConfigError, ProviderProfileSchema, parseTiddler } from '../../../src/agent/store/schemas';

describe('preset lookup', () => {
  test.each([
    ['gpt-4o', 2.5, 10],
    ['gpt-4o-mini', 0.15, 0.6],
    ['gpt-4o-mini-2024-07-18', 0.15, 0.6],
    ['gpt-4o-2024-08-06', 2.5, 10],
    ['gpt-4o-2024-05-13', 5, 15],
    ['gpt-4.1', 2, 8],
    ['gpt-4.1-mini', 0.4, 1.6],
    ['gpt-4.1-nano-2025-04-14', 0.1, 0.4],
    ['o3', 2, 8],
    ['o3-mini', 1.1, 4.4],
    ['o3-pro', 20, 80],
    ['o4-mini-2025-04-16', 1.1, 4.4],
    ['gpt-5', 1.25, 10],
    ['gpt-5-mini', 0.25, 2],
    ['gpt-5-pro', 15, 120],
    ['claude-3-5-sonnet-20241022', 3, 15],
    ['claude-3-7-sonnet-latest', 3, 15],
    ['claude-sonnet-4-20250514', 3, 15],
    ['claude-opus-4-1-20250805', 15, 75],
    ['claude-opus-4-5', 5, 25],
    ['claude-3-5-haiku-20241022', 0.8, 4],
    ['gemini-2.5-pro', 1.25, 10],
    ['gemini-2.5-flash', 0.3, 2.5],
    ['gemini-2.5-flash-lite', 0.1, 0.4],
    ['models/gemini-2.0-flash', 0.1, 0.4],
    ['openai/gpt-4o-mini', 0.15, 0.6],
    ['GPT-4o-Mini', 0.15, 0.6],
  ])('%s costs $%s / $%s per million tokens', (model, input, output) => {
    expect(presetFacts(model).price).toMatchObject({ input, output });
  });

  test('a prefix matches only at a part boundary: gpt-5.1, gpt-4 and o3x are not their neighbours', () => {
    expect(presetFacts('gpt-5.1')).toEqual({});
    expect(presetFacts('gpt-4')).toEqual({});
    expect(presetFacts('o3x')).toEqual({});
    expect(presetFacts('gpt-4oo')).toEqual({});
    expect(presetFacts('mock-model')).toEqual({});
    expect(presetFacts('')).toEqual({});
  });

  test('Ollama names: size tags match, vision variants are their own, windows and prices stay unknown', () => {
    expect(presetFacts('llama3.2:3b')).toEqual({ images: false });
    expect(presetFacts('llama3.2-vision:11b')).toEqual({ images: true });
    expect(presetFacts('mistral-small3.1:24b')).toEqual({ images: true });
    expect(presetFacts('mistral:7b-instruct')).toEqual({ images: false });
    expect(presetFacts('gemma3:1b')).toEqual({ images: false });
    expect(presetFacts('gemma3:4b')).toEqual({ images: true });
    expect(presetFacts('qwen2.5-coder:7b').images).toBe(false);
  });

  test('windows, output limits and image support of the big three', () => {
    expect(presetFacts('gpt-4.1-mini')).toMatchObject({ contextWindow: 1_047_576, maxOutput: 32_768, images: true });
    expect(presetFacts('o3-mini')).toMatchObject({ contextWindow: 200_000, images: false });
    expect(presetFacts('claude-sonnet-4-5-20250929')).toMatchObject({ contextWindow: 200_000, maxOutput: 64_000, images: true });
    expect(presetFacts('gemini-1.5-pro-002')).toMatchObject({ contextWindow: 2_097_152, maxOutput: 8_192 });
  });

  test('every preset with a price has both rates, at least 0', () => {
    for (const [model, facts] of Object.entries(MODEL_PRESETS)) {
      if (!facts.price) continue;
      expect({ model, ok: facts.price.input >= 0 && facts.price.output >= facts.price.input * 0 }).toEqual({ model, ok: true });
      expect(model).toBe(model.toLowerCase());
    }
  });
});

describe('the profile over the presets', () => {
  test('context-window and max-output apply to every model; model-facts per model wins over them', () => {
    const table = parseModelFactsTable('{"gpt-4o-mini": {"context-window": 64000, "price-input": 0.2}, "*": {"max-output": 1000}}');
    const profile = { 'context-window': 100_000, 'max-output': 2000, 'model-facts': table };
    expect(modelFacts(profile, 'gpt-4o-mini')).toEqual({ contextWindow: 64_000, maxOutput: 1000, images: true, price: { input: 0.2, output: 0.6 } });
    expect(modelFacts(profile, 'gpt-4o')).toEqual({ contextWindow: 100_000, maxOutput: 1000, images: true, price: { input: 2.5, output: 10 } });
    expect(modelFacts({ 'context-window': 100_000 }, 'gpt-4o').contextWindow).toBe(100_000);
  });

  test('a key matches by prefix like the presets, the longest first', () => {
    const table = parseModelFactsTable('{"llama3.2": {"price-input": 0, "price-output": 0}, "llama3.2:70b": {"price-input": 1, "price-output": 2}}');
    expect(modelFacts({ 'model-facts': table }, 'llama3.2:3b').price).toEqual({ input: 0, output: 0 });
    expect(modelFacts({ 'model-facts': table }, 'llama3.2:70b').price).toEqual({ input: 1, output: 2 });
    expect(modelFacts({ 'model-facts': table }, 'llama3.1').price).toBeUndefined();
  });

  test('a price the profile sets is flat (no preset long-context rates); half a price over no preset is unknown', () => {
    const table = parseModelFactsTable('{"gemini-2.5-pro": {"price-input": 1}, "custom": {"price-output": 3}}');
    expect(modelFacts({ 'model-facts': table }, 'gemini-2.5-pro').price).toEqual({ input: 1, output: 10 });
    expect(modelFacts({ 'model-facts': table }, 'custom').price).toBeUndefined();
  });

  test('presets: false gives only what the profile says', () => {
    expect(modelFacts({}, 'gpt-4o', { presets: false })).toEqual({});
    expect(modelFacts({ 'max-output': 500 }, 'gpt-4o', { presets: false })).toEqual({ maxOutput: 500 });
    expect(modelFacts(undefined, 'gpt-4o').maxOutput).toBe(16_384);
  });
});

describe('bad model-facts end in a message naming the profile, the model and the key', () => {
  const profile = (facts: string) => ({ title: 'My Provider', api: 'openai-chat', 'base-url': 'https://api.openai.com/v1', 'model-facts': facts });
  const problem = (facts: string) => {
    try {
      parseTiddler(ProviderProfileSchema, 'Provider profile', profile(facts));
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).field).toBe('model-facts');
      return (e as Error).message;
    }
    throw new Error('parsed');
  };

  test.each([
    ['{"gpt-4o": {"price-input": -1}}', ['"price-input": -1', '"gpt-4o"', 'at least 0']],
    ['{"gpt-4o": {"price-input": "2.5"}}', ['"price-input": "2.5"', '"gpt-4o"', 'a number']],
    ['{"gpt-4o": {"prize-input": 2}}', ['unknown key "prize-input"', '"gpt-4o"', 'price-input']],
    ['{"gpt-4o": {"images": "yes"}}', ['"images": "yes"', 'true or false']],
    ['{"gpt-4o": {"context-window": 12.5}}', ['"context-window": 12.5', 'whole number']],
    ['{"gpt-4o": 3}', ['entry for "gpt-4o"', 'not an object']],
    ['["gpt-4o"]', ['JSON object keyed by model id']],
    ['{gpt-4o: 1}', ['is not JSON']],
  ])('%s', (facts, parts) => {
    const message = problem(facts);
    expect(message).toContain('Provider profile "My Provider"');
    expect(message).toContain('"model-facts"');
    for (const part of parts) expect(message).toContain(part);
  });

  test('a long field is cut in the message', () => {
    const long = JSON.stringify({ 'gpt-4o': { 'price-input': -1 }, padding: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 1])) });
    expect(problem(long).length).toBeLessThan(long.length + 100);
  });

  test('an empty field is no table; a good one parses into the profile', () => {
    expect(parseTiddler(ProviderProfileSchema, 'Provider profile', profile(' '))['model-facts']).toBeUndefined();
    expect(parseTiddler(ProviderProfileSchema, 'Provider profile', profile('{"*": {"price-input": 0, "price-output": 0}}'))['model-facts']).toEqual({
      '*': { 'price-input': 0, 'price-output': 0 },
    });
  });
});
