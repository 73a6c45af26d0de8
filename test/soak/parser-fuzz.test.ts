// Parser fuzzing (issue 14 item 2), the soak variant: 12,000 random and mutated streams per
// provider adapter and 12,000 text-protocol replies (the quick variant in test/integration
// runs 2,000 of each). Prints the counts and times.
import { ADAPTERS, formatStats, fuzzAdapter, fuzzTextProtocol } from '../helpers/parser-fuzz';

jest.setTimeout(1_800_000);
const RUNS = 12_000;
const SEED = 20261215;

describe.each(ADAPTERS.map((a) => [a.name, a] as const))('%s', (_, adapter) => {
  it(`keeps the stream properties on ${RUNS} random and mutated streams`, async () => {
    console.log(formatStats(adapter.name, await fuzzAdapter(adapter, RUNS, SEED)));
  });
});

it(`text tool protocol: ${RUNS} replies`, async () => {
  const stats = await fuzzTextProtocol(RUNS, SEED);
  console.log(
    `text-protocol      ${String(stats.cases).padStart(6)} cases  ${(stats.ms / 1000).toFixed(1).padStart(6)} s  calls ${stats.calls}, invalid calls ${stats.invalid}`,
  );
});
