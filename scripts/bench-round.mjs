// One agent round in Chromium, on a wiki of 1,000 and of 100,000 tiddlers (issue 13 item 0):
// the product's own time between a model reply that calls tools and the next model request.
// A loopback model answers every even request with tool calls (one `wiki-read` of a small
// tiddler, or a batch of ten) and every odd one with text; it notes when each reply's last
// byte went out and when the next request came in. The difference is what the page spends:
// parsing the reply, the tool calls, writing their messages, the refreshes those writes cause
// (the chat is open in the story river), journaling, the usage meter and the next prompt.
// The wiki is a single HTML file (file://, no syncer) built from the demo plus the synthetic
// corpus (scripts/wiki-corpus.cjs); turns run in the page (the browser edition).
// Goal: <= 100 ms at 100,000 tiddlers and within 1.5x of the same round at 1,000.
// Env: BENCH_SIZES (1000,100000), BENCH_TURNS (8, the first 2 are warm-up), CHROMIUM_PATH,
// BENCH_PROFILE=<file> (a CPU profile of the one-read turns on the biggest wiki).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { generateTiddlers } = require('./wiki-corpus.cjs');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
const SIZES = (process.env.BENCH_SIZES || '1000,100000').split(',').map(Number);
const TURNS = Number(process.env.BENCH_TURNS || 8);
const WARMUP = 2;
const BATCHES = [1, 10];

