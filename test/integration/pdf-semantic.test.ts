// Search by meaning over a PDF, in a real TiddlyWiki against the mock server's deterministic
// embeddings (a hashed bag of words): a PDF is embedded page by page, each piece starting with
// its `[page N]` (never its base64), and a search by meaning names the page of the piece that
// matched in the hit's snippet.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { VectorStore } from '../../src/agent/lib';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');
const { makePdf } = require('../../scripts/make-pdf.cjs');

let $tw: TW;
let mock: Awaited<ReturnType<typeof startMockLlm>>;
const PROFILE = '$:/test/Mock embeddings';
const PAGES = ['Minutes of the garden club, spring meeting.', 'The budget for new tools was approved.', 'A grey heron nests by the old water mill every year.'];
const PDF = makePdf(PAGES).toString('base64');

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
  $tw = await bootWiki([
    { title: PROFILE, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, models: 'mock-model', 'embedding-model': 'mock-embed' },
    { title: 'Club minutes.pdf', type: 'application/pdf', text: PDF },
    { title: 'Bicycle repair', text: 'Fix a flat tyre with a patch kit and a pump.' },
  ]);
});
afterAll(() => mock.close());

test('a PDF is embedded page by page, and a search by meaning names the page that matched', async () => {
  const lib = agentLib($tw);
  const store: VectorStore = { where: 'memory', load: async () => undefined, save: async () => {} };
  const indexer = new lib.SemanticIndexer({
    wiki: lib.createTiddlyWikiPort($tw.wiki),
    fetch: (url, init) => fetch(url, init),
    getApiKey: () => undefined,
    keyHint: 'set it',
    store,
    sleep: async () => {},
    random: () => 0.5,
  });
  $tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/semantic/profile', text: PROFILE });
  $tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/semantic/enabled', text: 'yes' });
  indexer.configure();
  await new Promise((r) => setImmediate(r));
  await indexer.settled();
  try {
    const embedded: string[] = mock.requests
      .filter((r: { path: string }) => r.path.endsWith('/embeddings'))
      .flatMap((r: { body: { input: string[] } }) => r.body.input);
    const pieces = embedded.filter((t) => t.startsWith('Club minutes.pdf\n\n'));
    expect(pieces).toEqual(PAGES.map((page, i) => `Club minutes.pdf\n\n[page ${i + 1}] ${page}`));
    expect(embedded.join(' ')).not.toContain(PDF.slice(0, 40));

    const tool = lib.WIKI_READ_TOOLS.find((t) => t.name === 'wiki-search')!;
    const context = lib.createToolContext(
      lib.createTiddlyWikiPort($tw.wiki),
      { chat: 'Some chat', agent: {} as never, signal: new AbortController().signal, turn: 't' },
      { now: Date.now, semantic: indexer },
    );
    const out = await tool.execute(
      tool.parameters.parse({ query: 'grey heron water mill', mode: 'semantic', filter: '[[Club minutes.pdf]] [[Bicycle repair]]', limit: 1 }) as never,
      context,
    );
    expect(out.titles).toEqual(['Club minutes.pdf']);
    expect(out.content).toContain('[page 3] A grey heron nests by the old water mill every year.');
  } finally {
    indexer.stop();
  }
});
