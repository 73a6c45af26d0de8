// What the chat's line about a tool call is made from, against a real TiddlyWiki: a listing
// tool's message records the tiddlers its result listed (`tool-titles`) and how many it found
// (`tool-found`), never a hidden one; and the context meter says what the next prompt would
// hold after the chat changed outside a turn (every turn deleted, another version shown).
import type { AgentEvent } from '../../../src/agent/engine/events';
import type { ContextUsage } from '../../../src/agent/engine/context';
import { wikiListTool, wikiSearchTool } from '../../../src/agent/tools/wiki-read-tools';
import { bootEngineWiki, disposeRunners, listen, reply, scriptedModel, scriptedRunner, toolCalls, within, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
  for (const title of ['Quince jam', 'Quince tart', 'Quince tree', 'Apple pie'])
    h.$tw.wiki.addTiddler({ title, text: `${title}: notes about the ${title.split(' ')[0]!.toLowerCase()}.` });
  // Hidden from the agent: a chat and a $:/ai tiddler that hold the word too.
  h.$tw.wiki.addTiddler({ title: 'Quince chat', agent: 'Someone', text: 'quince' });
  h.$tw.wiki.addTiddler({ title: '$:/ai/quince secret', text: 'quince' });
});
afterEach(() => disposeRunners());

const parse = (list: string | undefined) => h.$tw.utils.parseStringArray(list ?? '') as string[];

test('a search records the tiddlers it listed and how many it found, none of them hidden', async () => {
  const chat = h.newChat({ 'agent-tools': 'wiki-search wiki-list' });
  const model = scriptedModel([
    toolCalls(['s1', 'wiki-search', { query: 'quince' }]),
    toolCalls(['s2', 'wiki-list', { filter: '[prefix[Quince]] [prefix[$:/ai/]]', limit: 2 }]),
    reply('Three quince notes.'),
  ]);
  const runner = scriptedRunner(h, model.model, [wikiSearchTool, wikiListTool]);
  expect(await within(runner.submit({ kind: 'send', chat, text: 'Find quince' }), 'the turn')).toEqual({ status: 'completed' });
  const [search, list] = h.messages(chat).filter((m) => m.role === 'tool');
  expect(parse(search!['tool-titles']).sort()).toEqual(['Quince jam', 'Quince tart', 'Quince tree']);
  expect(search!['tool-found']).toBe('3');
  // Paged: the page's titles are listed, the count is of all it found; the hidden ones are in neither.
  expect(parse(list!['tool-titles'])).toEqual(['Quince jam', 'Quince tart']);
  expect(list!['tool-found']).toBe('3');
  for (const m of [search!, list!]) expect(m['tool-titles']).not.toMatch(/chat|\$:\/ai/);
});

test('a tool that lists nothing records no titles', async () => {
  const chat = h.newChat({ 'agent-tools': 'wiki-search' });
  const model = scriptedModel([toolCalls(['s1', 'wiki-search', { query: 'zzzzz' }]), reply('Nothing.')]);
  const runner = scriptedRunner(h, model.model, [wikiSearchTool]);
  await within(runner.submit({ kind: 'send', chat, text: 'Find zzzzz' }), 'the turn');
  const tool = h.messages(chat).find((m) => m.role === 'tool')!;
  expect(tool['tool-titles']).toBe('');
  expect(tool['tool-found']).toBe('0');
});

/** The next 'context' event of a chat: the meter's figures. */
const nextUsage = (events: ReturnType<typeof listen>, what: string) =>
  events.next((e: AgentEvent) => e.type === 'context', what).then((e) => (e as Extract<AgentEvent, { type: 'context' }>).usage as ContextUsage);

test('after every turn is deleted, the meter counts the system prompt and the tools, and no history', async () => {
  const chat = h.newChat({ 'agent-tools': 'wiki-search' });
  const runner = scriptedRunner(h, scriptedModel([reply('First answer, with some words.'), reply('Second answer, with more words.')]).model, [wikiSearchTool]);
  const events = listen(runner, chat);
  await within(runner.submit({ kind: 'send', chat, text: 'A first question about quinces' }), 'turn 1');
  await within(runner.submit({ kind: 'send', chat, text: 'A second question about quinces' }), 'turn 2');
  const last = events.of('context').at(-1)!.usage;
  expect(last.history).toBeGreaterThan(0);
  for (const user of h
    .messages(chat)
    .filter((m) => m.role === 'user')
    .reverse()) {
    const usage = nextUsage(events, 'the meter after a delete');
    await runner.submit({ kind: 'delete-turn', chat, message: user.title! });
    await usage;
  }
  const usage = events.of('context').at(-1)!.usage;
  expect(usage).toMatchObject({ history: 0, system: last.system, tools: last.tools, total: last.system + last.tools + last.transient });
  // Stored in the chat: a page that opens it shows the same.
  expect(JSON.parse(h.fields(chat)['agent-context-usage']!)).toEqual(usage);
});

test('after another version is shown, the meter counts that version', async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, scriptedModel([reply(`A long answer: ${'word '.repeat(400)}`), reply('Short.')]).model, []);
  const events = listen(runner, chat);
  await within(runner.submit({ kind: 'send', chat, text: 'Question' }), 'turn 1');
  await within(runner.submit({ kind: 'retry', chat, message: h.messages(chat)[0]!.title! }), 'the retry');
  // The retry parked the long answer: a fork at its reply.
  const fork = runner.branches.forks(chat).get(1)!;
  const long = fork.versions.find((v) => v !== fork.active)!;
  let next = nextUsage(events, 'the meter after the switch');
  await within(runner.submit({ kind: 'switch-branch', chat, at: 1, version: long }), 'the switch');
  const withLong = await next;
  expect(withLong.history).toBeGreaterThan(400);
  next = nextUsage(events, 'the meter after switching back');
  await within(runner.submit({ kind: 'switch-branch', chat, at: 1, version: fork.active! }), 'the switch back');
  expect((await next).history).toBeLessThan(withLong.history - 300);
});
