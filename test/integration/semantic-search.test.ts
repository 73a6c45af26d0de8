// Semantic and hybrid search over a real TiddlyWiki against the mock server's deterministic
// embeddings (a hashed bag of words: texts that share words are close). The indexer follows
// the wiki's change events; its store is a blob in memory, as IndexedDB or agent-state/ hold it.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolOutput } from '../../src/agent/tools/tool';
import type { SemanticIndexer, VectorStore } from '../../src/agent/lib';
const { startMockLlm } = require('../../scripts/mock-llm.cjs');

let $tw: TW;
let mock: Awaited<ReturnType<typeof startMockLlm>>;
const PROFILE = '$:/test/Mock embeddings';
/** The demo wiki's own visible tiddlers (the welcome page), embedded too. */
let demo: string[];
const OLD = '20200101000000000';

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
  $tw = await bootWiki([
    { title: PROFILE, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, models: 'mock-model', 'embedding-model': 'mock-embed' },
    {
      title: 'Tomatoes',
      text: `Red fruit in the vegetable garden. ${'Sunny beds, rich soil. '.repeat(50)}\n\nWater tomatoes every morning in summer.`,
      modified: OLD,
    },
    { title: 'Carrots', text: 'Orange roots that grow in sandy soil.', modified: OLD },
    { title: 'Bicycle repair', text: 'Fix a flat tyre with a patch kit and a pump.', modified: OLD },
    { title: 'Tax return', text: 'Send the forms before the deadline in April.', modified: OLD },
    // Never embedded, never returned:
    { title: 'Secret chat', agent: 'x', text: 'watering plan for the tomatoes garden', modified: OLD },
    { title: 'Chat message', 'agent-chat': 'Secret chat', text: 'tomatoes garden watering', modified: OLD },
    { title: '$:/ai/notes', text: 'tomatoes garden' },
    { title: '$:/SystemNote', text: 'tomatoes garden' },
    { title: 'Photo', type: 'image/png', text: 'iVBORw0KGgo=' },
  ]);
  demo = $tw.wiki.filterTiddlers('[!is[system]] -[has[agent]] -[has[agent-chat]] -Tomatoes -Carrots -[[Bicycle repair]] -[[Tax return]] -Photo');
});
afterAll(() => mock.close());

function memoryStore(initial?: Uint8Array): VectorStore & { blob?: Uint8Array; saves: number } {
  const store = {
    where: 'memory',
    blob: initial,
    saves: 0,
    load: async () => store.blob,
    save: async (b: ArrayBuffer) => {
      store.blob = new Uint8Array(b);
      store.saves++;
    },
  };
  return store;
}

interface Harness {
  indexer: SemanticIndexer;
  waits: number[];
  /** The change events reached the indexer and its run has ended. */
  settle(): Promise<void>;
  close(): void;
}

function startIndexer(store: VectorStore): Harness {
  const lib = agentLib($tw);
  const waits: number[] = [];
  const indexer = new lib.SemanticIndexer({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: (url, init) => fetch(url, init),
    getApiKey: () => undefined,
    keyHint: 'set it',
    store,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
  });
  const listener = (changes: Record<string, unknown>) => indexer.changed(Object.keys(changes));
  $tw.wiki.addEventListener('change', listener);
  indexer.configure();
  return {
    indexer,
    waits,
    settle: async () => {
      await new Promise((r) => setImmediate(r)); // TiddlyWiki delivers change events on the next tick
      await indexer.settled();
    },
    close: () => {
      indexer.stop();
      $tw.wiki.removeEventListener('change', listener);
    },
  };
}

const status = () => $tw.wiki.getTiddler('$:/temp/tiddlyagent/semantic-index')?.fields ?? {};
/** Every text sent to the embeddings endpoint since the last reset. */
const embedded = (): string[] =>
  mock.requests.filter((r: { path: string }) => r.path.endsWith('/embeddings')).flatMap((r: { body: { input: string[] } }) => r.body.input);

function enable(on = true) {
  $tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/semantic/profile', text: PROFILE });
  $tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/semantic/enabled', text: on ? 'yes' : 'no', started: String(Math.random()) });
}

