// Memory you review, from sub-agents (issue 27, item 2): a fact the `remember` tool proposes inside
// a sub-agent's (hidden) chat waits for review in the user's chat that spawned it, as the chat's
// own proposals do, and not under any other chat. A real TiddlyWiki, a real LocalRunner with
// spawn-agent and remember, a scripted model; the review list rendered as the chat shows it.
import { spawnAgentTool } from '../../src/agent/tools/spawn-agent';
import { bootEngineWiki, disposeRunners, reply, scriptedModel, scriptedRunner, toolCalls, type Harness } from './engine/harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});
afterAll(() => disposeRunners());

const review = (chat: string) =>
  h.$tw.wiki.renderText('text/html', 'text/vnd.tiddlywiki', '{{||$:/plugins/tiddlyagent/agent/ui/templates/memory-review}}', {
    parentWidget: undefined,
    variables: { currentTiddler: chat },
  });
const childrenOf = (chat: string) => h.$tw.wiki.filterTiddlers(`[field:agent-parent[${chat}]]`) as string[];

test("a sub-agent's memory proposal waits for review in the chat that spawned it (two levels down too)", async () => {
  const s = scriptedModel([
    toolCalls(['p1', 'spawn-agent', { task: 'Find out about the user' }]),
    toolCalls(['c1', 'spawn-agent', { task: 'Look deeper' }]),
    toolCalls(['g1', 'remember', { fact: 'The user keeps bees.' }]),
    reply('Grandchild done.'),
    toolCalls(['c2', 'remember', { fact: 'The user lives in Leeds.' }]),
    reply('Child done.'),
    reply('Parent done.'),
  ]);
  const runner = scriptedRunner(h, s.model, [spawnAgentTool, h.lib.rememberTool]);
  const chat = h.newChat({ 'agent-tools': 'spawn-agent remember' }, 'Spawner');
  const other = h.newChat({ 'agent-tools': 'remember' }, 'Bystander');
  expect(await runner.submit({ kind: 'send', chat, text: 'Learn about me.' })).toEqual({ status: 'completed' });
  const [child] = childrenOf(chat);
  const [grandchild] = childrenOf(child!);
  expect(grandchild).toBeDefined();

  // Both proposals came from the hidden chats and wait for review.
  const proposals = h.$tw.wiki.filterTiddlers('[all[tiddlers]tag[$:/tags/AI/Memory]field:memory-status[proposed]]') as string[];
  expect(proposals.map((t) => h.fields(t).text).sort()).toEqual(['The user keeps bees.', 'The user lives in Leeds.']);
  expect(proposals.map((t) => h.fields(h.fields(t)['memory-source']!)['agent-chat']).sort()).toEqual([child, grandchild].sort());

  // The user's chat shows both, with Accept; the sub-agent's own chat shows its own; another chat none.
  const list = review(chat);
  expect(list).toContain('tc-ai-memory-review');
  expect(list).toContain('The user keeps bees.');
  expect(list).toContain('The user lives in Leeds.');
  expect(list.match(/tc-ai-memory-accept"/g)).toHaveLength(2);
  expect(review(child!)).toContain('The user keeps bees.');
  expect(review(grandchild!)).not.toContain('Leeds');
  expect(review(other)).not.toContain('tc-ai-memory-review');
});
