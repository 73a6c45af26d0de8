// spawn-agent on a real runner over a real TiddlyWiki, with scripted models: the child's
// approval waits for the user in the child chat while the parent's call waits; the model
// cannot pick a laxer agent definition for its child; the time limit stops the child.
import { spawnAgentTool } from '../../../src/agent/tools/spawn-agent';
import { summaryTool } from '../../../src/agent/tools/control-tools';
import { WIKI_WRITE_TOOLS } from '../../../src/agent/tools/wiki-write-tools';
import { bootEngineWiki, deferred, disposeRunners, hangingStep, reply, scriptedModel, scriptedRunner, toolCalls, within, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});
afterAll(() => disposeRunners());

const TOOLS = [spawnAgentTool, summaryTool, ...WIKI_WRITE_TOOLS];
const childrenOf = (chat: string) => h.$tw.wiki.filterTiddlers(`[field:agent-parent[${chat}]]`) as string[];

async function until(what: string, condition: () => boolean): Promise<void> {
  await within(
    new Promise<void>((resolve) => {
      const check = () => (condition() ? resolve() : setTimeout(check, 5));
      check();
    }),
    what,
  );
}

test("a child's approval waits in the child chat while the parent's call waits; allowing it finishes both", async () => {
  // Call 1: the parent spawns. Call 2: the child wants to create a note (confirm). Call 3: the child answers. Call 4: the parent answers.
  const { model } = scriptedModel([
    toolCalls(['p1', 'spawn-agent', { task: 'Write the note', context: 'Title: Child note' }]),
    toolCalls(['c1', 'wiki-create', { title: 'Child note', text: 'from the child' }]),
    reply('Child done: created Child note.'),
    reply('Parent done.'),
  ]);
  const runner = scriptedRunner(h, model, TOOLS);
  const parent = h.newChat({ 'agent-tools': 'spawn-agent wiki-create summary' });
  const turn = runner.submit({ kind: 'send', chat: parent, text: 'Delegate the note' });
  await until('the child to wait for approval', () => childrenOf(parent).length === 1 && h.status(childrenOf(parent)[0]!) === 'input-required');
  const [child] = childrenOf(parent);
  expect(h.fields(child!)).toMatchObject({ 'agent-parent': parent, 'agent-hidden': 'yes', agent: h.agentOf(parent) });
  expect(h.messages(child!)[0]!.text).toBe('Write the note\n\n<context>\nTitle: Child note\n</context>');
  // The parent is still working: its call waits for the child.
  expect(h.status(parent)).toBe('working');
  const pending = h.messages(child!).find((m) => m['tool-status'] === 'pending')!;
  await runner.submit({ kind: 'decide', chat: child!, message: pending.title!, choice: 'once' });
  expect(await within(turn, 'the parent turn')).toEqual({ status: 'completed' });
  expect(h.fields('Child note').text).toBe('from the child');
  const result = h.messages(parent).find((m) => m['tool-name'] === 'spawn-agent')!;
  expect(result).toMatchObject({ 'tool-status': 'ok', 'agent-child': child });
  expect(result.text).toContain('Child done: created Child note.');
  expect(h.messages(parent).at(-1)!.text).toBe('Parent done.');
});

test('the model cannot run its child on another (laxer) agent definition unless the user listed it', async () => {
  const lax = h.newChat({ 'agent-tools': 'wiki-create', 'agent-approval': '{"wiki-create":{"mode":"auto"}}' });
  const laxAgent = h.agentOf(lax);
  const { model } = scriptedModel([toolCalls(['p1', 'spawn-agent', { task: 'Write freely', agent: laxAgent }]), reply('ok')]);
  const runner = scriptedRunner(h, model, TOOLS);
  const parent = h.newChat({ 'agent-tools': 'spawn-agent' });
  expect(await runner.submit({ kind: 'send', chat: parent, text: 'go' })).toEqual({ status: 'completed' });
  const result = h.messages(parent).find((m) => m['tool-name'] === 'spawn-agent')!;
  expect(result['tool-status']).toBe('error');
  expect(result.text).toMatch(/is not allowed/);
  expect(childrenOf(parent)).toEqual([]);

  // Listed by the user in agent-spawn-agents: allowed.
  const { model: model2 } = scriptedModel([toolCalls(['p1', 'spawn-agent', { task: 'Say hi', agent: laxAgent }]), reply('hi from child'), reply('ok')]);
  const runner2 = scriptedRunner(h, model2, TOOLS);
  const trusting = h.newChat({ 'agent-tools': 'spawn-agent', 'agent-spawn-agents': `[[${laxAgent}]]` });
  expect(await runner2.submit({ kind: 'send', chat: trusting, text: 'go' })).toEqual({ status: 'completed' });
  expect(h.fields(childrenOf(trusting)[0]!).agent).toBe(laxAgent);
});

test("the time limit stops the child, and the parent's call ends in a timeout", async () => {
  const started = deferred();
  const { model } = scriptedModel((call) =>
    call === 1 ? toolCalls(['p1', 'spawn-agent', { task: 'Think forever' }]) : call === 2 ? hangingStep(started) : reply('gave up'),
  );
  const runner = scriptedRunner(h, model, TOOLS);
  const parent = h.newChat({ 'agent-tools': 'spawn-agent', 'agent-spawn-timeout': '1' });
  const turn = runner.submit({ kind: 'send', chat: parent, text: 'go' });
  await within(started.promise, 'the child to start');
  expect(await within(turn, 'the parent turn', 10_000)).toEqual({ status: 'completed' });
  expect(h.messages(parent).find((m) => m['tool-name'] === 'spawn-agent')!['tool-status']).toBe('timeout');
  await until('the child canceled', () => h.status(childrenOf(parent)[0]!) === 'canceled');
});

test('after a restart or reload, a sub-agent still waiting for the user is ended: its parent call is gone', async () => {
  const { model } = scriptedModel([
    toolCalls(['p1', 'spawn-agent', { task: 'Write it' }]),
    toolCalls(['c1', 'wiki-create', { title: 'Never written', text: 'x' }]),
  ]);
  const runner = scriptedRunner(h, model, TOOLS);
  const parent = h.newChat({ 'agent-tools': 'spawn-agent wiki-create' });
  void runner.submit({ kind: 'send', chat: parent, text: 'go' });
  await until('the child to wait for approval', () => childrenOf(parent).length === 1 && h.status(childrenOf(parent)[0]!) === 'input-required');
  const [child] = childrenOf(parent);
  // A new runner over the same wiki: what a server restart or a page reload finds.
  const after = scriptedRunner(h, scriptedModel([]).model, TOOLS);
  const marked = after.restore();
  expect(marked).toEqual(expect.arrayContaining([parent, child]));
  expect(h.status(child!)).toBe('canceled');
  expect(h.messages(child!).find((m) => m['tool-call-id'] === 'c1')!['tool-status']).not.toBe('pending');
  expect(h.status(parent)).toBe('interrupted');
  expect(h.$tw.wiki.tiddlerExists('Never written')).toBe(false);
  await runner.submit({ kind: 'stop', chat: parent }).catch(() => undefined);
});
