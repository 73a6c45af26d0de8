// Cost arithmetic: a reply's tokens at its model's price (long-context rates past their
// threshold), sums that say when a price is unknown (never 0), and the formatting.
import { formatTotal, formatUsd, priceTokens, replyCost, totalCost } from '../../../src/agent/store/cost';
import { modelFacts, parseModelFactsTable } from '../../../src/agent/store/model-facts';

const factsOf = (model: string) => modelFacts(undefined, model);

test('a reply costs its input and output tokens at the per-million prices', () => {
  // gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
  expect(replyCost({ model: 'gpt-4o-mini', tokensIn: 10_000, tokensOut: 2_000 }, factsOf)).toEqual({ usd: 0.0015 + 0.0012 });
  expect(priceTokens({ input: 2.5, output: 10 }, 1_000_000, 1_000_000)).toBe(12.5);
  expect(priceTokens({ input: 2.5, output: 10 }, 0, 0)).toBe(0);
});

test('past the long-context threshold both rates change, for the whole request', () => {
  // gemini-2.5-pro: $1.25/$10 up to 200,000 input tokens, $2.50/$15 above.
  const at = (tokensIn: number) => (replyCost({ model: 'gemini-2.5-pro', tokensIn, tokensOut: 1_000_000 }, factsOf) as { usd: number }).usd;
  expect(at(200_000)).toBeCloseTo(0.25 + 10, 10);
  expect(at(200_001)).toBeCloseTo(200_001 * 2.5e-6 + 15, 10);
});

test('an unknown price is unknown, never 0; a reply without token counts is not counted', () => {
  expect(replyCost({ model: 'mock-model', tokensIn: 100, tokensOut: 5 }, factsOf)).toEqual({ unpriced: 'mock-model' });
  expect(replyCost({ tokensIn: 100 }, factsOf)).toEqual({ unpriced: '(no model)' });
  expect(replyCost({ model: 'gpt-4o' }, factsOf)).toBeUndefined();
  const table = parseModelFactsTable('{"mock-model": {"price-input": 0, "price-output": 0}}');
  expect(replyCost({ model: 'mock-model', tokensIn: 100, tokensOut: 5 }, (m) => modelFacts({ 'model-facts': table }, m))).toEqual({ usd: 0 });
});

test('sums: priced replies add up; unpriced models are listed once and make the sum a lower bound', () => {
  const priced = totalCost([{ usd: 0.001 }, undefined, { usd: 0.0032 }]);
  expect(priced).toEqual({ usd: expect.closeTo(0.0042, 12), priced: 2, unpriced: [] });
  expect(formatTotal(priced)).toBe('$0.0042');
  const mixed = totalCost([{ usd: 0.0042 }, { unpriced: 'x' }, { unpriced: 'x' }, { unpriced: 'y' }]);
  expect(mixed.unpriced).toEqual(['x', 'y']);
  expect(formatTotal(mixed)).toBe('at least $0.0042');
  expect(formatTotal(totalCost([{ unpriced: 'x' }]))).toBe('unknown');
  expect(formatTotal(totalCost([]))).toBe('$0');
});

test.each([
  [0, '$0'],
  [0.00004, '<$0.0001'],
  [0.0001, '$0.0001'],
  [0.0042, '$0.0042'],
  [0.123456, '$0.1235'],
  [0.99996, '$1.00'],
  [12.345, '$12.35'],
  [1234.567, '$1,234.57'],
])('formatUsd(%s) is %s', (usd, text) => {
  expect(formatUsd(usd)).toBe(text);
});