async function search(args: Record<string, unknown>, semantic?: SemanticIndexer): Promise<ToolOutput> {
  const lib = agentLib($tw);
  const tool = lib.WIKI_READ_TOOLS.find((t) => t.name === 'wiki-search')!;
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  const context = lib.createToolContext(
    lib.createTiddlyWikiPort($tw.wiki),
    { chat: 'Secret chat', agent: {} as any, signal: new AbortController().signal, turn: 't' },
    { now: Date.now, semantic },
  );
  return tool.execute(parsed.data as never, context);
}
const titlesIn = (content: string) => [...content.matchAll(/<tiddler-data title="([^"]*)"/g)].map((m) => m[1]!);

describe('semantic search', () => {
  let h: Harness;
  let store: ReturnType<typeof memoryStore>;

  beforeAll(async () => {
    mock.reset();
    store = memoryStore();
    enable();
    h = startIndexer(store);
    await h.settle();
  });
  afterAll(() => h.close());

  test('builds the index in the background; hidden, system and binary tiddlers are never embedded', () => {
    const n = String(4 + demo.length);
    expect(status()).toMatchObject({ state: 'ready', done: n, total: n, progress: `${n} of ${n} tiddlers embedded`, model: 'mock-embed', error: '' });
    const texts = embedded();
    expect([...new Set(texts.map((t) => t.split('\n')[0]))].sort()).toEqual(['Bicycle repair', 'Carrots', 'Tax return', 'Tomatoes', ...demo].sort());
    expect(texts.join(' ')).not.toMatch(/watering plan|Secret|SystemNote|iVBOR/);
    expect(store.blob!.byteLength).toBeGreaterThan(4 * 64 * 4);
  });

  test('semantic: the closest tiddler first, its best chunk as the snippet; nothing hidden', async () => {
    const out = await search({ query: 'when to water the tomatoes', mode: 'semantic', limit: 3 }, h.indexer);
    expect(out.ok).not.toBe(false);
    expect(titlesIn(out.content)[0]).toBe('Tomatoes');
    expect(out.content).toMatch(/Search for query "when to water the tomatoes" by meaning: the 3 closest tiddlers/);
    expect(out.content).toContain('Water tomatoes every morning in summer.');
    expect(out.content).not.toContain('Red fruit'); // the other chunk
    const all = await search({ query: 'tomatoes garden watering plan secret chat', mode: 'semantic', limit: 50 }, h.indexer);
    expect(titlesIn(all.content).sort()).toEqual(['Bicycle repair', 'Carrots', 'Tax return', 'Tomatoes', ...demo].sort());
  });

  test('a filter narrows a search by meaning', async () => {
    const out = await search({ query: 'tomatoes', mode: 'semantic', filter: '[prefix[C]] [prefix[T]]' }, h.indexer);
    expect(titlesIn(out.content)[0]).toBe('Tomatoes');
    expect(titlesIn(out.content)).not.toContain('Bicycle repair');
  });

  test('hybrid: the text ranking and the vector ranking fused', async () => {
    const out = await search({ query: 'patch', mode: 'hybrid' }, h.indexer);
    expect(titlesIn(out.content)[0]).toBe('Bicycle repair');
    expect(out.content).toMatch(/by words and meaning/);
  });

  test('incremental: only what changed is embedded; delete, rename and becoming hidden leave the index', async () => {
    mock.reset();
    $tw.wiki.addTiddler({ title: 'Carrots', text: 'Orange roots. Pull carrots in autumn.', modified: '20240101000000000' });
    await h.settle();
    expect(embedded()).toEqual(['Carrots\n\nOrange roots. Pull carrots in autumn.']);
    expect(titlesIn((await search({ query: 'pull carrots autumn', mode: 'semantic', limit: 1 }, h.indexer)).content)).toEqual(['Carrots']);

    $tw.wiki.renameTiddler('Bicycle repair', 'Bike repair');
    await h.settle();
    let found = titlesIn((await search({ query: 'flat tyre patch pump', mode: 'semantic', limit: 50 }, h.indexer)).content);
    expect(found).toContain('Bike repair');
    expect(found).not.toContain('Bicycle repair');

    $tw.wiki.deleteTiddler('Tax return');
    $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler('Tomatoes').fields, agent: 'Wiki Assistant' }); // now a chat: hidden
    await h.settle();
    found = titlesIn((await search({ query: 'tomatoes forms deadline april', mode: 'semantic', limit: 50 }, h.indexer)).content);
    expect(found.sort()).toEqual(['Bike repair', 'Carrots', ...demo].sort());
    expect(status()).toMatchObject({ state: 'ready', total: String(2 + demo.length) });
    const stored = agentLib($tw).VectorIndex.load(store.blob!, 'mock-embed');
    expect('index' in stored && [...stored.index.titles()].sort()).toEqual(['Bike repair', 'Carrots', ...demo].sort());
  });

  test('a restart goes on from the stored index: only what changed meanwhile is embedded', async () => {
    h.close();
    $tw.wiki.addTiddler({ title: 'Compost', text: 'Kitchen scraps and leaves.', modified: OLD });
    mock.reset();
    h = startIndexer(store);
    await h.settle();
    expect(embedded()).toEqual(['Compost\n\nKitchen scraps and leaves.']);
    expect(status()).toMatchObject({ state: 'ready', done: String(3 + demo.length), total: String(3 + demo.length) });
  });
});

