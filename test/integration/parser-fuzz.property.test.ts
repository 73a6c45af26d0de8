// Parser fuzzing (issue 14 item 2), the quick variant: 2,000 random and mutated streams per
// provider adapter and 2,000 text-protocol replies, cut at random byte offsets (see
// test/helpers/parser-fuzz.ts for the cases and the properties). The soak variant
// (test/soak/parser-fuzz.test.ts) runs 12,000 of each. Counterexamples the fuzzer found are
// pinned at the end as plain regression tests.
import { parseToolUses } from '../../src/agent/engine/text-tool-protocol';
import { ADAPTERS, formatStats, fuzzAdapter, fuzzTextProtocol, PARSE_BUDGET_MS } from '../helpers/parser-fuzz';

jest.setTimeout(120_000);
const RUNS = 2000;
const SEED = 20261214;

describe.each(ADAPTERS.map((a) => [a.name, a] as const))('%s', (_, adapter) => {
  it(`keeps the stream properties on ${RUNS} random and mutated streams`, async () => {
    console.log(formatStats(adapter.name, await fuzzAdapter(adapter, RUNS, SEED)));
  });
});

it(`text tool protocol: ${RUNS} replies streamed in random pieces parse into well-formed calls, quickly`, async () => {
  const stats = await fuzzTextProtocol(RUNS, SEED);
  console.log(
    `text-protocol      ${String(stats.cases).padStart(6)} cases  ${(stats.ms / 1000).toFixed(1).padStart(6)} s  calls ${stats.calls}, invalid calls ${stats.invalid}`,
  );
});

describe('counterexamples found by the fuzzer', () => {
  const timed = (text: string) => {
    const started = performance.now();
    const parsed = parseToolUses(text);
    return { parsed, ms: performance.now() - started };
  };

  it('a parallel wrapper written inside a tag leaves no unrun call in the visible text', () => {
    const { parsed } = timed('Two searches:\n<tool_<parallel_tool_calls>use name="wiki-search">{"query":"tomatoes"}</tool_use>');
    expect(parsed.calls).toEqual([{ id: 'text-call-1', name: 'wiki-search', args: { query: 'tomatoes' } }]);
    expect(parsed.text).toBe('Two searches:');
  });

  it('a reply full of `<tool_use ` without `>` parses in linear time (was 1.6 s at 200 KB)', () => {
    const { parsed, ms } = timed('<tool_use '.repeat(100_000));
    expect(parsed.calls).toHaveLength(1);
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
  });

  it('thousands of unclosed calls parse in linear time', () => {
    const { parsed, ms } = timed('<tool_use name="a">{'.repeat(50_000));
    expect(parsed.calls).toHaveLength(50_000);
    expect(parsed.calls.every((c) => 'error' in c)).toBe(true);
    expect(ms).toBeLessThan(4 * PARSE_BUDGET_MS);
  });

  it('a fence full of spaces in the arguments is an invalid call, not a hang (hung for minutes)', () => {
    const { parsed, ms } = timed(`<tool_use name="wiki-read">\`\`\`${' '.repeat(50_000)}x</tool_use>`);
    expect(parsed.calls).toEqual([expect.objectContaining({ name: 'wiki-read', error: expect.stringContaining('not valid JSON') })]);
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
  });
});
