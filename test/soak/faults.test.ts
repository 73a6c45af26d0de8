// Fault injection, the soak variant (issue 14 item 1): every scenario of test/helpers/faults.ts
// (the 5 MB reply, 200 tool calls, stalls that end by the idle timeout after three attempts,
// backoff without Retry-After, the slow drip) against both runners. Prints the table, and the
// longest block of each runner's event loop while the large replies stream.
import { browserRunner, chatOf, formatTable, runScenario, SCENARIOS, serverRunner, type FaultRunner, type Row } from '../helpers/faults';
import { startMockLlm, type MockLlm } from '../helpers/server';

jest.setTimeout(300_000);

let mock: MockLlm;
const rows: Row[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
});
afterAll(async () => {
  if (rows.length) console.log(`Fault injection (soak: ${SCENARIOS.length} scenarios per runner)\n${formatTable(rows)}`);
  await mock?.close();
});

describe.each(['browser', 'server'] as const)('the %s runner', (name) => {
  let runner: FaultRunner;
  beforeAll(async () => {
    runner = name === 'browser' ? await browserRunner(mock) : await serverRunner(mock, SCENARIOS.map(chatOf));
  });
  afterAll(() => runner?.close());

  test.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    rows.push(await runScenario(runner, mock, scenario));
  });
});
