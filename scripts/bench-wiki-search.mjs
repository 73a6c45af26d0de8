// wiki-search vs TiddlyWiki's own filter engine on a 100,000-tiddler wiki (DESIGN 8: "wiki
// tools cost little more than TiddlyWiki's own filter engine"). Boots TiddlyWiki in-process
// with the repo root (the built plugins) plus the synthetic corpus of scripts/wiki-corpus.cjs,
// then times, per query, `[!is[system]search[Q]limit[10]]` against the wiki-search tool with
// the same query and limit 10 (the tool's whole execute: search, visibility, snippets, text).
// The tool answers from the text index (runner/host/text-index-host.ts): its build time and heap are
// measured first, and each query is also timed on the index alone (rankedSearch) and through
// the filter operator the Ranked search results tab uses (`[aisearch[Q]limit[10]]`).
// Run `node scripts/build.mjs` first. Env: BENCH_TIDDLERS (100000), BENCH_REPS (15).
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COUNT = Number(process.env.BENCH_TIDDLERS || 100_000);
const REPS = Number(process.env.BENCH_REPS || 15);
const WARMUP = 5;
const { generateTiddlers } = require('./wiki-corpus.cjs');

// A gc function without a `gc` global: with --expose-gc left on, TiddlyWiki's module sandboxes
// would see a new global and warn about it.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
v8.setFlagsFromString('--no-expose-gc');
const heapMB = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 1048576;
};

// Planted words, as in research/perf-baselines.md 3: natural rare words of the synthetic
// vocabulary also occur inside other words, and TiddlyWiki's search matches substrings.
const heapStart = heapMB();
let t0 = performance.now();
const tiddlers = [];
let i = 0;
for (const t of generateTiddlers(COUNT)) {
  if (i % Math.floor(COUNT / 10) === 5) t.text += ' quokkaxylo';
  if (i % Math.floor(COUNT / 10) === 7) t.title += ' zephyrquill';
  tiddlers.push(t);
  i++;
}
const generated = performance.now() - t0;
t0 = performance.now();
const $tw = require('tiddlywiki').TiddlyWiki();
$tw.boot.argv = [ROOT];
$tw.preloadTiddlerArray(tiddlers);
tiddlers.length = 0;
await new Promise((resolve) => $tw.boot.boot(resolve));
const booted = performance.now() - t0;

const lib = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
const tool = lib.WIKI_READ_TOOLS.find((t) => t.name === 'wiki-search');
const port = lib.createTiddlyWikiPort($tw.wiki);
// The tool reads through the agent view, as in a real turn (hidden tiddlers do not exist there).
const context = lib.createToolContext(port, { chat: 'bench', agent: {}, signal: new AbortController().signal, turn: 'bench' });

// The text index, built at once here (a page builds it in idle time from the first search on).
const heapBeforeIndex = heapMB();
t0 = performance.now();
lib.textIndexOf($tw.wiki).buildNow();
const indexBuild = performance.now() - t0;
const indexHeap = heapMB() - heapBeforeIndex;

const QUERIES = [
  { what: 'common word (~50%)', query: 'this' },
  { what: 'rare planted word (10)', query: 'quokkaxylo' },
  { what: 'two words (AND)', query: 'milysema sulpelterqua' },
  { what: 'absent word', query: 'zzqqxxnotthere' },
  { what: 'title only, planted (10)', query: 'zephyrquill', titlesOnly: true },
  { what: 'title only, common', query: 'this', titlesOnly: true },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n) => n.toFixed(1);

