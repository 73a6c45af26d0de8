// The write tools on a booted TiddlyWiki: the write guard (write filter, drafts, the
// `modified` the agent read), atomic wiki-edit, rename and delete, and turn rollback from the
// journal (exact restore, conflict detection).
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolContext, ToolDefinition } from '../../src/agent/tools/tool';
import type { StreamPart } from '../../src/agent/providers/types';

let $tw: TW;
let lib: ReturnType<typeof agentLib>;
let tools: Map<string, ToolDefinition>;

const NOTE = { title: 'Garden plan', text: 'Plant tomatoes in May.\nWater the beans daily.\nWater the beans daily.', tags: 'Garden [[Spring work]]', priority: 'high', created: '20260101000000000', modified: '20260102000000000' };

beforeAll(async () => {
  $tw = await bootWiki([
    NOTE,
    { title: 'Shopping', text: 'Milk, bread', modified: '20260103000000000' },
    { title: 'Projects/Alpha', text: 'Alpha project', modified: '20260104000000000' },
    { title: 'Index', text: 'Links', list: 'Shopping [[Garden plan]]', modified: '20260105000000000' },
    { title: 'Draft of \'Shopping\'', 'draft.of': 'Shopping', 'draft.title': 'Shopping', text: 'Milk, bread, eggs' },
    { title: '$:/config/Something', text: 'system' },
    { title: 'A chat', agent: 'x', 'agent-status': 'idle' },
  ]);
  lib = agentLib($tw);
  tools = new Map(lib.WIKI_WRITE_TOOLS.map((t) => [t.name, t]));
});

function context(turn: string, agent: Record<string, unknown> = {}): ToolContext {
  return lib.createToolContext(lib.createTiddlyWikiPort($tw.wiki), { chat: 'A chat', agent: agent as ToolContext['agent'], signal: new AbortController().signal, turn });
}

async function call(name: string, args: unknown, ctx: ToolContext) {
  const tool = tools.get(name)!;
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) throw new Error(`bad args for ${name}: ${JSON.stringify(parsed.error.issues)}`);
  return tool.execute(parsed.data, ctx);
}

const fields = (title: string) => $tw.wiki.getTiddler(title)?.getFieldStrings() as Record<string, string> | undefined;

test('writes outside the agent-write-filter, to system tiddlers, chats or open drafts are refused', async () => {
  const ctx = context('$:/ai/messages/A chat/000000', { 'agent-write-filter': '[prefix[Projects/]]' });
  const outside = await call('wiki-create', { title: 'Elsewhere', text: 'x' }, ctx);
  expect(outside.ok).toBe(false);
  expect(outside.content).toContain('agent-write-filter');
  expect($tw.wiki.tiddlerExists('Elsewhere')).toBe(false);
  const inside = await call('wiki-create', { title: 'Projects/Beta', text: 'Beta' }, ctx);
  expect(inside.ok).not.toBe(false);
  expect($tw.wiki.getTiddlerText('Projects/Beta')).toBe('Beta');

  const defaults = context('$:/ai/messages/A chat/000000');
  expect((await call('wiki-update', { title: '$:/config/Something', modified: '', text: 'hacked' }, defaults)).ok).toBe(false);
  expect($tw.wiki.getTiddlerText('$:/config/Something')).toBe('system');
  expect((await call('wiki-update', { title: 'A chat', modified: '', text: 'hacked' }, defaults)).ok).toBe(false);
  const draft = await call('wiki-update', { title: 'Shopping', modified: '20260103000000000', text: 'Milk' }, defaults);
  expect(draft.ok).toBe(false);
  expect(draft.content).toContain('open in an editor');
  expect($tw.wiki.getTiddlerText('Shopping')).toBe('Milk, bread');
});

test('a write with a stale `modified` is refused and points the agent at the current text', async () => {
  const ctx = context('$:/ai/messages/A chat/000000');
  const stale = await call('wiki-edit', { title: 'Garden plan', modified: '20250101000000000', edits: [{ find: 'May', replace: 'June' }] }, ctx);
  expect(stale.ok).toBe(false);
  expect(stale.content).toContain('changed since you read it');
  expect(stale.currentTiddler).toBe('Garden plan');
  expect($tw.wiki.getTiddlerText('Garden plan')).toBe(NOTE.text);
});

