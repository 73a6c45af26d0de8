// Crash recovery, the short variant (issue 14.3; the 20-kill soak is test/soak/crash.test.ts):
// the server edition is killed with SIGKILL once in each kind of work (a reply streaming, a
// tool write without confirmation, a pending or just-decided approval, a schedule firing, a
// slow MCP call), at a seeded random moment after observable progress, and started again on
// the same folder; test/helpers/crash.ts checks what the restart left (no chat working, the
// unfinished operations failed and said so in the chat, messages intact and not duplicated,
// every tiddler file loads, tool writes all or nothing with their journal, a schedule run
// once) and that the chat answers the next message. Prints the table.
import { CrashBench, crashTable, KINDS } from '../helpers/crash';

jest.setTimeout(60_000);

const SEED = Number(process.env.CRASH_SEED ?? 14_3);
let bench: CrashBench;

beforeAll(async () => {
  bench = await CrashBench.start(SEED);
});

afterAll(async () => {
  if (bench?.rows.length) console.log(`crash recovery, seed ${SEED}:\n${crashTable(bench.rows)}`);
  await bench?.close();
});

test.each(KINDS)('SIGKILL during %s: the restart leaves everything consistent and the chat usable', async (kind) => {
  const row = await bench.round(kind);
  expect(row.outcome).toBeTruthy();
});