console.log(
  `wiki-search vs [!is[system]search[Q]limit[10]]: ${COUNT} tiddlers (+ the repo wiki), Node ${process.version}, ${WARMUP} warm-up + ${REPS} measured runs, alternating`,
);
console.log(`generate ${fmt(generated)} ms; boot with preload ${fmt(booted)} ms`);
console.log(`text index: built in ${fmt(indexBuild)} ms, ${fmt(indexHeap)} MB of heap`);
console.log('');
console.log(
  'tool = wiki-search (ranked, from the index); index = rankedSearch alone (after a write; repeat: the same query again, answered from its last answer); aisearch = `[aisearch[Q]limit[10]]`; filter = `[!is[system]search[Q]limit[10]]` (unranked)',
);
console.log('');
console.log(
  '| query | what | filter hits | tool count | filter median ms | min | max | tool median ms | min | max | index median ms | repeat | aisearch median ms | tool/filter |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const q of QUERIES) {
  const filter = `[!is[system]search${q.titlesOnly ? ':title' : ''}[${q.query}]limit[10]]`;
  const args = tool.parameters.parse({ query: q.query, limit: 10, ...(q.titlesOnly ? { titlesOnly: true } : {}) });
  const times = { filter: [], tool: [], index: [], aisearch: [], repeat: [] };
  const aisearch = `[aisearch${q.titlesOnly ? ':title' : ''}[${q.query}]limit[10]]`;
  let hits = 0;
  let count = '';
  for (let r = 0; r < WARMUP + REPS; r++) {
    for (const which of r % 2 ? ['tool', 'index', 'aisearch', 'filter'] : ['filter', 'aisearch', 'index', 'tool']) {
      // The index keeps its last answer until it changes: a write before each run times a fresh query.
      $tw.wiki.addTiddler({ title: 'Bench touch', text: String(r) });
      const start = performance.now();
      if (which === 'filter') hits = $tw.wiki.filterTiddlers(filter).length;
      else if (which === 'index') {
        port.rankedSearch(q.query, { titlesOnly: !!q.titlesOnly });
        const again = performance.now();
        port.rankedSearch(q.query, { titlesOnly: !!q.titlesOnly });
        if (r >= WARMUP) times.repeat.push(performance.now() - again);
        if (r >= WARMUP) times.index.push(again - start);
        continue;
      } else if (which === 'aisearch') $tw.wiki.filterTiddlers(aisearch);
      else count = /(\d+) tiddlers found|No tiddlers found/.exec((await tool.execute(args, context)).content)?.[1] ?? '0';
      const ms = performance.now() - start;
      if (r >= WARMUP) times[which].push(ms);
    }
  }
  const f = times.filter;
  const t = times.tool;
  const label = `${q.query}${q.titlesOnly ? ' (titlesOnly)' : ''}`;
  console.log(
    `| ${label} | ${q.what} | ${hits} | ${count} | ${fmt(median(f))} | ${fmt(Math.min(...f))} | ${fmt(Math.max(...f))} | ${fmt(median(t))} | ${fmt(Math.min(...t))} | ${fmt(Math.max(...t))} | ${fmt(median(times.index))} | ${fmt(median(times.repeat))} | ${fmt(median(times.aisearch))} | ${(median(t) / median(f)).toFixed(2)} |`,
  );
}
// Keeping up: 100 writes, then the first query (which brings the index up to date) against the next.
{
  const writes = performance.now();
  for (let k = 0; k < 100; k++) $tw.wiki.addTiddler({ title: `Bench write ${k}`, text: `fresh quokkaxylo words ${k}` });
  const written = performance.now() - writes;
  const first = performance.now();
  port.rankedSearch('quokkaxylo');
  const firstQuery = performance.now() - first;
  const next = performance.now();
  port.rankedSearch('quokkaxylo');
  console.log('');
  console.log(
    `100 writes with the index kept: ${fmt(written)} ms; the next query (indexes them) ${fmt(firstQuery)} ms; the one after ${fmt(performance.now() - next)} ms`,
  );
}

// The agent view has no indexes and its own caches (so that no result depends on hidden
// tiddlers): what that costs against the real wiki for filters the model typically writes.
const FILTERS = [
  { what: 'tag (indexed in the real wiki)', filter: '[tag[Project]limit[10]]' },
  { what: 'tag count', filter: '[tag[Project]count[]]' },
  { what: 'non-system, sorted by title, first 10', filter: '[!is[system]sort[title]limit[10]]' },
  { what: 'field value', filter: '[field:modified[20200101000000000]]' },
  { what: 'tags of all tiddlers', filter: '[all[tiddlers]tags[]count[]]' },
];
console.log('');
console.log('Filters: the real wiki against the agent view (WikiPort.agentView().filter)');
console.log('');
console.log('| filter | what | real median ms | view median ms | view/real |');
console.log('|---|---|---|---|---|');
const view = port.agentView();
for (const f of FILTERS) {
  const times = { real: [], view: [] };
  for (let r = 0; r < WARMUP + REPS; r++) {
    for (const which of r % 2 ? ['view', 'real'] : ['real', 'view']) {
      const start = performance.now();
      if (which === 'real') $tw.wiki.filterTiddlers(f.filter);
      else view.filter(f.filter);
      if (r >= WARMUP) times[which].push(performance.now() - start);
    }
  }
  console.log(
    `| \`${f.filter}\` | ${f.what} | ${fmt(median(times.real))} | ${fmt(median(times.view))} | ${(median(times.view) / median(times.real)).toFixed(2)} |`,
  );
}
const heapAfter = heapMB();
console.log('');
console.log(`heapUsed after GC: ${fmt(heapStart)} MB at start → ${fmt(heapAfter)} MB with the ${COUNT}-tiddler wiki booted and searched`);
