// Concurrent users on one server (issue 14.4), the quick variant (test/soak/concurrency.test.ts
// runs 50 + 50): a user saves a tiddler the agent is about to write, its write waiting for
// approval or mid-turn between its read and its write, the save stamping a new `modified` or
// keeping it (issue 23); the user's edit is kept every time, the agent's write is refused as a
// conflict, the model gets the refusal as the tool result, and the chat shows it. Two pages sending to one chat at once: both turns run, one after the
// other, in the order the server took them, each reply complete, nothing lost or doubled.
import { conflictTrial, startLab, twoSendersTrial, USER_EDITS, type Lab } from '../helpers/concurrency';

jest.setTimeout(120_000);

const TRIALS = 10;
let lab: Lab;

beforeAll(async () => {
  lab = await startLab(TRIALS);
});

afterAll(async () => {
  await lab?.close();
});

test(`${TRIALS} + ${TRIALS} edits by the user (half keeping modified) while the agent is about to write: no edit lost, every write refused and shown`, async () => {
  const outcomes = [];
  for (let i = 0; i < TRIALS; i++) {
    const edit = USER_EDITS[i % 2]!;
    outcomes.push(await conflictTrial(lab, 'approval', i, edit));
    outcomes.push(await conflictTrial(lab, 'mid-turn', i, edit));
  }
  const bad = outcomes.filter((o) => o.lostEdit || !o.refused || !o.modelTold || !o.userShown);
  expect(bad).toEqual([]);
});

test(`${TRIALS} times two pages send to one chat at once: both turns, in order, complete`, async () => {
  const outcomes = [];
  for (let i = 0; i < TRIALS; i++) outcomes.push(await twoSendersTrial(lab, i));
  const bad = outcomes.filter((o) => !o.accepted || !o.inOrder || !o.complete || !o.oneAfterTheOther || o.lost || o.duplicated);
  expect(bad).toEqual([]);
});
