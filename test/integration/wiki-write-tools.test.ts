// The write tools on a booted TiddlyWiki: the write guard (write filter, drafts), the version
// the agent read (every field and the text, not only `modified`), atomic wiki-edit, rename and
// delete, and turn rollback from the journal (exact restore, conflict detection).
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolContext, ToolDefinition } from '../../src/agent/tools/tool';
import type { StreamPart } from '../../src/agent/providers/types';

let $tw: TW;
let lib: ReturnType<typeof agentLib>;
let tools: Map<string, ToolDefinition>;
let readTool: ToolDefinition;

const NOTE = {
  title: 'Garden plan',
  text: 'Plant tomatoes in May.\nWater the beans daily.\nWater the beans daily.',
  tags: 'Garden [[Spring work]]',
  priority: 'high',
  created: '20260101000000000',
  modified: '20260102000000000',
};

beforeAll(async () => {
  $tw = await bootWiki([
    NOTE,
    { title: 'Shopping', text: 'Milk, bread', modified: '20260103000000000' },
    { title: 'Projects/Alpha', text: 'Alpha project', modified: '20260104000000000' },
    { title: 'Index', text: 'Links', list: 'Shopping [[Garden plan]]', modified: '20260105000000000' },
    { title: "Draft of 'Shopping'", 'draft.of': 'Shopping', 'draft.title': 'Shopping', text: 'Milk, bread, eggs' },
    { title: '$:/config/Something', text: 'system' },
    { title: 'A chat', agent: 'x', 'agent-status': 'idle' },
  ]);
  lib = agentLib($tw);
  tools = new Map(lib.WIKI_WRITE_TOOLS.map((t) => [t.name, t]));
  readTool = lib.WIKI_READ_TOOLS.find((t) => t.name === 'wiki-read')!;
});

/** A call's context; its ledger of reads is kept by `call` as the engine keeps a chat's (the latest result wins). */
function context(turn: string, agent: Record<string, unknown> = {}): ToolContext & { reads: Map<string, string> } {
  const reads = new Map<string, string>();
  return {
    ...lib.createToolContext(lib.createTiddlyWikiPort($tw.wiki), {
      chat: 'A chat',
      agent: agent as ToolContext['agent'],
      signal: new AbortController().signal,
      turn,
      reads,
    }),
    reads,
  };
}

async function call(name: string, args: unknown, ctx: ToolContext & { reads: Map<string, string> }) {
  const tool = name === 'wiki-read' ? readTool : tools.get(name)!;
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) throw new Error(`bad args for ${name}: ${JSON.stringify(parsed.error.issues)}`);
  const output = await tool.execute(parsed.data, ctx);
  for (const [title, version] of Object.entries(output.read ?? {})) ctx.reads.set(title, version);
  return output;
}

/** The agent reads tiddlers (wiki-read), as it must before it writes them. */
async function read(ctx: ToolContext & { reads: Map<string, string> }, ...titles: string[]) {
  for (const title of titles) expect((await call('wiki-read', { title }, ctx)).ok).not.toBe(false);
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
  await read(ctx, 'Garden plan');
  const stale = await call('wiki-edit', { title: 'Garden plan', modified: '20250101000000000', edits: [{ find: 'May', replace: 'June' }] }, ctx);
  expect(stale.ok).toBe(false);
  expect(stale.content).toContain('changed since you read it');
  expect(stale.currentTiddler).toBe('Garden plan');
  expect($tw.wiki.getTiddlerText('Garden plan')).toBe(NOTE.text);
});

test('wiki-edit applies several exact snippets atomically; a missing, ambiguous or overlapping one changes nothing', async () => {
  const ctx = context('$:/ai/messages/A chat/000000');
  await read(ctx, 'Garden plan');
  const ambiguous = await call(
    'wiki-edit',
    {
      title: 'Garden plan',
      modified: NOTE.modified,
      edits: [
        { find: 'tomatoes', replace: 'peppers' },
        { find: 'Water the beans daily.', replace: 'x' },
      ],
    },
    ctx,
  );
  expect(ambiguous.ok).toBe(false);
  expect(ambiguous.content).toContain('Edit #2');
  expect(ambiguous.content).toContain('more than once');
  const missing = await call('wiki-edit', { title: 'Garden plan', modified: NOTE.modified, edits: [{ find: 'cucumbers', replace: 'x' }] }, ctx);
  expect(missing.content).toContain('not found');
  const overlap = await call(
    'wiki-edit',
    {
      title: 'Garden plan',
      modified: NOTE.modified,
      edits: [
        { find: 'Plant tomatoes', replace: 'a' },
        { find: 'tomatoes in', replace: 'b' },
      ],
    },
    ctx,
  );
  expect(overlap.content).toContain('overlap');
  expect(fields('Garden plan')).toEqual(NOTE); // every field untouched

  const ok = await call(
    'wiki-edit',
    { title: 'Shopping', modified: '20260103000000000', edits: [{ find: 'Milk', replace: 'Oat milk' }] },
    context('$:/ai/messages/A chat/000001'),
  );
  // Shopping is open as a draft: still refused, whatever the snippets
  expect(ok.ok).toBe(false);
});

