// Concurrent users, the long variant of test/integration/server-concurrency.test.ts (issue
// 14.4): 50 trials in which the user saves a tiddler the agent is about to write (25 with the
// write waiting for approval, 25 mid-turn; in about half of each the save keeps `modified`,
// issue 23), and 50 in which two pages send to one chat at once. Prints the counts; lost edits must
// be 0.
import { conflictTrial, startLab, twoSendersTrial, USER_EDITS, type ConflictOutcome, type Lab, type SendsOutcome } from '../helpers/concurrency';

jest.setTimeout(600_000);

const TRIALS = 50;
let lab: Lab;

beforeAll(async () => {
  lab = await startLab(TRIALS);
});

afterAll(async () => {
  await lab?.close();
});

const ms = (list: { ms: number }[]) => {
  const sorted = list.map((o) => o.ms).sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms`;
};

test(`${TRIALS} edits by the user while the agent is about to write`, async () => {
  const outcomes: ConflictOutcome[] = [];
  for (let i = 0; i < TRIALS; i++) outcomes.push(await conflictTrial(lab, i % 2 ? 'mid-turn' : 'approval', i, USER_EDITS[Math.floor(i / 2) % 2]!));
  const count = (f: (o: ConflictOutcome) => boolean) => outcomes.filter(f).length;
  console.log(
    [
      `Concurrent edits: ${outcomes.length} trials (${count((o) => o.kind === 'approval')} approval pending, ${count((o) => o.kind === 'mid-turn')} mid-turn; ${count((o) => o.edit === 'kept')} kept modified), ${ms(outcomes)}`,
      `  lost edits: ${count((o) => o.lostEdit)}`,
      `  agent write refused as a conflict: ${count((o) => o.refused)}`,
      `  refusal given to the model: ${count((o) => o.modelTold)}`,
      `  refusal shown in the chat: ${count((o) => o.userShown)}`,
    ].join('\n'),
  );
  expect(outcomes.filter((o) => o.lostEdit || !o.refused || !o.modelTold || !o.userShown)).toEqual([]);
});

test(`${TRIALS} times two pages send to one chat at once`, async () => {
  const outcomes: SendsOutcome[] = [];
  for (let i = 0; i < TRIALS; i++) outcomes.push(await twoSendersTrial(lab, i));
  const count = (f: (o: SendsOutcome) => boolean) => outcomes.filter(f).length;
  console.log(
    [
      `Two pages sending at once: ${outcomes.length} trials, ${ms(outcomes)}`,
      `  both accepted and done: ${count((o) => o.accepted)}`,
      `  in order (user, reply, user, reply): ${count((o) => o.inOrder)}`,
      `  second turn ran after the first: ${count((o) => o.oneAfterTheOther)}`,
      `  every page saw both replies whole: ${count((o) => o.complete)}`,
      `  messages lost: ${outcomes.reduce((n, o) => n + o.lost, 0)}, duplicated: ${outcomes.reduce((n, o) => n + o.duplicated, 0)}`,
    ].join('\n'),
  );
  expect(outcomes.filter((o) => !o.accepted || !o.inOrder || !o.complete || !o.oneAfterTheOther || o.lost || o.duplicated)).toEqual([]);
});