// ---- the loopback model ----------------------------------------------------------------
let calls = 1;
let count = 0;
let lastEnd = 0;
let gaps = [];
const sse = (delta, finish) =>
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const server = http.createServer((req, res) => {
  const arrived = performance.now();
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, GET, OPTIONS' };
  if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
  req.resume();
  req.on('end', () => {
    const k = count++;
    if (k % 2 === 1) gaps.push(arrived - lastEnd);
    res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
    if (k % 2 === 0) {
      const toolCalls = Array.from({ length: calls }, (_, i) => ({
        index: i,
        id: `call_${k}_${i}`,
        type: 'function',
        function: { name: 'wiki-read', arguments: JSON.stringify({ title: 'Small note' }) },
      }));
      res.write(sse({ tool_calls: toolCalls }, null) + sse({}, 'tool_calls'));
    } else res.write(sse({ content: 'Read it.' }, null) + sse({}, 'stop'));
    res.end('data: [DONE]\n\n', () => (lastEnd = performance.now()));
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

// ---- the wiki ------------------------------------------------------------------------------
function buildWiki(size) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-bench-round-'));
  fs.writeFileSync(path.join(dir, 'tiddlywiki.info'), JSON.stringify({ plugins: [], themes: ['tiddlywiki/vanilla', 'tiddlywiki/snowwhite'] }));
  fs.mkdirSync(path.join(dir, 'plugins'));
  fs.symlinkSync(path.join(ROOT, 'plugins', 'agent'), path.join(dir, 'plugins', 'agent'));
  fs.mkdirSync(path.join(dir, 'tiddlers'));
  // As a tiddler file holds them: every field a string (tags a title list, dates TiddlyWiki's format).
  const asText = (v) =>
    Array.isArray(v) ? v.map((t) => (/\s/.test(t) ? `[[${t}]]` : t)).join(' ') : v instanceof Date ? v.toISOString().replace(/[-:T.Z]/g, '') : String(v);
  const tiddlers = [...generateTiddlers(size)].map((t) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, asText(v)])));
  tiddlers.push(
    { title: 'Bench provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': baseUrl, 'default-model': 'bench', 'context-window': '100000' },
    {
      title: 'Bench agent',
      tags: '$:/tags/AI/Agent',
      'agent-provider': 'Bench provider',
      'agent-tools': 'wiki-read wiki-search',
      text: 'You are a benchmark.',
    },
    { title: 'Small note', text: 'A small note the agent reads.' },
    { title: 'Bench chat', agent: 'Bench agent', 'agent-status': 'idle' },
    { title: '$:/StoryList', list: '[[Bench chat]]' },
  );
  // TiddlyWiki refuses one huge file: several of 5,000 tiddlers each.
  for (let i = 0; i < tiddlers.length; i += 5000)
    fs.writeFileSync(path.join(dir, 'tiddlers', `bench-${i / 5000}.json`), JSON.stringify(tiddlers.slice(i, i + 5000)));
  const tiddlywiki = path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js');
  execFileSync(
    process.execPath,
    ['--max-old-space-size=4096', tiddlywiki, dir, '--output', path.join(dir, 'out'), '--render', '$:/core/save/all', 'index.html', 'text/plain'],
    { stdio: 'inherit' },
  );
  return { dir, file: path.join(dir, 'out', 'index.html') };
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};
const pageResults = {};
try {
  for (const size of SIZES) {
    const started = performance.now();
    const { dir, file } = buildWiki(size);
    if (process.env.BENCH_KEEP) console.log(file);
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 600_000 });
    await page.waitForFunction(() => document.querySelector('.tc-story-river') && window.$tw?.wiki, null, { timeout: 600_000 });
    console.log(`  ${size} tiddlers: built and loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // In the page: when the last tool result of a round is in, and when the next request goes out.
    await page.evaluate(() => {
      window.__pageGaps = [];
      let lastTool = 0;
      const runner = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '').getRunner();
      runner.subscribe('Bench chat', (e) => {
        if (e.type === 'tool-finished') lastTool = performance.now();
      });
      const f = window.fetch;
      window.fetch = function (...args) {
        if (lastTool) window.__pageGaps.push(performance.now() - lastTool);
        lastTool = 0;
        return f.apply(this, args);
      };
    });
    if (process.env.BENCH_TIMELINE)
      await page.evaluate(() => {
        window.__tl = [];
        const t0 = performance.now();
        const d = $tw.wiki.dispatchEvent;
        $tw.wiki.dispatchEvent = function (type, ...args) {
          const s = performance.now();
          const r = d.call(this, type, ...args);
          if (type === 'change')
            window.__tl.push(`${(s - t0).toFixed(1)} change ${Object.keys(args[0]).join(',').slice(0, 100)} took ${(performance.now() - s).toFixed(1)}`);
          return r;
        };
        const f = window.fetch;
        window.fetch = function (...a) {
          window.__tl.push(`${(performance.now() - t0).toFixed(1)} fetch`);
          return f.apply(this, a);
        };
      });
    if (process.env.BENCH_FILTERS)
      await page.evaluate(() => {
        const orig = $tw.wiki.constructor.prototype.filterTiddlers;
        window.__ft = new Map();
        $tw.wiki.filterTiddlers = function (f, w, s) {
          const t = performance.now();
          const r = orig.call(this, f, w, s);
          const d = performance.now() - t;
          const k = typeof f === 'string' ? f : String(f);
          window.__ft.set(k, (window.__ft.get(k) || 0) + d);
          return r;
        };
      });
    for (const batch of BATCHES) {
      calls = batch;
      gaps = [];
      await page.evaluate(() => (window.__pageGaps = []));
      const cdp = process.env.BENCH_PROFILE && size === SIZES.at(-1) && batch === 1 ? await page.context().newCDPSession(page) : undefined;
      if (cdp) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.start'));
      for (let turn = 0; turn < TURNS; turn++) {
        const status = await page.evaluate(async (text) => {
          const runner = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '').getRunner();
          return (await runner.submit({ kind: 'send', chat: 'Bench chat', text })).status;
        }, `turn ${turn}`);
        if (status !== 'completed') throw new Error(`turn ended ${status}`);
      }
      results[`${size}/${batch}`] = gaps.slice(WARMUP);
      pageResults[`${size}/${batch}`] = (await page.evaluate(() => window.__pageGaps)).slice(WARMUP);
      if (cdp) fs.writeFileSync(process.env.BENCH_PROFILE, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    }
    if (process.env.BENCH_TIMELINE) console.log(await page.evaluate(() => window.__tl.slice(-30).join('\n')));
    if (process.env.BENCH_FILTERS)
      console.log(
        await page.evaluate(() =>
          [...window.__ft]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 15)
            .map(([k, v]) => `${v.toFixed(0)} ms ${k.slice(0, 160)}`)
            .join('\n'),
        ),
      );
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    await page.close();
    if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await browser.close();
  server.close();
}

const row = (table, key) => {
  const xs = table[key];
  return `${median(xs).toFixed(1)} ms [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`;
};
const ratio = (table, batch) =>
  SIZES.length > 1 ? `; ratio ${(median(table[`${SIZES.at(-1)}/${batch}`]) / median(table[`${SIZES[0]}/${batch}`])).toFixed(2)}x` : '';
console.log(`One agent round in Chromium (${TURNS - WARMUP} turns after ${WARMUP} warm-up), the chat open in the story river`);
console.log("  A. in the page, the last tool result of a round -> the next model request goes out (the product's own time):");
for (const batch of BATCHES)
  console.log(
    `     ${batch === 1 ? 'one wiki-read' : `${batch} wiki-reads`}: ${SIZES.map((size) => `${size.toLocaleString('en')} tiddlers ${row(pageResults, `${size}/${batch}`)}`).join(', ')}${ratio(pageResults, batch)}`,
  );
console.log('  B. at the model server, the reply with tool calls ends -> the next request arrives (also waits for');
console.log("     TiddlyWiki's page refresh after the previous write, which at 100k runs core filters over every tiddler):");
for (const batch of BATCHES)
  console.log(
    `     ${batch === 1 ? 'one wiki-read' : `${batch} wiki-reads`}: ${SIZES.map((size) => `${size.toLocaleString('en')} tiddlers ${row(results, `${size}/${batch}`)}`).join(', ')}${ratio(results, batch)}`,
  );
const big = median(pageResults[`${SIZES.at(-1)}/1`]);
const small = median(pageResults[`${SIZES[0]}/1`]);
console.log(
  `Goal (issue 13, A): <= 100 ms at ${SIZES.at(-1).toLocaleString('en')} tiddlers: ${big.toFixed(1)} ms ${big <= 100 ? 'met' : 'NOT met'}; within 1.5x of ${SIZES[0].toLocaleString('en')}: ${(big / small).toFixed(2)}x ${big / small <= 1.5 ? 'met' : 'NOT met'}`,
);
process.exit(0);