test('rollback after three tool writes restores the exact previous tiddlers, field by field', async () => {
  const turn = '$:/ai/messages/A chat/000010';
  const ctx = context(turn);
  const before = { garden: fields('Garden plan'), index: fields('Index'), alpha: fields('Projects/Alpha') };
  await read(ctx, 'Garden plan', 'Projects/Alpha');
  expect(
    (
      await call(
        'wiki-edit',
        { title: 'Garden plan', modified: NOTE.modified, edits: [{ find: 'Plant tomatoes in May.', replace: 'Plant tomatoes in June.' }] },
        ctx,
      )
    ).ok,
  ).not.toBe(false);
  expect(
    (
      await call(
        'wiki-update',
        { title: 'Projects/Alpha', modified: '20260104000000000', text: 'Alpha, rewritten', tags: ['Work'], fields: { owner: 'me' } },
        ctx,
      )
    ).ok,
  ).not.toBe(false);
  expect((await call('wiki-create', { title: 'Harvest log', text: 'Nothing yet' }, ctx)).ok).not.toBe(false);
  // a second change to the same tiddler keeps the first before-image (its own write counts as read)
  const edited = fields('Garden plan')!;
  expect((await call('wiki-update', { title: 'Garden plan', modified: edited.modified, fields: { priority: 'low' } }, ctx)).ok).not.toBe(false);

  const runner = new lib.LocalRunner({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: () => Promise.reject(new Error('none')),
    getApiKey: () => undefined,
    keyHint: '',
    tools,
  });
  const result = await runner.submit({ kind: 'rollback', chat: 'A chat', message: turn });
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
  await read(ctx, 'Projects/Alpha');
  await call('wiki-update', { title: 'Projects/Alpha', modified: before.modified, text: 'Agent text' }, ctx);
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('Projects/Alpha'), { text: 'The user edited this afterwards' }));
  const runner = new lib.LocalRunner({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: () => Promise.reject(new Error('none')),
    getApiKey: () => undefined,
    keyHint: '',
    tools,
  });
  const asked = await runner.submit({ kind: 'rollback', chat: 'A chat', message: turn });
  expect(asked.conflicts).toEqual(['Projects/Alpha']);
  expect(asked.restored).toEqual([]);
  expect($tw.wiki.getTiddlerText('Projects/Alpha')).toBe('The user edited this afterwards');
  const forced = await runner.submit({ kind: 'rollback', chat: 'A chat', message: turn, force: true });
  expect(forced.restored).toEqual(['Projects/Alpha']);
  expect(fields('Projects/Alpha')).toEqual(before);
});

test("a tiddler that came back from the server (revision, bag, type) is no conflict: only a user's change is", async () => {
  const turn = '$:/ai/messages/A chat/000040';
  const ctx = context(turn);
  await call('wiki-create', { title: 'Synced note', text: 'Written by the agent' }, ctx);
  // What the syncer does after a reload of a served wiki: the same tiddler with bookkeeping.
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('Synced note'), { revision: '7', bag: 'default', type: 'text/vnd.tiddlywiki' }));
  const runner = new lib.LocalRunner({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: () => Promise.reject(new Error('none')),
    getApiKey: () => undefined,
    keyHint: '',
    tools,
  });
  expect(lib.sameFields({ title: 'a', type: 'text/vnd.tiddlywiki', revision: '1' }, { title: 'a' })).toBe(true);
  expect(lib.sameFields({ title: 'a', type: 'text/plain' }, { title: 'a' })).toBe(false);
  const result = await runner.submit({ kind: 'rollback', chat: 'A chat', message: turn });
  expect(result.conflicts).toEqual([]);
  expect($tw.wiki.tiddlerExists('Synced note')).toBe(false);
});