test('wiki-edit applies several exact snippets atomically; a missing, ambiguous or overlapping one changes nothing', async () => {
  const ctx = context('$:/ai/messages/A chat/000000');
  const ambiguous = await call('wiki-edit', { title: 'Garden plan', modified: NOTE.modified, edits: [{ find: 'tomatoes', replace: 'peppers' }, { find: 'Water the beans daily.', replace: 'x' }] }, ctx);
  expect(ambiguous.ok).toBe(false);
  expect(ambiguous.content).toContain('Edit #2');
  expect(ambiguous.content).toContain('more than once');
  const missing = await call('wiki-edit', { title: 'Garden plan', modified: NOTE.modified, edits: [{ find: 'cucumbers', replace: 'x' }] }, ctx);
  expect(missing.content).toContain('not found');
  const overlap = await call('wiki-edit', { title: 'Garden plan', modified: NOTE.modified, edits: [{ find: 'Plant tomatoes', replace: 'a' }, { find: 'tomatoes in', replace: 'b' }] }, ctx);
  expect(overlap.content).toContain('overlap');
  expect(fields('Garden plan')).toEqual(NOTE); // every field untouched

  const ok = await call('wiki-edit', { title: 'Shopping', modified: '20260103000000000', edits: [{ find: 'Milk', replace: 'Oat milk' }] }, context('$:/ai/messages/A chat/000001'));
  // Shopping is open as a draft: still refused, whatever the snippets
  expect(ok.ok).toBe(false);
});

test('rollback after three tool writes restores the exact previous tiddlers, field by field', async () => {
  const turn = '$:/ai/messages/A chat/000010';
  const ctx = context(turn);
  const before = { garden: fields('Garden plan'), index: fields('Index'), alpha: fields('Projects/Alpha') };
  expect((await call('wiki-edit', { title: 'Garden plan', modified: NOTE.modified, edits: [{ find: 'Plant tomatoes in May.', replace: 'Plant tomatoes in June.' }] }, ctx)).ok).not.toBe(false);
  expect((await call('wiki-update', { title: 'Projects/Alpha', modified: '20260104000000000', text: 'Alpha, rewritten', tags: ['Work'], fields: { owner: 'me' } }, ctx)).ok).not.toBe(false);
  expect((await call('wiki-create', { title: 'Harvest log', text: 'Nothing yet' }, ctx)).ok).not.toBe(false);
  // a second change to the same tiddler keeps the first before-image
  const edited = fields('Garden plan')!;
  expect((await call('wiki-update', { title: 'Garden plan', modified: edited.modified, fields: { priority: 'low' } }, ctx)).ok).not.toBe(false);

  const runner = new lib.LocalRunner({ wiki: lib.createTiddlyWikiPort($tw.wiki), fetch: () => Promise.reject(new Error('none')), getApiKey: () => undefined, keyHint: '', tools });
  const result = await runner.rollback('A chat', turn);
  expect(result.conflicts).toEqual([]);
  expect(result.restored.sort()).toEqual(['Garden plan', 'Harvest log', 'Projects/Alpha']);
  expect(fields('Garden plan')).toEqual(before.garden);
  expect(fields('Projects/Alpha')).toEqual(before.alpha);
  expect(fields('Index')).toEqual(before.index);
  expect($tw.wiki.tiddlerExists('Harvest log')).toBe(false);
});

test('rollback after the user edited a changed tiddler asks first, and restores when told to', async () => {
  const turn = '$:/ai/messages/A chat/000020';
  const ctx = context(turn);
  const before = fields('Projects/Alpha')!;
  await call('wiki-update', { title: 'Projects/Alpha', modified: before.modified, text: 'Agent text' }, ctx);
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('Projects/Alpha'), { text: 'The user edited this afterwards' }));
  const runner = new lib.LocalRunner({ wiki: lib.createTiddlyWikiPort($tw.wiki), fetch: () => Promise.reject(new Error('none')), getApiKey: () => undefined, keyHint: '', tools });
  const asked = await runner.rollback('A chat', turn);
  expect(asked.conflicts).toEqual(['Projects/Alpha']);
  expect(asked.restored).toEqual([]);
  expect($tw.wiki.getTiddlerText('Projects/Alpha')).toBe('The user edited this afterwards');
  const forced = await runner.rollback('A chat', turn, true);
  expect(forced.restored).toEqual(['Projects/Alpha']);
  expect(fields('Projects/Alpha')).toEqual(before);
});

