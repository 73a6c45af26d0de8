// Crash recovery, the soak variant (issue 14.3; `npm run test:soak`): 20 SIGKILLs of the
// server edition, four in each kind of work (a reply streaming, a tool write, an approval,
// a schedule firing, an MCP call) in a seeded order, each at a seeded random moment after
// observable progress; after each restart test/helpers/crash.ts checks the folder, the
// operations, the messages, the tool writes and the schedules, and that the chat answers.
// Prints the table (kill #, moment, what was running, outcome). CRASH_SEED replays a run.
import { CrashBench, crashTable, KINDS, seeded, type Kind } from '../helpers/crash';

jest.setTimeout(600_000);

const SEED = Number(process.env.CRASH_SEED ?? 20_14);
const KILLS = 20;

test(`${KILLS} SIGKILLs at seeded random moments: every restart leaves everything consistent and the chat usable`, async () => {
  const rng = seeded(SEED ^ 0x5eed);
  const order: Kind[] = Array.from({ length: KILLS }, (_, i) => KINDS[i % KINDS.length]!);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const bench = await CrashBench.start(SEED);
  const started = Date.now();
  try {
    for (const kind of order) await bench.round(kind);
  } finally {
    const restarts = bench.rows.map((r) => r.restartMs).sort((a, b) => a - b);
    console.log(
      `crash recovery soak, seed ${SEED}: ${bench.rows.length} of ${KILLS} kills survived in ${Math.round((Date.now() - started) / 1000)} s; restart median ${restarts[restarts.length >> 1]} ms, max ${restarts.at(-1)} ms\n${crashTable(bench.rows)}`,
    );
    await bench.close();
  }
  expect(bench.rows).toHaveLength(KILLS);
});
