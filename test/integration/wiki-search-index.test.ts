// Ranked search from the text index over a real TiddlyWiki: wiki-search ranks, follows every
// write at once (create, modify, rename, delete, a shadow's override), never holds what the
// agent may not see, and the same index fills the Ranked tab of TiddlyWiki's own search.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolOutput } from '../../src/agent/tools/tool';

let $tw: TW;

const filler = (n: number) => 'plain words about nothing much '.repeat(n);
const HIDDEN = [
  { title: 'Trip chat', agent: 'x', text: 'the okapi expedition' },
  { title: '$:/ai/messages/Trip chat/000000', 'agent-chat': 'Trip chat', role: 'user', 'agent-seq': '0', text: 'okapi okapi secret' },
  { title: '$:/ai/journal/okapi', text: 'okapi journal' },
  { title: 'Request okapi', tags: '$:/tags/HttpRequest', text: 'Bearer okapi' },
];

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Alpha once', text: `${filler(6)} quantum garden ${filler(6)}` },
    { title: 'Beta six times', text: `${'quantum garden '.repeat(6)}${filler(12)}` },
    { title: 'Quantum garden', text: filler(12) },
    { title: 'Okapi facts', text: `An okapi is a forest giraffe. ${filler(2)}` },
    { title: 'Zoo', tags: 'Animals', text: 'We saw an okapi and two zebras.' },
    ...HIDDEN,
  ]);
  // The index is built in slices after the boot (runner/host/text-index-host.ts): until it is
  // ready a search answers unranked, so the ranking asserted here waits for it.
  await agentLib($tw).textIndexOf($tw.wiki).whenReady();
});

async function search(args: Record<string, unknown>): Promise<ToolOutput> {
  const lib = agentLib($tw);
  const tool = lib.WIKI_READ_TOOLS.find((t) => t.name === 'wiki-search')!;
  const context = lib.createToolContext(lib.createTiddlyWikiPort($tw.wiki), {
    chat: 'Trip chat',
    agent: {} as never,
    signal: new AbortController().signal,
    turn: 't',
  });
  return tool.execute(tool.parameters.parse(args) as never, context);
}

const titlesIn = (content: string) => [...content.matchAll(/<tiddler-data title="([^"]*)"/g)].map((m) => m[1]!);
const found = async (query: string, args: Record<string, unknown> = {}) => titlesIn((await search({ query, ...args })).content);

test('ranked: six occurrences above one, a title match above both', async () => {
  expect(await found('quantum garden')).toEqual(['Quantum garden', 'Beta six times', 'Alpha once']);
  const out = await search({ query: 'quantum garden', limit: 1, offset: 1 });
  expect(out.content).toContain('3 tiddlers found; showing 2–2. More: call again with offset=2.');
  expect(titlesIn(out.content)).toEqual(['Beta six times']);
  // Whole words and their beginnings, not any substring as [search[]] matches.
  expect(await found('quantu')).toEqual(['Quantum garden', 'Beta six times', 'Alpha once']);
  expect(await found('uantum')).toEqual([]);
});

test('the snippet shows the first whole-word match', async () => {
  $tw.wiki.addTiddler({ title: 'Snippet note', text: `Concatenation first. ${filler(10)} then a cat sat here. ${filler(10)}` });
  const out = await search({ query: 'cat' });
  const block = out.content.slice(out.content.indexOf('<tiddler-data title="Snippet note"'));
  expect(block).toContain('then a cat sat here');
  expect(block).not.toContain('Concatenation');
  $tw.wiki.deleteTiddler('Snippet note');
});

test('every write is searchable at once: create, modify, rename, delete', async () => {
  $tw.wiki.addTiddler({ title: 'Walrus note', text: 'The walrus sleeps.' });
  expect(await found('walrus')).toEqual(['Walrus note']);
  $tw.wiki.addTiddler({ title: 'Walrus note', text: 'The narwhal swims.' });
  expect(await found('walrus')).toEqual(['Walrus note']); // the title still says it
  expect(await found('sleeps')).toEqual([]);
  expect(await found('narwhal')).toEqual(['Walrus note']);
  $tw.wiki.renameTiddler('Walrus note', 'Sea creatures');
  expect(await found('walrus')).toEqual([]);
  expect(await found('narwhal')).toEqual(['Sea creatures']);
  $tw.wiki.deleteTiddler('Sea creatures');
  expect(await found('narwhal')).toEqual([]);
});

