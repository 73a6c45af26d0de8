// Fault injection, the quick variant (issue 14 item 1): the scenarios marked `quick` in
// test/helpers/faults.ts against both runners (the browser runner in this process, the server
// runner over HTTP); every scenario, the 5 MB reply included, runs in test/soak/faults.test.ts.
// Prints the table: scenario, runner, outcome, model requests, time to the end state.
import { browserRunner, chatOf, formatTable, runScenario, SCENARIOS, serverRunner, type FaultRunner, type Row } from '../helpers/faults';
import { startMockLlm, type MockLlm } from '../helpers/server';

jest.setTimeout(120_000);

const quick = SCENARIOS.filter((s) => s.quick);
let mock: MockLlm;
const rows: Row[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
});
afterAll(async () => {
  if (rows.length) console.log(`Fault injection (quick: ${quick.length} scenarios per runner)\n${formatTable(rows)}`);
  await mock?.close();
});

describe.each(['browser', 'server'] as const)('the %s runner', (name) => {
  let runner: FaultRunner;
  beforeAll(async () => {
    runner = name === 'browser' ? await browserRunner(mock) : await serverRunner(mock, quick.map(chatOf));
  });
  afterAll(() => runner?.close());

  test.each(quick.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    rows.push(await runScenario(runner, mock, scenario));
  });
});