test('a tiddler that came back from the server (revision, bag, type) is no conflict: only a user\'s change is', async () => {
  const turn = '$:/ai/messages/A chat/000040';
  const ctx = context(turn);
  await call('wiki-create', { title: 'Synced note', text: 'Written by the agent' }, ctx);
  // What the syncer does after a reload of a served wiki: the same tiddler with bookkeeping.
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('Synced note'), { revision: '7', bag: 'default', type: 'text/vnd.tiddlywiki' }));
  const runner = new lib.LocalRunner({ wiki: lib.createTiddlyWikiPort($tw.wiki), fetch: () => Promise.reject(new Error('none')), getApiKey: () => undefined, keyHint: '', tools });
  expect(lib.sameFields({ title: 'a', type: 'text/vnd.tiddlywiki', revision: '1' }, { title: 'a' })).toBe(true);
  expect(lib.sameFields({ title: 'a', type: 'text/plain' }, { title: 'a' })).toBe(false);
  const result = await runner.rollback('A chat', turn);
  expect(result.conflicts).toEqual([]);
  expect($tw.wiki.tiddlerExists('Synced note')).toBe(false);
});

test('rename relinks lists and tags; delete is recoverable by rollback', async () => {
  const turn = '$:/ai/messages/A chat/000030';
  const ctx = context(turn);
  const garden = fields('Garden plan')!;
  const renamed = await call('wiki-rename', { title: 'Garden plan', modified: garden.modified, newTitle: 'Vegetable plan' }, ctx);
  expect(renamed.ok).not.toBe(false);
  expect($tw.wiki.tiddlerExists('Garden plan')).toBe(false);
  expect($tw.wiki.getTiddler('Index').fields.list).toContain('Vegetable plan');
  const deleted = await call('wiki-delete', { title: 'Shopping', modified: '20260103000000000' }, ctx);
  expect(deleted.ok).toBe(false); // open in a draft
  const alpha = fields('Projects/Alpha')!;
  expect((await call('wiki-delete', { title: 'Projects/Alpha', modified: alpha.modified }, ctx)).ok).not.toBe(false);
  expect($tw.wiki.tiddlerExists('Projects/Alpha')).toBe(false);
  const runner = new lib.LocalRunner({ wiki: lib.createTiddlyWikiPort($tw.wiki), fetch: () => Promise.reject(new Error('none')), getApiKey: () => undefined, keyHint: '', tools });
  expect((await runner.rollback('A chat', turn)).conflicts).toEqual([]);
  expect(fields('Garden plan')).toEqual(garden);
  expect(fields('Projects/Alpha')).toEqual(alpha);
  expect($tw.wiki.tiddlerExists('Vegetable plan')).toBe(false);
  expect($tw.wiki.getTiddler('Index').fields.list).toEqual(['Shopping', 'Garden plan']);
});

test('in a turn, a refused write puts the tiddler\'s current text into the next prompt', async () => {
  $tw.wiki.addTiddler({ title: 'Conflict note', text: 'Original text', modified: '20260201000000000' });
  $tw.wiki.addTiddler({ title: 'Writer agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Writer provider', 'agent-tools': 'wiki-edit', 'agent-approval': '{"wiki-edit": {"mode": "auto"}}' });
  $tw.wiki.addTiddler({ title: 'Writer provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1', 'default-model': 'm' });
  $tw.wiki.addTiddler({ title: 'Writer chat', agent: 'Writer agent', 'agent-status': 'idle' });
  // The user changes the tiddler after the agent read it (modified …201… → now).
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('Conflict note'), { text: 'The user rewrote this', modified: new Date() }));
  const requests: { messages: { role: string; content: string }[] }[] = [];
  const steps: StreamPart[][] = [
    [{ type: 'tool-call', index: 0, id: 'c1', name: 'wiki-edit', args: { title: 'Conflict note', modified: '20260201000000000', edits: [{ find: 'Original', replace: 'Better' }] } }, { type: 'finish', reason: 'tool-calls' }],
    [{ type: 'text-delta', text: 'I see the new text.' }, { type: 'finish', reason: 'stop' }],
  ];
  const runner = new lib.LocalRunner({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: () => Promise.reject(new Error('none')),
    getApiKey: () => undefined,
    keyHint: '',
    tools,
    createModel: () => ({
      api: 'scripted',
      async *stream(request) {
        requests.push(JSON.parse(JSON.stringify(request)));
        for (const p of steps[requests.length - 1]!) yield p;
      },
    }),
  });
  const result = await runner.send('Writer chat', 'Improve the note');
  expect(result.status).toBe('completed');
  expect($tw.wiki.getTiddlerText('Conflict note')).toBe('The user rewrote this');
  const second = requests[1]!.messages;
  const toolResult = second.find((m) => m.role === 'tool')!;
  expect(toolResult.content).toContain('changed since you read it');
  const current = second.find((m) => m.role === 'system' && m.content.startsWith('Current tiddler'))!;
  expect(current.content).toContain('The user rewrote this');
  expect(current.content).toContain('untrusted data');
  // The section sits right before the newest user message (the turn's request).
  expect(second[second.indexOf(current) + 1]).toMatchObject({ role: 'user', content: 'Improve the note' });
});
