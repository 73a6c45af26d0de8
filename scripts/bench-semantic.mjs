// Semantic search on 10,000 tiddlers (issue 13: "10,000 tiddlers' vectors within 50 MB"). Boots
// TiddlyWiki in-process with the built plugins plus the synthetic corpus (scripts/wiki-corpus.cjs),
// embeds every tiddler through the real indexer against the mock server's deterministic
// /v1/embeddings (384 dimensions, like all-MiniLM; the mock is a test double, so build time is
// mostly HTTP and JSON, not a model), and prints build time, vector memory, the stored size and
// query times (the index scan alone, and a whole query with its embedding request).
// Run `node scripts/build.mjs` first. Env: BENCH_TIDDLERS (10000), BENCH_DIMS (384), BENCH_REPS (50).
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
// The benchmark owns what it starts: its test doubles listen on loopback (the manual's "Who may do what").
process.env.TIDDLYAGENT_CONFIG ??= JSON.stringify({ allowHosts: ['127.0.0.1'] });

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COUNT = Number(process.env.BENCH_TIDDLERS || 10_000);
const DIMS = Number(process.env.BENCH_DIMS || 384);
const REPS = Number(process.env.BENCH_REPS || 50);
const { generateTiddlers } = require('./wiki-corpus.cjs');
const { startMockLlm } = require('./mock-llm.cjs');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
v8.setFlagsFromString('--no-expose-gc');
const heapMB = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 1048576;
};

const mock = await startMockLlm({ port: 0, embeddingDims: DIMS });
const $tw = require('tiddlywiki').TiddlyWiki();
$tw.boot.argv = [ROOT];
$tw.preloadTiddlerArray([...generateTiddlers(COUNT)]);
await new Promise((resolve) => $tw.boot.boot(resolve));
const lib = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
$tw.wiki.addTiddler({
  title: '$:/bench/embeddings',
  tags: '$:/tags/AI/Provider',
  api: 'openai-chat',
  'base-url': mock.url,
  models: 'mock-model',
  'embedding-model': 'mock-embed',
});
$tw.wiki.addTiddler({ title: lib.SEMANTIC_PROFILE, text: '$:/bench/embeddings' });

let stored;
const store = {
  where: 'memory',
  load: async () => undefined,
  save: async (blob) => {
    stored = blob;
  },
};
const indexer = new lib.SemanticIndexer({ wiki: lib.createTiddlyWikiPort($tw.wiki), fetch, getApiKey: () => undefined, keyHint: '', store });
const heapBefore = heapMB();
const buffersBefore = process.memoryUsage().arrayBuffers;
let t0 = performance.now();
$tw.wiki.addTiddler({ title: lib.SEMANTIC_ENABLED, text: 'yes' });
indexer.configure();
await indexer.settled();
const build = performance.now() - t0;
const status = $tw.wiki.getTiddler(lib.SEMANTIC_STATUS).fields;
if (status.state !== 'ready') throw new Error(`the index did not build: ${status.error}`);
const heapAfter = heapMB();
const buffers = process.memoryUsage().arrayBuffers - buffersBefore;
const { tiddlers, bytes, dims } = indexer.stats();
const requests = mock.requests.length;

// The scan alone: a stored vector as the query.
const loaded = lib.VectorIndex.load(stored, 'mock-embed');
if (!('index' in loaded)) throw new Error(`the stored index does not load: ${loaded.problem}`);
const { index } = loaded;
const query = new Float32Array(dims).map((_, i) => Math.sin(i));
const scan = [];
for (let i = 0; i < REPS; i++) {
  t0 = performance.now();
  index.search(query, 10);
  scan.push(performance.now() - t0);
}
// A whole query: embed over HTTP, then scan.
const whole = [];
const signal = new AbortController().signal;
for (let i = 0; i < REPS; i++) {
  t0 = performance.now();
  const answer = await indexer.search('meeting notes about the search plugin', 10, signal);
  whole.push(performance.now() - t0);
  if (!answer.hits) throw new Error(answer.unavailable);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (n) => (n / 1048576).toFixed(1);
console.log(`semantic search, ${COUNT.toLocaleString('en')} corpus tiddlers, ${dims} dimensions (mock embeddings over HTTP)`);
console.log(`  build:        ${(build / 1000).toFixed(1)} s for ${tiddlers.toLocaleString('en')} tiddlers in ${requests} requests`);
console.log(
  `  vector arena: ${mb(bytes)} MB (goal: 10,000 tiddlers within 50 MB); typed arrays +${mb(buffers)} MB, heap +${(heapAfter - heapBefore).toFixed(1)} MB; stored blob ${mb(stored.byteLength)} MB`,
);
console.log(`  query:        scan ${median(scan).toFixed(2)} ms median; with the embedding request ${median(whole).toFixed(2)} ms median (${REPS} runs)`);
await mock.close();
process.exit(0);