test('an overridden shadow is indexed as the override; deleting it takes it out', async () => {
  const shadow = '$:/plugins/tiddlyagent/agent/language/Chats/Empty';
  expect($tw.wiki.isShadowTiddler(shadow)).toBe(true);
  expect(await found('flamingo', { includeSystem: true })).toEqual([]);
  $tw.wiki.addTiddler({ title: shadow, text: 'No flamingo chats yet.' });
  expect(await found('flamingo', { includeSystem: true })).toEqual([shadow]);
  expect(await found('flamingo')).toEqual([]);
  $tw.wiki.deleteTiddler(shadow);
  expect(await found('flamingo', { includeSystem: true })).toEqual([]);
  // A filter can still select shadows: they are matched as [search[]] does, after the ranked hits.
  expect(await found('yet', { filter: '[all[shadows]prefix[$:/plugins/tiddlyagent/agent/language/Chats/]]' })).toEqual([shadow]);
});

test("a filter with a query ranks within the filter's results", async () => {
  expect(await found('quantum garden', { filter: '[prefix[Alpha]] [prefix[Beta]]' })).toEqual(['Beta six times', 'Alpha once']);
  expect(await found('okapi', { filter: '[tag[Animals]]' })).toEqual(['Zoo']);
});

test('hidden tiddlers are never indexed: the result is exactly what it is without them', async () => {
  const lib = agentLib($tw);
  const port = lib.createTiddlyWikiPort($tw.wiki);
  const queries: Record<string, unknown>[] = [
    { query: 'okapi' },
    { query: 'okapi', includeSystem: true },
    { query: 'secret', includeSystem: true },
    { query: 'Bearer', includeSystem: true },
    { query: 'expedition' },
    { query: 'Trip', titlesOnly: true, includeSystem: true },
  ];
  const answer = async () => ({
    tool: await Promise.all(queries.map(async (q) => (await search(q)).content)),
    rank: lib.rankText(port, 'okapi', { includeSystem: true }),
    filter: $tw.wiki.filterTiddlers('[aisearch:system[okapi]] =[aisearch[secret]] =[aisearch[expedition]]'),
  });
  const withHidden = await answer();
  expect(withHidden.rank!.map((r) => r.title)).toEqual(['Okapi facts', 'Zoo']);
  expect(withHidden.tool[4]).toContain('No tiddlers found.');
  for (const t of HIDDEN) $tw.wiki.deleteTiddler(t.title);
  expect(await answer()).toEqual(withHidden);
  for (const t of HIDDEN) $tw.wiki.addTiddler(t);
  // A tiddler that becomes hidden leaves the index, and comes back when it is visible again.
  $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler('Zoo').fields, agent: 'x' });
  expect(await found('okapi')).toEqual(['Okapi facts']);
  $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler('Zoo').fields, agent: undefined });
  expect(await found('okapi')).toEqual(['Okapi facts', 'Zoo']);
});

test('rankText gives titles and scores, best first, for rank fusion', () => {
  const lib = agentLib($tw);
  const ranked = lib.rankText(lib.createTiddlyWikiPort($tw.wiki), 'quantum garden', { limit: 2 })!;
  expect(ranked.map((r) => r.title)).toEqual(['Quantum garden', 'Beta six times']);
  expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
});

test("the Ranked tab of TiddlyWiki's search lists the index's hits best first, without chats or messages", () => {
  expect($tw.wiki.filterTiddlers('[all[shadows+tiddlers]tag[$:/tags/SearchResults]]')).toContain('$:/plugins/tiddlyagent/agent/ui/search-results');
  const render = (input: string) =>
    $tw.wiki.renderText('text/html', 'text/vnd.tiddlywiki', `<$let userInput="${input}">{{$:/plugins/tiddlyagent/agent/ui/search-results}}</$let>`);
  const links = (html: string) => [...html.matchAll(/<a class="tc-tiddlylink[^"]*" href="#([^"]*)"/g)].map((m) => decodeURIComponent(m[1]!));
  expect(links(render('quantum garden'))).toEqual(['Quantum garden', 'Beta six times', 'Alpha once']);
  expect(links(render('okapi'))).toEqual(['Okapi facts', 'Zoo']);
  expect(render('expedition')).toContain('No search result');
  // Below the minimum length ($:/config/Search/MinLength, 3) nothing is searched.
  expect(links(render('ok'))).toEqual([]);
});
