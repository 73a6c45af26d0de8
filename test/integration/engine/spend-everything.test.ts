// Spending caps count everything an agent's runs spend (issue 27, item 3): a sub-agent's replies
// count toward the cap of the agent whose chat spawned it (even when the child runs another agent
// definition), and a reply whose provider reported no usage counts at an estimate of its tokens
// (the prompt and the reply from their lengths), not as free. A real TiddlyWiki, a real
// LocalRunner with spawn-agent, a scripted model.
import { spawnAgentTool } from '../../../src/agent/tools/spawn-agent';
import { bootEngineWiki, disposeRunners, part, reply, scriptedModel, scriptedRunner, toolCalls, type Harness } from './harness';

let h: Harness;
// A dollar per thousand tokens, in and out: a few thousand characters cost a visible sum.
const DEAR = 'Dear test provider';
beforeAll(async () => {
  h = await bootEngineWiki();
  h.$tw.wiki.addTiddler({
    title: DEAR,
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': 'http://127.0.0.1:9/v1',
    'default-model': 'm',
    'model-facts': '{"m": {"price-input": 1000, "price-output": 1000}}',
  });
});
afterAll(() => disposeRunners());

const errorsOf = (chat: string) => h.messages(chat).filter((m) => m.role === 'error');
const childrenOf = (chat: string) => h.$tw.wiki.filterTiddlers(`[field:agent-parent[${chat}]]`) as string[];

test('a sub-agent running another definition spends toward the cap of the agent whose chat spawned it', async () => {
  const helper = h.agentOf(h.newChat({ 'agent-provider': DEAR }, 'Helper'));
  const chat = h.newChat(
    { 'agent-provider': DEAR, 'agent-tools': 'spawn-agent', 'agent-spawn-agents': `[[${helper}]]`, 'agent-day-cost-budget': '0.5' },
    'Parent',
  );
  const s = scriptedModel([
    [...toolCalls(['p1', 'spawn-agent', { task: 'Research it', agent: helper }]).slice(0, -1), part.usage(10, 10), part.finish('tool-calls')],
    // The child's reply: 600 tokens at $1 a thousand.
    [part.text('Researched.'), part.usage(500, 100), part.finish('stop')],
    [part.text('Delegated.'), part.usage(10, 10), part.finish('stop')],
    reply('Should not run.'),
  ]);
  const runner = scriptedRunner(h, s.model, [spawnAgentTool]);
  // The user's own run (never held back): the parent's own replies cost $0.04, the child's $0.60.
  expect(await runner.submit({ kind: 'send', chat, text: 'Delegate.' })).toEqual({ status: 'completed' });
  const [child] = childrenOf(chat);
  expect(h.fields(child!).agent).toBe(helper);
  expect(s.requests).toHaveLength(3);

  // The next, scheduled run is held back: the child's spending counted toward the parent agent's cap.
  await runner.submit({ kind: 'send', chat, text: 'Delegate.', source: 'schedule:$:/test/spend/1' });
  expect(s.requests).toHaveLength(3);
  const [line] = errorsOf(chat);
  expect(line).toMatchObject({ 'error-kind': 'budget', 'error-hint': 'spend-cap' });
  expect(line!.text).toContain('cost $0.6400 today');
  // The child's own agent (no cap of its own) counts it too.
  expect(h.lib.agentSpend(h.store, h.port, helper, Date.now()).day.usd).toBeCloseTo(0.6, 6);
});

test('a reply whose provider reported no usage counts at an estimate of its tokens, not as free', async () => {
  const chat = h.newChat({ 'agent-provider': DEAR, 'agent-day-cost-budget': '0.5' }, 'Usageless');
  const s = scriptedModel([reply('Read it all.'), reply('Should not run.')]);
  const runner = scriptedRunner(h, s.model, []);
  // 4,000 characters: about 1,000 tokens of prompt, $1 at this price; the provider says nothing of usage.
  await runner.submit({ kind: 'send', chat, text: 'x'.repeat(4000) });
  expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Read it all.' });
  expect(h.messages(chat).at(-1)!['tokens-in']).toBeUndefined();

  const spend = h.lib.agentSpend(h.store, h.port, h.agentOf(chat), Date.now()).day;
  // System prompt (~10) + the message (~1,004) in, the reply (~7) out: about $1.02.
  expect(spend.usd).toBeGreaterThan(1);
  expect(spend.usd).toBeLessThan(1.05);
  await runner.submit({ kind: 'send', chat, text: 'Again.', source: 'trigger:$:/test/spend/2' });
  expect(s.requests).toHaveLength(1);
  expect(errorsOf(chat)[0]!.text).toMatch(/cost \$1\.0\d today, which reaches its cap of \$0\.5000/);
});

test('a run no user started stops before its next model call once it reaches the cap, and a sub-agent it spawns then makes no call; a user-started turn goes on', async () => {
  const chat = h.newChat({ 'agent-provider': DEAR, 'agent-tools': 'spawn-agent', 'agent-day-cost-budget': '0.5' }, 'Runaway');
  // The first reply alone costs $0.60 (600 tokens at $1 a thousand) and asks for a sub-agent.
  const s = scriptedModel([
    [...toolCalls(['p1', 'spawn-agent', { task: 'Keep going' }]).slice(0, -1), part.usage(500, 100), part.finish('tool-calls')],
    reply('The sub-agent should not get here.'),
    reply('Nor the parent.'),
  ]);
  const runner = scriptedRunner(h, s.model, [spawnAgentTool]);
  expect(await runner.submit({ kind: 'send', chat, text: 'Work all night.', source: 'heartbeat:x' })).toMatchObject({ status: 'failed' });
  expect(s.requests).toHaveLength(1);
  // The sub-agent's chat ends on the cap line without calling the model; so does the run.
  const [child] = childrenOf(chat);
  expect(errorsOf(child!)[0]).toMatchObject({ 'error-kind': 'budget', 'error-hint': 'spend-cap' });
  const [line] = errorsOf(chat);
  expect(line).toMatchObject({ 'error-kind': 'budget', 'error-hint': 'spend-cap', 'error-tiddler': h.agentOf(chat) });
  expect(line!.text).toMatch(/^This run stopped before its next model call: the chats of ".*" cost \$0\.6000 today, which reaches its cap of \$0\.5000/);
  expect(h.fields(chat)['agent-status']).toBe('failed');

  // The user's own turns are never held back by a cap: Retry of that very run, and a new message, call the model.
  const own = scriptedModel([reply('Retried.'), reply('Here I am.')]);
  const mine = scriptedRunner(h, own.model, [spawnAgentTool]);
  const scheduled = h.messages(chat).find((m) => m.role === 'user')!;
  expect(await mine.submit({ kind: 'retry', chat, message: scheduled.title! })).toMatchObject({ status: 'completed' });
  expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Retried.' });
  await mine.submit({ kind: 'send', chat, text: 'Are you there?' });
  expect(own.requests).toHaveLength(2);
  expect(h.messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Here I am.' });
});