describe('bad input ends in a clear message, and wiki-search falls back to text', () => {
  let h: Harness | undefined;
  afterEach(() => h?.close());

  test('no embedding model: a text search with a note', async () => {
    const out = await search({ query: 'carrots', mode: 'semantic' });
    expect(out.content).toMatch(/^No embedding model is set, so there is no semantic search; these are text search results/);
    expect(titlesIn(out.content)).toEqual(['Carrots']);
  });

  test('a failing endpoint stops the indexer with the error; Try again after it recovers', async () => {
    mock.reset();
    mock.queueEmbeddings(Array.from({ length: 6 }, () => ({ status: 500 })));
    enable();
    h = startIndexer(memoryStore());
    await h.settle();
    expect(status()).toMatchObject({ state: 'error' });
    expect(status().error).toMatch(/HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/v1: .*server error/);
    expect(h.waits).toHaveLength(5);
    const out = await search({ query: 'carrots', mode: 'hybrid' }, h.indexer);
    expect(out.content).toMatch(/^The semantic index stopped on an error: HTTP 500.* These are text search results instead of hybrid ones\./);
    expect(titlesIn(out.content)).toEqual(['Carrots']);
    enable(); // Try again: a new `started` stamp
    await h.settle();
    expect(status()).toMatchObject({ state: 'ready', error: '' });
  });

  test('a 429 is waited out as the server asks, then the index is built', async () => {
    mock.reset();
    mock.queueEmbeddings({ status: 429, headers: { 'retry-after': '7' } });
    enable();
    h = startIndexer(memoryStore());
    await h.settle();
    expect(h.waits).toEqual([7000]);
    expect(status()).toMatchObject({ state: 'ready', error: '' });
  });

  test('vectors of the wrong size stop the indexer with the sizes named', async () => {
    mock.reset();
    enable();
    h = startIndexer(memoryStore());
    await h.settle();
    mock.queueEmbeddings({ dims: 3 });
    $tw.wiki.addTiddler({ title: 'Compost', text: 'Now with worms.' });
    await h.settle();
    expect(status()).toMatchObject({ state: 'error' });
    expect(status().error).toMatch(/returned vectors of 3 dimensions, but the index holds 64/);
  });

  test('a corrupt store or one from another version is rebuilt, and the settings say why', async () => {
    const lib = agentLib($tw);
    for (const [blob, why] of [
      [new TextEncoder().encode('garbage, not an index'), /not a TiddlyAgent vector index/],
      [
        (() => {
          const b = new Uint8Array(new lib.VectorIndex('mock-embed', 64).serialize());
          const json = new TextDecoder().decode(b.subarray(8, 8 + new DataView(b.buffer).getUint32(4, true)));
          b.set(new TextEncoder().encode(json.replace(`"format":${lib.INDEX_FORMAT}`, '"format":0')), 8);
          return b;
        })(),
        /made by another version/,
      ],
      [new Uint8Array(new lib.VectorIndex('other-model', 8).serialize()), /model "other-model", not "mock-embed"/],
    ] as const) {
      mock.reset();
      enable();
      const store = memoryStore(blob);
      h = startIndexer(store);
      await h.settle();
      expect(status()).toMatchObject({ state: 'ready' });
      expect(status().note).toMatch(why);
      expect(status().note).toMatch(/it is built again/);
      expect(embedded().length).toBeGreaterThan(0);
      expect('index' in lib.VectorIndex.load(store.blob!, 'mock-embed')).toBe(true);
      h.close();
      h = undefined;
    }
  });
});
