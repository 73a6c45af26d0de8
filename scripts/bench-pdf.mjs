// What a 100-page PDF costs the agent (runner/host/pdf-text.ts, tools/documents.ts): in a real
// TiddlyWiki booted in Node with the built plugins, a PDF tiddler made here (scripts/make-pdf.cjs,
// ~2,000 characters of text a page) is
//   1. extracted the first time (PDF.js's module loaded in a worker, then every page read; the
//      main thread's longest stall meanwhile is shown),
//   2. indexed: the ranked text index built with its text and searched for a word on page 77,
//   3. found by wiki-search, whose snippet names the page,
//   4. read again by wiki-read (its text kept in memory: nothing extracted again),
//   5. and a second PDF extracted, PDF.js loaded: the extraction alone.
// Run after `node scripts/build.mjs`. Prints one line per step; BENCH_PAGES changes the size.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { makePdf } = require('./make-pdf.cjs');
const PAGES = Number(process.env.BENCH_PAGES || 100);

const words = ['garden', 'river', 'budget', 'meeting', 'harvest', 'ledger', 'season', 'orchard', 'report', 'summary'];
const pages = Array.from(
  { length: PAGES },
  (_, p) =>
    Array.from({ length: 28 }, (_, line) => Array.from({ length: 12 }, (_, w) => words[(p * 7 + line * 3 + w) % words.length]).join(' ')).join('\n') +
    (p === 76 ? '\nThe okapi appears only on this page.' : ''),
);
const pdf = makePdf(pages);
const fmt = (ms) => ms.toFixed(0).padStart(6);

const $tw = require('tiddlywiki').TiddlyWiki();
$tw.boot.argv = [ROOT];
$tw.preloadTiddlerArray([{ title: 'Bench report.pdf', type: 'application/pdf', text: pdf.toString('base64') }]);
await new Promise((resolve) => $tw.boot.boot(resolve));
const lib = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
const port = lib.createTiddlyWikiPort($tw.wiki);
const moduleBytes = $tw.modules.titles['$:/plugins/tiddlyagent/pdf/pdf.js']?.definition?.length ?? 0;

console.log(
  `PDF of ${PAGES} pages (${(pdf.length / 1024).toFixed(0)} KB, ${pages.join('').length} characters of text); pdf.js module ${(moduleBytes / 1024).toFixed(0)} KB; Node ${process.version}`,
);

// The main thread's longest stall while a PDF is read (a server answers nothing during one).
function watchLoop() {
  let last = performance.now();
  let longest = 0;
  let on = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    on = false;
    return Math.max(longest, performance.now() - last);
  };
}

let t = performance.now();
let stall = watchLoop();
const text = await port.documentText('Bench report.pdf');
const extracted = performance.now() - t;
if (!text?.pages || text.pages.length !== PAGES) throw new Error(`bench-pdf: extraction failed: ${JSON.stringify(text).slice(0, 200)}`);
console.log(`  extract (first time: PDF.js loaded, ${PAGES} pages read) ${fmt(extracted)} ms  (main thread's longest stall ${fmt(stall())} ms)`);

t = performance.now();
const index = lib.textIndexOf($tw.wiki);
await index.whenReady();
const ranked = port.rankedSearch('okapi');
const indexed = performance.now() - t;
if (!ranked.ready || ranked.hits[0]?.title !== 'Bench report.pdf') throw new Error('bench-pdf: the PDF was not found by its word on page 77');
console.log(`  index: text index built with it, "okapi" (page 77) found ${fmt(indexed)} ms  (${$tw.wiki.allTitles().length} tiddlers in the wiki)`);

const tool = lib.WIKI_READ_TOOLS.find((x) => x.name === 'wiki-search');
const context = lib.createToolContext(port, { chat: 'Bench chat', agent: {}, signal: new AbortController().signal, turn: 't' });
t = performance.now();
const found = await tool.execute(tool.parameters.parse({ query: 'okapi' }), context);
const searched = performance.now() - t;
if (!found.content.includes('[page 77]')) throw new Error('bench-pdf: the snippet does not name page 77');
console.log(`  wiki-search "okapi": its snippet names [page 77] ${fmt(searched)} ms`);

t = performance.now();
const reader = lib.WIKI_READ_TOOLS.find((x) => x.name === 'wiki-read');
const read = await reader.execute(reader.parameters.parse({ title: 'Bench report.pdf' }), context);
const reread = performance.now() - t;
if (!read.content.includes('[page 1]')) throw new Error('bench-pdf: wiki-read did not return the pages');
console.log(`  wiki-read again (text kept in memory)                ${fmt(reread)} ms`);
const stats = lib.pdfTextStats();
console.log(`  PDFs extracted in all: ${stats.extracted} (the index and both tools shared one extraction)`);

// A second PDF of the same size, PDF.js already loaded: the extraction alone.
const second = makePdf(pages.map((page) => `${page}\nSecond copy.`)).toString('base64');
t = performance.now();
stall = watchLoop();
const again = await lib.documentText({ title: 'Second.pdf', type: 'application/pdf', text: second });
if (again.pages?.length !== PAGES) throw new Error('bench-pdf: the second extraction failed');
console.log(`  extract another ${PAGES}-page PDF (PDF.js loaded)          ${fmt(performance.now() - t)} ms  (main thread's longest stall ${fmt(stall())} ms)`);
