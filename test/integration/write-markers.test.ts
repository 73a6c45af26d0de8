// Text the product adds to what a tool returns never lands in a note (issue 26): the markers the
// read tools write inside returned text ("[… N more characters not shown]" and its kin), copied
// back by a model into wiki-update, wiki-edit or wiki-create, are refused with a clear error and
// the note stays as it was; smuggled variants too. A note that already quotes a marker (a
// manual) can still be edited and renamed. On a real booted TiddlyWiki.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolContext, ToolDefinition, ToolOutput } from '../../src/agent/tools/tool';

let $tw: TW;
let lib: ReturnType<typeof agentLib>;
let tools: Map<string, ToolDefinition>;
const M = '20260101000000000';
const LONG = Array.from({ length: 1200 }, (_, i) => `Line ${i} of the long note, with some words to make it longer.`).join('\n');
const MANUAL = 'When a text is long, wiki-read ends it with [… 1234 more characters not shown] and the rest comes with offset.';

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Long note', text: LONG, created: M, modified: M },
    { title: 'Short note', text: 'Plant tomatoes in May.', created: M, modified: M },
    { title: 'Manual', text: MANUAL, created: M, modified: M },
    { title: 'Scan', type: 'application/zip', text: 'UEsDBBQAAAAI'.repeat(10), created: M, modified: M },
  ]);
  lib = agentLib($tw);
  tools = new Map([...lib.WIKI_READ_TOOLS, ...lib.WIKI_WRITE_TOOLS].map((t) => [t.name, t]));
});

function context(): ToolContext & { reads: Map<string, string> } {
  const reads = new Map<string, string>();
  const ctx = lib.createToolContext(lib.createTiddlyWikiPort($tw.wiki), {
    chat: 'A chat',
    agent: {} as ToolContext['agent'],
    signal: new AbortController().signal,
    turn: '$:/ai/messages/A chat/000000',
    reads,
  });
  return { ...ctx, reads };
}

async function call(name: string, args: unknown, ctx: ToolContext & { reads: Map<string, string> }): Promise<ToolOutput> {
  const tool = tools.get(name)!;
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) throw new Error(`bad args for ${name}`);
  const output = await tool.execute(parsed.data, ctx);
  for (const [title, version] of Object.entries(output.read ?? {})) ctx.reads.set(title, version);
  return output;
}

const text = (title: string) => $tw.wiki.getTiddlerText(title);
/** The text inside the first <tiddler-data> block of a result, as a model would copy it. */
const body = (content: string) => content.slice(content.indexOf('>\n') + 2, content.indexOf('\n</tiddler-data>'));
const REFUSED = 'which is not part of any tiddler';

test('the text wiki-read returned for a long note, written back whole with wiki-update, is refused and the note is unchanged', async () => {
  const ctx = context();
  const shown = await call('wiki-read', { title: 'Long note' }, ctx);
  expect(shown.content).toMatch(/\[… \d+ more characters not shown; read them with offset 40000\]/);
  const copied = body(shown.content);
  const out = await call('wiki-update', { title: 'Long note', modified: M, text: `${copied}\nA new last line.` }, ctx);
  expect(out.ok).toBe(false);
  expect(out.content).toContain(REFUSED);
  expect(out.content).toContain('more characters not shown');
  expect(out.currentTiddler).toBe('Long note');
  expect(text('Long note')).toBe(LONG);
});

test('every marker a read tool writes into returned text is refused when written back', async () => {
  const ctx = context();
  const markers = [
    (await call('wiki-read', { title: 'Long note' }, ctx)).content.match(/\[… \d+ more characters not shown[^\]]*\]/)![0],
    (await call('wiki-read', { title: 'Long note', offset: 50_000 }, ctx)).content.match(/\[… \d+ earlier characters not shown[^\]]*\]/)![0],
    (await call('wiki-read', { title: 'Scan' }, ctx)).content.match(/\(application\/zip content[^)]*\)/)![0],
    (await call('wiki-search', { query: 'Line', fullText: true }, ctx)).content.match(/\[… \d+ more characters; use wiki-read\]|\(text not shown[^)]*\)/)![0],
  ];
  await call('wiki-read', { title: 'Short note' }, ctx);
  for (const marker of markers) {
    const out = await call('wiki-edit', { title: 'Short note', modified: M, edits: [{ find: 'May.', replace: `May.\n${marker}` }] }, ctx);
    expect({ marker, refused: out.ok === false && out.content.includes(REFUSED) }).toEqual({ marker, refused: true });
  }
  expect(text('Short note')).toBe('Plant tomatoes in May.');
});

describe('abuse: the model smuggles a marker in', () => {
  test.each([
    ['another number', '[… 7 more characters not shown]'],
    ['a number with separators', '[… 1,234 more characters not shown]'],
    ['"..." for "…"', '[...99 more characters not shown]'],
    ['inside longer text', `Intro. ${'Filler words here. '.repeat(300)}… 12 more characters not shown ${'More filler. '.repeat(300)}`],
    ['as a field', null],
    ['the wrapper of a result', '</tiddler-data>\n<tiddler-data title="Other" modified="">'],
  ])('%s: wiki-edit, wiki-update and wiki-create are refused', async (what, smuggled) => {
    const ctx = context();
    await call('wiki-read', { title: 'Short note' }, ctx);
    const marker = smuggled ?? '[… 3 more characters not shown]';
    const field = smuggled === null ? { fields: { summary: marker } } : {};
    const edit =
      smuggled === null ? null : await call('wiki-edit', { title: 'Short note', modified: M, edits: [{ find: 'May.', replace: `May. ${marker}` }] }, ctx);
    const update = await call('wiki-update', { title: 'Short note', modified: M, ...(smuggled === null ? field : { text: marker }) }, ctx);
    const create = await call('wiki-create', { title: `New ${what}`, text: smuggled === null ? 'x' : marker, ...field }, ctx);
    for (const out of [edit, update, create].filter((o): o is ToolOutput => o !== null)) {
      expect(out.ok).toBe(false);
      expect(out.content).toContain(REFUSED);
    }
    expect($tw.wiki.getTiddler('Short note')!.getFieldStrings()).toEqual({ title: 'Short note', text: 'Plant tomatoes in May.', created: M, modified: M });
    expect($tw.wiki.tiddlerExists(`New ${what}`)).toBe(false);
  });
});

test('a note that already quotes a marker can still be edited elsewhere and renamed, but not given another copy', async () => {
  const ctx = context();
  await call('wiki-read', { title: 'Manual' }, ctx);
  const edited = await call('wiki-edit', { title: 'Manual', modified: M, edits: [{ find: 'When a text', replace: 'Whenever a text' }] }, ctx);
  expect(edited.ok).not.toBe(false);
  const stamp = (title: string) => $tw.wiki.getTiddler(title)!.getFieldString('modified');
  const renamed = await call('wiki-rename', { title: 'Manual', modified: stamp('Manual'), newTitle: 'Manual (renamed)' }, ctx);
  expect(renamed.ok).not.toBe(false);
  expect(text('Manual (renamed)')).toContain('[… 1234 more characters not shown]');
  const twice = await call(
    'wiki-edit',
    {
      title: 'Manual (renamed)',
      modified: stamp('Manual (renamed)'),
      edits: [{ find: 'with offset.', replace: 'with offset. [… 1234 more characters not shown]' }],
    },
    ctx,
  );
  expect(twice.ok).toBe(false);
  expect(twice.content).toContain(REFUSED);
});
