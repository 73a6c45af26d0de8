import { ADAPTERS, formatStats, fuzzAdapter } from '../helpers/parser-fuzz';

jest.setTimeout(600_000);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = 20261214;

describe.each(ADAPTERS.map((a) => [a.name, a] as const))('%s', (_, adapter) => {
  it('keeps the stream properties on random and mutated streams', async () => {
    const stats = await fuzzAdapter(adapter, RUNS, SEED);
    console.log(formatStats(adapter.name, stats));
  });
});
