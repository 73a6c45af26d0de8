// Page-load cost of the plugin in a wiki that shows no chat (DESIGN 9: at most 30 ms over a
// plain wiki; the library module is compiled only when something needs it). Builds two
// single-file wikis from TiddlyWiki's "empty" edition, one with dist/agent.json loaded, and
// opens each in Chromium from disk, alternating, timing navigation start → load event end
// (TiddlyWiki boots and renders the page inside that span).
// Run `node scripts/build.mjs` first. Env: BENCH_LOADS (15), CHROMIUM_PATH (/usr/bin/chromium).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
// The benchmark owns what it starts: its test doubles listen on loopback (the manual's "Who may do what").
process.env.TIDDLYAGENT_CONFIG ??= JSON.stringify({ allowHosts: ['127.0.0.1'] });

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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
const LOADS = Number(process.env.BENCH_LOADS || 15);
const WARMUP = 3;
const TIDDLYWIKI = path.join(path.dirname(require.resolve('tiddlywiki/package.json')), 'tiddlywiki.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-bench-load-'));
function build(name, extra) {
  execFileSync(
    process.execPath,
    [
      TIDDLYWIKI,
      path.join(path.dirname(TIDDLYWIKI), 'editions', 'empty'),
      ...extra,
      '--output',
      dir,
      '--render',
      '$:/core/save/all',
      `${name}.html`,
      'text/plain',
    ],
    { stdio: 'pipe' },
  );
  return path.join(dir, `${name}.html`);
}
const plain = build('plain', []);
const withPlugin = build('with-plugin', ['--load', path.join(ROOT, 'dist', 'agent.json')]);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const page = await browser.newPage();
const times = { plain: [], plugin: [] };
for (let i = 0; i < WARMUP + LOADS; i++) {
  for (const which of i % 2 ? ['plugin', 'plain'] : ['plain', 'plugin']) {
    await page.goto(`file://${which === 'plain' ? plain : withPlugin}`, { waitUntil: 'load' });
    const ms = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      return nav.loadEventEnd || performance.now();
    });
    if (i >= WARMUP) times[which].push(ms);
  }
}
await page.goto(`file://${withPlugin}`, { waitUntil: 'load' });
const libCompiled = await page.evaluate(() => {
  // The library module's exports appear in TiddlyWiki's module cache once it was executed.
  const info = window.$tw.modules.titles['$:/plugins/tiddlyagent/agent/lib.js'];
  return !!info?.exports;
});
await browser.close();
fs.rmSync(dir, { recursive: true, force: true });

const p = median(times.plain);
const w = median(times.plugin);
console.log(`Page load, single-file empty wiki from disk, Chromium, ${WARMUP} warm-up + ${LOADS} loads each, alternating`);
console.log(`  plain wiki                ${p.toFixed(1)} ms [${Math.min(...times.plain).toFixed(1)}–${Math.max(...times.plain).toFixed(1)}]`);
console.log(`  with the agent plugin     ${w.toFixed(1)} ms [${Math.min(...times.plugin).toFixed(1)}–${Math.max(...times.plugin).toFixed(1)}]`);
console.log(`  overhead                  ${(w - p).toFixed(1)} ms (goal <= 30 ms); library module compiled at load: ${libCompiled ? 'yes' : 'no'}`);
