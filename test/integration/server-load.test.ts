// Load (issue 14 item 6), the quick variant: 50 chats streaming at once on one server edition,
// five rounds. Every reply complete and in order (the deltas a page got are the saved reply),
// no cross-talk, and the server's memory does not grow from round to round. The soak variant
// (test/soak/load.test.ts) does 50 and then 200 chats.
import { serverWikiFolder, startMockLlm, startServer, type MockLlm, type TwServer } from '../helpers/server';
import { formatRound, loadRound, writeChats, type LoadRound } from '../helpers/load';

jest.setTimeout(180_000);

let mock: MockLlm;
let server: TwServer;
beforeAll(async () => {
  mock = await startMockLlm({ port: 0, delayMs: 5 });
});
afterAll(async () => {
  await server?.stop();
  await mock.close();
});

test('50 chats at once, five rounds: every reply complete, in order, no cross-talk, memory flat', async () => {
  const dir = serverWikiFolder(mock.url);
  const chats = writeChats(dir, 50);
  server = await startServer(dir);
  const rounds: LoadRound[] = [];
  for (let round = 1; round <= 5; round++) {
    const r = await loadRound(server, chats, round);
    console.log(formatRound(r, round));
    expect(r).toMatchObject({ accepted: 50, complete: 50, inOrder: 50, crossTalk: 0 });
    rounds.push(r);
  }
  // Bounded: V8 grows its heap before it collects, so one round says little. Measured here
  // (2 cores, other work running): the fifth round ended at 197-280 MB after a first round of
  // 173-176 MB (seven rounds once: 176 → 181 → 213 → 234 → 197 → 201 → 221 MB). A leak of the
  // chats' messages keeps climbing past 1.75x of the first round by the fifth.
  const [first, , , , fifth] = rounds.map((r) => r.rssAfter) as [number, number, number, number, number];
  expect(fifth).toBeLessThan(first * 1.75);
});