test('rename relinks lists and tags; delete is recoverable by rollback', async () => {
  const turn = '$:/ai/messages/A chat/000030';
  const ctx = context(turn);
  const garden = fields('Garden plan')!;
  await read(ctx, 'Garden plan', 'Projects/Alpha');
  const renamed = await call('wiki-rename', { title: 'Garden plan', modified: garden.modified, newTitle: 'Vegetable plan' }, ctx);
  expect(renamed.ok).not.toBe(false);
  expect($tw.wiki.tiddlerExists('Garden plan')).toBe(false);
  expect($tw.wiki.getTiddler('Index').fields.list).toContain('Vegetable plan');
  const deleted = await call('wiki-delete', { title: 'Shopping', modified: '20260103000000000' }, ctx);
  expect(deleted.ok).toBe(false); // open in a draft
  const alpha = fields('Projects/Alpha')!;
  expect((await call('wiki-delete', { title: 'Projects/Alpha', modified: alpha.modified }, ctx)).ok).not.toBe(false);
  expect($tw.wiki.tiddlerExists('Projects/Alpha')).toBe(false);
  const runner = new lib.LocalRunner({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: () => Promise.reject(new Error('none')),
    getApiKey: () => undefined,
    keyHint: '',
    tools,
  });
  expect((await runner.submit({ kind: 'rollback', chat: 'A chat', message: turn })).conflicts).toEqual([]);
  expect(fields('Garden plan')).toEqual(garden);
  expect(fields('Projects/Alpha')).toEqual(alpha);
  expect($tw.wiki.tiddlerExists('Vegetable plan')).toBe(false);
  expect($tw.wiki.getTiddler('Index').fields.list).toEqual(['Shopping', 'Garden plan']);
});

test("in a turn, a refused write puts the tiddler's current text into the next prompt", async () => {
  $tw.wiki.addTiddler({ title: 'Conflict note', text: 'Original text', modified: '20260201000000000' });
  $tw.wiki.addTiddler({
    title: 'Writer agent',
    tags: '$:/tags/AI/Agent',
    'agent-provider': 'Writer provider',
    'agent-tools': 'wiki-read wiki-edit',
    'agent-approval': '{"wiki-edit": {"mode": "auto"}}',
  });
  $tw.wiki.addTiddler({ title: 'Writer provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1', 'default-model': 'm' });
  $tw.wiki.addTiddler({ title: 'Writer chat', agent: 'Writer agent', 'agent-status': 'idle' });
  const requests: { messages: { role: string; content: string }[] }[] = [];
  const steps: StreamPart[][] = [
    [
      { type: 'tool-call', index: 0, id: 'r1', name: 'wiki-read', args: { title: 'Conflict note' } },
      { type: 'finish', reason: 'tool-calls' },
    ],
    [
      {
        type: 'tool-call',
        index: 0,
        id: 'c1',
        name: 'wiki-edit',
        args: { title: 'Conflict note', modified: '20260201000000000', edits: [{ find: 'Original', replace: 'Better' }] },
      },
      { type: 'finish', reason: 'tool-calls' },
    ],
    [
      { type: 'text-delta', text: 'I see the new text.' },
      { type: 'finish', reason: 'stop' },
    ],
  ];
  const runner = new lib.LocalRunner({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: () => Promise.reject(new Error('none')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: new Map([...tools, ['wiki-read', readTool]]),
    createModel: () => ({
      api: 'scripted',
      async *stream(request) {
        requests.push(JSON.parse(JSON.stringify(request)));
        // The user changes the tiddler after the agent read it, while its edit is on the way (modified …201… → now).
        if (requests.length === 2)
          $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('Conflict note'), { text: 'The user rewrote this', modified: new Date() }));
        for (const p of steps[requests.length - 1]!) yield p;
      },
    }),
  });
  const result = await runner.submit({ kind: 'send', chat: 'Writer chat', text: 'Improve the note' });
  expect(result.status).toBe('completed');
  expect($tw.wiki.getTiddlerText('Conflict note')).toBe('The user rewrote this');
  const third = requests[2]!.messages;
  const toolResult = third.filter((m) => m.role === 'tool').at(-1)!;
  expect(toolResult.content).toContain('changed since you read it');
  const current = third.find((m) => m.role === 'system' && m.content.startsWith('Current tiddler'))!;
  expect(current.content).toContain('The user rewrote this');
  expect(current.content).toContain('untrusted data');
  // The section sits right before the newest user message (the turn's request).
  expect(third[third.indexOf(current) + 1]).toMatchObject({ role: 'user', content: 'Improve the note' });
});

