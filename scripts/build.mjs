// Build every plugin under src/<plugin>/ (Modern.TiddlyDev conventions) into
//   plugins/<plugin>/   a TiddlyWiki plugin folder, loaded because the repo root is a wiki folder
//   dist/<plugin>.json  the same plugin as one JSON tiddler, to drag into any wiki
// and the plugins a wiki installs for itself into dist/library/, a TiddlyWiki plugin library
// (build-library.mjs) that "Get more plugins" opens.
// A `.ts` file with a sibling `.ts.meta` is an entry point: a CommonJS module whose title ends
// in `.js`. bundle-modules.mjs bundles a plugin's entry points together, so a source file that
// several of them import is in one module, not in each (code shared by several entry points is
// in `chunks/<hash>.js`, library modules they require). Every other file except TypeScript
// sources is copied.
// Flags: --dev (inline source maps, no minification), --quiet.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildLibrary } from './build-library.mjs';
import { bundleModules } from './bundle-modules.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const OUT = path.join(ROOT, 'plugins');
const DIST = path.join(ROOT, 'dist');
const dev = process.argv.includes('--dev');
const quiet = process.argv.includes('--quiet');

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

function readMeta(file) {
  const fields = {};
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const m = /^([^:\s]+):\s?(.*)$/.exec(line);
    if (m) fields[m[1]] = m[2];
  }
  return fields;
}

function writeMeta(file, fields) {
  fs.writeFileSync(
    file,
    `${Object.entries(fields)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n`,
  );
}

async function buildPlugin(name) {
  const srcDir = path.join(SRC, name);
  const info = JSON.parse(fs.readFileSync(path.join(srcDir, 'plugin.info'), 'utf8'));
  // A plugin only for other wikis (e.g. the MCP client for browser-only wikis) is built beside
  // plugins/, so the demo wiki, which loads everything in plugins/, does not carry it.
  const outDir = info['tiddlyagent-dist-only'] ? path.join(ROOT, 'output', 'dist-only', name) : path.join(OUT, name);
  const server = info.platform === 'server';
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });

  const files = walk(srcDir);
  const entries = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && fs.existsSync(`${f}.meta`));
  for (const file of files) {
    const rel = path.relative(srcDir, file);
    if (file.endsWith('.ts') || file.endsWith('.ts.meta')) continue;
    fs.mkdirSync(path.dirname(path.join(outDir, rel)), { recursive: true });
    fs.copyFileSync(file, path.join(outDir, rel));
  }
  const metas = new Map();
  for (const entry of entries) {
    const meta = readMeta(`${entry}.meta`);
    meta.title = meta.title.replace(/\.ts$/, '.js');
    metas.set(path.join(outDir, path.relative(srcDir, entry).replace(/\.ts$/, '.js')), meta);
  }
  const modules = await bundleModules({
    entries,
    srcDir,
    outDir,
    pluginTitle: info.title,
    titleOf: (output) => metas.get(output).title,
    server,
    dev,
    // `$:/…` are other TiddlyWiki modules; `vm`, `node:*` and jsdom are only required under Node
    // (runner/host/host.ts, runner/host/web-fetch-node.ts), where TiddlyWiki hands them to Node's require.
    // The server plugin requires the MCP SDK from node_modules at run time (server/mcp/,
    // server/mcp-sdk.ts), so it runs in Node's own context and loads only when first used.
    external: ['$:/*', 'vm', 'node:*', 'jsdom', ...(server ? ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'zod', 'zod/*'] : [])],
  });
  for (const module of modules) {
    fs.mkdirSync(path.dirname(module.path), { recursive: true });
    fs.writeFileSync(module.path, module.text);
    // A chunk is a library module: compiled when a module that needs it is.
    writeMeta(`${module.path}.meta`, metas.get(module.path) ?? { title: module.title, type: 'application/javascript', 'module-type': 'library' });
  }
  const jsBytes = modules.reduce((n, m) => n + Buffer.byteLength(m.text), 0);

  // The JSON plugin tiddler, made by TiddlyWiki itself from the folder.
  const $tw = require('tiddlywiki').TiddlyWiki();
  $tw.boot.argv = ['--version'];
  $tw.boot.initStartup({});
  const plugin = $tw.loadPluginFolder(outDir);
  fs.mkdirSync(DIST, { recursive: true });
  fs.writeFileSync(path.join(DIST, `${name}.json`), JSON.stringify(plugin));
  return { name, title: info.title, jsBytes, modules: modules.length, chunks: modules.length - entries.length, plugin, server };
}

const started = Date.now();
const plugins = fs.readdirSync(SRC).filter((d) => fs.existsSync(path.join(SRC, d, 'plugin.info')));
const results = [];
for (const name of plugins) results.push(await buildPlugin(name));
const library = await buildLibrary(results.filter((r) => !r.server).map((r) => r.plugin));
if (!quiet) {
  for (const r of results) {
    console.log(`built ${r.title}: ${r.modules} module(s) (${r.chunks} shared), ${(r.jsBytes / 1024).toFixed(1)} KiB of ${dev ? '' : 'minified '}JS`);
  }
  console.log(`plugin library in dist/library: ${library.join(', ')}`);
  console.log(`build took ${Date.now() - started} ms`);
}
