// Sub-agents in the server edition: spawn-agent runs a task in a hidden child chat and its
// answer comes back as the tool result; Stop on the parent cancels every running child; the
// depth and concurrency limits are tool errors, and nothing is created past them.
import fs from 'node:fs';
import path from 'node:path';
import {
  chatStatus,
  getTiddler,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  tiddlerFiles,
  until,
  writeChat,
  type MockLlm,
  type TwServer,
} from '../helpers/server';

jest.setTimeout(40_000);

let mock: MockLlm;
let server: TwServer;
let dir: string;

const children = (parent: string) => [...tiddlerFiles(dir).tiddlers.values()].filter((t) => t['agent-parent'] === parent);
const status = (chat: string) => chatStatus(server.url, chat);

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  fs.writeFileSync(
    path.join(dir, 'tiddlers', 'delegator.tid'),
    'title: $:/demo/agents/delegator\ntags: $:/tags/AI/Agent\nagent-provider: $:/demo/providers/mock-llm\nagent-tools: spawn-agent wiki-search\nagent-spawn-depth: 1\nagent-spawn-concurrency: 2\n\nYou delegate.',
  );
  for (const chat of ['Parent chat', 'Stop chat']) writeChat(dir, chat, { agent: '$:/demo/agents/delegator' });
  server = await startServer(dir);
});

afterAll(async () => {
  await server?.stop();
  await mock?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("a spawned sub-agent's answer reaches the parent; the child is a hidden chat the card links to; a grandchild past the depth limit is refused", async () => {
  const chat = 'Parent chat';
  // The child's own task asks it to spawn again: with agent-spawn-depth 1 that is refused in the child.
  const task = 'Report back. mock:tool=spawn-agent {"task":"grandchild work"}';
  expect((await post(server.url, 'send', { chat, text: `mock:tool=spawn-agent ${JSON.stringify({ task })}` })).status).toBe(202);
  await until('the parent to complete', async () => (await status(chat)) === 'completed');

  const [child, ...more] = children(chat);
  expect(more).toEqual([]);
  expect(child).toMatchObject({ 'agent-parent': chat, 'agent-hidden': 'yes', agent: '$:/demo/agents/delegator', 'agent-status': 'completed' });
  expect(child!.title).toMatch(/^\$:\/ai\/sub-agents\/Parent chat\//);
  // In the child: the task, its refused spawn (a tool error naming the limit), and its answer.
  const inChild = savedMessages(dir, child!.title!);
  expect(inChild[0]).toMatchObject({ role: 'user', text: task });
  const refused = inChild.find((m) => m.role === 'tool')!;
  expect(refused['tool-status']).toBe('error');
  expect(refused.text).toMatch(/nest at most 1 deep/);
  expect(children(child!.title!)).toEqual([]);
  const childAnswer = inChild.at(-1)!;
  expect(childAnswer.role).toBe('assistant');

  // In the parent: the call's result is the child's final answer, and names the child chat.
  const result = savedMessages(dir, chat).find((m) => m.role === 'tool')!;
  expect(result).toMatchObject({ 'tool-name': 'spawn-agent', 'tool-status': 'ok', 'agent-child': child!.title });
  expect(result.text).toContain(childAnswer.text!);
  expect(savedMessages(dir, chat).at(-1)!.role).toBe('assistant');
});

test('Stop on the parent cancels its running children; a spawn past the concurrency limit is refused', async () => {
  const chat = 'Stop chat';
  // One reply, three spawns: two children stall mid-reply, the third is over agent-spawn-concurrency 2.
  mock.queue({ toolCalls: [1, 2, 3].map((n) => ({ name: 'spawn-agent', arguments: { task: `Child ${n} mock:stall` } })) });
  expect((await post(server.url, 'send', { chat, text: 'Delegate three things' })).status).toBe(202);
  await until('two children working', async () => {
    const list = children(chat);
    return list.length === 2 && (await Promise.all(list.map((c) => status(c.title!)))).every((s) => s === 'working');
  });
  expect((await post(server.url, 'stop', { chat })).status).toBe(200);
  await until('the parent canceled', async () => (await status(chat)) === 'canceled');
  for (const child of children(chat)) {
    await until(`${child.title} canceled`, async () => (await status(child.title!)) === 'canceled');
  }
  const results = savedMessages(dir, chat).filter((m) => m.role === 'tool');
  const overLimit = results.find((m) => /At most 2 sub-agents run at once/.test(m.text ?? ''));
  expect(overLimit?.['tool-status']).toBe('error');
  expect(children(chat)).toHaveLength(2);
  expect(await getTiddler(server.url, chat)).toMatchObject({ 'agent-status': 'canceled' });
});
