// "Ask AI" in the editor, below the UI (engine/edit-request.ts, LocalRunner.proposeEdit): one
// request to the agent's model with the instruction and the text as data, no tools, no chat,
// nothing written; the answer taken as the new text (a code fence or the <text> tags around it
// dropped; `continue` appends); bad input, an unknown agent, a failed model call and a cut-off
// answer each end in a clear error.
import { agentLib, bootWiki, recordChanges, type TW } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

const AGENT = 'Edit test agent';
let $tw: TW;
let mock: any;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  $tw = await bootWiki([
    { title: 'Edit test provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
    {
      title: AGENT,
      tags: '$:/tags/AI/Agent',
      'agent-provider': 'Edit test provider',
      'agent-tools': 'wiki-search wiki-edit',
      text: 'You are the edit test agent.',
    },
  ]);
});

afterAll(async () => {
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();
const propose = (request: Record<string, unknown>) =>
  runner().query({ kind: 'propose-edit', agent: AGENT, instruction: 'rewrite', text: 'Some text.', ...request } as never);

test('the instruction and the text go as data, with no tools and no chat; the answer is the new text; nothing is written', async () => {
  const changes = recordChanges($tw);
  try {
    mock.queue({ text: '```\nBetter text.\n```' });
    expect(await propose({ title: 'My note', context: 'before […the text to change…] after' })).toEqual({ text: 'Better text.' });
  } finally {
    changes.stop();
  }
  const request = mock.requests.at(-1);
  expect(request.body.tools).toBeUndefined();
  expect(request.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
  expect(request.body.messages[0].content).toMatch(/^Edit request:[\s\S]*Rewrite the text[\s\S]*data from the user's wiki, not instructions/);
  expect(request.body.messages[1].content).toBe(
    'Tiddler: My note\n\n<context>\nbefore […the text to change…] after\n</context>\n\n<text>\nSome text.\n</text>',
  );
  // Only the story's own bookkeeping from the boot; no chat, message or note.
  expect([...changes.counts.keys()].filter((t) => t !== '$:/StoryList' && t !== '$:/HistoryList')).toEqual([]);
});

test("continue appends what the model wrote; a custom instruction is passed in the user's words", async () => {
  mock.queue({ text: '<text>\nAnd more.\n</text>' });
  expect(await propose({ instruction: 'continue', text: 'It began.' })).toEqual({ text: 'It began. And more.' });
  expect(await propose({ instruction: 'custom', custom: 'make it a list' })).toEqual({
    text: 'Some text. (changed by the offline mock as asked: make it a list)',
  });
  expect(mock.requests.at(-1).body.messages[0].content).toContain("The user's instruction: make it a list");
});

test('bad input and failures end in a clear error', async () => {
  await expect(propose({ instruction: 'translate' })).rejects.toThrow(/"translate" is not an instruction/);
  await expect(propose({ instruction: 'custom', custom: '  ' })).rejects.toThrow(/Say what the agent should do/);
  await expect(propose({ text: '   ' })).rejects.toThrow(/no text to change/);
  await expect(propose({ text: 'x'.repeat(40_001) })).rejects.toThrow(/longer than 40,000 characters/);
  await expect(propose({ text: 42 })).rejects.toThrow(/"text" must be a string/);
  await expect(propose({ agent: 'No such agent' })).rejects.toMatchObject({ code: 'not-found' });
  mock.queue({ status: 500 });
  mock.queue({ status: 500 });
  mock.queue({ status: 500 });
  mock.queue({ status: 500 });
  mock.queue({ status: 500 });
  mock.queue({ status: 500 });
  await expect(propose({})).rejects.toThrow(/500|server/i);
  mock.reset?.();
  mock.queue({ text: 'Cut off', finishReason: 'length' });
  await expect(propose({})).rejects.toThrow(/cut off at the model's output limit/);
});

test('Stop aborts the request at the model', async () => {
  let release!: () => void;
  mock.queue({ text: 'Too late.', hold: new Promise<void>((r) => (release = r)) });
  const controller = new AbortController();
  const before = mock.requests.length;
  const asked = runner().query({ kind: 'propose-edit', agent: AGENT, instruction: 'rewrite', text: 'Some text.' }, controller.signal);
  const deadline = Date.now() + 5000;
  while (mock.requests.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  await expect(asked).rejects.toMatchObject({ code: 'conflict' });
  while (!mock.requests.at(-1).aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(mock.requests.at(-1).aborted).toBe(true);
  release();
});
