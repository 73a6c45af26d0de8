// Load (issue 14 item 6), the soak variant: 50 chats streaming at once on one server edition,
// then 200, five rounds each (LOAD_ROUNDS), on one server. Prints every round; memory must not keep growing.
import { serverWikiFolder, startMockLlm, startServer, type MockLlm, type TwServer } from '../helpers/server';
import { formatRound, loadRound, writeChats, type LoadRound } from '../helpers/load';

jest.setTimeout(1_800_000);
// Five rounds: RSS only falls once the collector gives memory back, which three rounds may not reach.
const ROUNDS = Number(process.env.LOAD_ROUNDS || 5);

let mock: MockLlm;
let server: TwServer;
beforeAll(async () => {
  mock = await startMockLlm({ port: 0, delayMs: 25 });
});
afterAll(async () => {
  await server?.stop();
  await mock.close();
});

test('50 chats, then 200, several rounds each: complete, in order, no cross-talk, memory bounded', async () => {
  const dir = serverWikiFolder(mock.url);
  const chats = writeChats(dir, 200);
  server = await startServer(dir);
  for (const count of [50, 200]) {
    const rounds: LoadRound[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const r = await loadRound(server, chats.slice(0, count), round, 300_000);
      console.log(formatRound(r, round));
      expect(r).toMatchObject({ accepted: count, complete: count, inOrder: count, crossTalk: 0 });
      rounds.push(r);
    }
    // Bounded: the last round does not climb above what the earlier rounds already reached (+10%).
    const earlier = Math.max(...rounds.slice(0, -1).map((r) => r.rssPeak));
    expect(rounds.at(-1)!.rssAfter).toBeLessThan(earlier * 1.1);
  }
});
