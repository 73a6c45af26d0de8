// `npm run build:library`: the TiddlyAgent plugins as a TiddlyWiki plugin library
// (output/library/: index.html + recipes/library/tiddlers/*.json), which a wiki can add
// under Control Panel → Plugins → Get more plugins. Built with TiddlyWiki's own
// pluginlibrary plugin, with our built plugins/ on the plugin path.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'output', 'library');
const pluginPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-library-'));
fs.mkdirSync(path.join(pluginPath, 'tiddlyagent'));
for (const name of fs.readdirSync(path.join(ROOT, 'plugins'))) {
  fs.symlinkSync(path.join(ROOT, 'plugins', name), path.join(pluginPath, 'tiddlyagent', name));
}
const wiki = path.join(pluginPath, 'wiki');
fs.mkdirSync(wiki);
fs.writeFileSync(path.join(wiki, 'tiddlywiki.info'), JSON.stringify({ plugins: ['tiddlywiki/pluginlibrary'] }));
fs.rmSync(OUT, { recursive: true, force: true });
const run = spawnSync(
  process.execPath,
  [
    path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js'),
    wiki,
    '--output', OUT,
    '--makelibrary', '$:/UpgradeLibrary',
    '--savelibrarytiddlers', '$:/UpgradeLibrary', '[prefix[$:/plugins/tiddlyagent/]]', 'recipes/library/tiddlers/', '$:/UpgradeLibrary/List',
    '--savetiddler', '$:/UpgradeLibrary/List', 'recipes/library/tiddlers.json',
    '--rendertiddler', '$:/plugins/tiddlywiki/pluginlibrary/library.template.html', 'index.html', 'text/plain',
  ],
  { env: { ...process.env, TIDDLYWIKI_PLUGIN_PATH: pluginPath }, stdio: 'inherit' },
);
fs.rmSync(pluginPath, { recursive: true, force: true });
if (run.status !== 0) process.exit(run.status ?? 1);
const plugins = JSON.parse(fs.readFileSync(path.join(OUT, 'recipes', 'library', 'tiddlers.json'), 'utf8'));
console.log(`plugin library in ${path.relative(ROOT, OUT)}: ${plugins.map((p) => p.title).join(', ')}`);