test('an edit that keeps `modified` (any field, or the text) after the agent read the tiddler: every write is refused and the edit kept', async () => {
  const modified = '20260301000000000';
  const edits: [string, Record<string, string>][] = [
    ['the text', { text: "The user's words" }],
    ['a tag', { tags: 'Mine' }],
    ['a field', { status: 'done' }],
    ['a removed field', { priority: undefined as unknown as string }],
  ];
  for (const [what, change] of edits) {
    const title = `Kept note (${what})`;
    $tw.wiki.addTiddler({ title, text: 'The original words', priority: 'high', created: modified, modified });
    const ctx = context('$:/ai/messages/A chat/000050');
    await read(ctx, title);
    // What `<$action-setfield $timestamp="no" …/>` does: the change lands, `modified` stays.
    $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler(title), change));
    const userVersion = fields(title);
    expect(userVersion!.modified).toBe(modified);
    const writes: [string, unknown][] = [
      ['wiki-update', { title, modified, text: "The agent's words" }],
      ['wiki-edit', { title, modified, edits: [{ find: 'words', replace: 'lines' }] }],
      ['wiki-rename', { title, modified, newTitle: `${title}, renamed` }],
      ['wiki-delete', { title, modified }],
    ];
    for (const [tool, args] of writes) {
      const out = await call(tool, args, ctx);
      expect([what, tool, out.ok]).toEqual([what, tool, false]);
      expect(out.content).toContain(`"${title}" changed since you read it`);
      expect(out.currentTiddler).toBe(title);
      expect(fields(title)).toEqual(userVersion);
    }
    expect($tw.wiki.tiddlerExists(`${title}, renamed`)).toBe(false);
    // Read again: now the agent writes over the version it has seen.
    await read(ctx, title);
    expect((await call('wiki-edit', { title, modified, edits: [{ find: 'words', replace: 'lines' }] }, ctx)).ok).not.toBe(false);
  }
});

test('a tiddler the agent has not read cannot be written; a new one needs no read, and what the agent wrote counts as read', async () => {
  $tw.wiki.addTiddler({ title: 'Unread note', text: 'Never shown to the agent', modified: '20260301000000000' });
  const ctx = context('$:/ai/messages/A chat/000060');
  for (const [tool, args] of [
    ['wiki-update', { title: 'Unread note', modified: '20260301000000000', text: 'x' }],
    ['wiki-edit', { title: 'Unread note', modified: '20260301000000000', edits: [{ find: 'Never', replace: 'Now' }] }],
    ['wiki-rename', { title: 'Unread note', modified: '20260301000000000', newTitle: 'Read note' }],
    ['wiki-delete', { title: 'Unread note', modified: '20260301000000000' }],
  ] as [string, unknown][]) {
    const out = await call(tool, args, ctx);
    expect(out.ok).toBe(false);
    expect(out.content).toContain('You have not read "Unread note" in this chat');
    expect(out.currentTiddler).toBe('Unread note');
  }
  expect(fields('Unread note')!.text).toBe('Never shown to the agent');

  const created = await call('wiki-create', { title: 'Fresh note', text: 'One' }, ctx);
  expect(created.read).toEqual({ 'Fresh note': lib.fingerprint(fields('Fresh note')!) });
  const modified = fields('Fresh note')!.modified!;
  expect((await call('wiki-edit', { title: 'Fresh note', modified, edits: [{ find: 'One', replace: 'Two' }] }, ctx)).ok).not.toBe(false);
  const renamed = await call('wiki-rename', { title: 'Fresh note', modified: fields('Fresh note')!.modified!, newTitle: 'Fresher note' }, ctx);
  expect(renamed.read).toEqual({ 'Fresher note': lib.fingerprint(fields('Fresher note')!) });
  expect((await call('wiki-delete', { title: 'Fresher note', modified: fields('Fresher note')!.modified! }, ctx)).ok).not.toBe(false);
});

test('wiki-read and wiki-search record the version they showed: every field and the text, order and server bookkeeping aside', async () => {
  $tw.wiki.addTiddler({ title: 'Shown note', text: 'Seen in full', tags: 'Mine', modified: '20260301000000000' });
  const ctx = context('$:/ai/messages/A chat/000070');
  const version = lib.fingerprint(fields('Shown note')!);
  expect((await call('wiki-read', { title: 'Shown note' }, ctx)).read).toEqual({ 'Shown note': version });
  const search = lib.WIKI_READ_TOOLS.find((t) => t.name === 'wiki-search')!;
  const found = await search.execute(search.parameters.parse({ filter: '[[Shown note]]' }), ctx);
  expect(found.read).toEqual({ 'Shown note': version });
  expect(lib.fingerprint({ title: 'a', text: 'b', x: 'c' })).toBe(lib.fingerprint({ x: 'c', text: 'b', title: 'a' }));
  expect(lib.fingerprint({ title: 'a', revision: '3', bag: 'default', type: 'text/vnd.tiddlywiki' })).toBe(lib.fingerprint({ title: 'a' }));
  expect(lib.fingerprint({ title: 'a', x: '' })).not.toBe(lib.fingerprint({ title: 'a' }));
  expect(lib.fingerprint({ title: 'a', x: 'bc' })).not.toBe(lib.fingerprint({ title: 'a', xb: 'c' }));
});
