// The TiddlyAgent plugins as a TiddlyWiki plugin library, dist/library/, which any wiki opens under
// Control Panel → Plugins → Get more plugins once a tiddler tagged $:/tags/PluginLibrary names its
// address. TiddlyWiki's own format, written by TiddlyWiki's own commands as its pluginlibrary
// edition's `--build library` does: index.html (the page the wiki loads in a hidden iframe; its
// libraryserver.js answers the wiki's requests by postMessage), recipes/library/tiddlers.json
// (the list the wiki shows) and recipes/library/tiddlers/<encoded title>.json (each plugin).
// Only what a wiki installs for itself is offered: the agent and MCP for wikis without a server.
// The server edition ("platform": "server") runs only in a Node.js wiki folder, so it is not here.
// Opened directly, index.html says how to use it and carries a box to drag into a wiki (the
// library tiddler, with the page's own address) and links to the plugin files themselves.
// build.mjs calls buildLibrary after the plugins; `node scripts/build-library.mjs` rebuilds it alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const LIBRARY_DIR = path.join(ROOT, 'dist', 'library');
const BUNDLE = '$:/UpgradeLibrary';
const LIST = '$:/UpgradeLibrary/List';
const TEMPLATE = '$:/tiddlyagent/library.template.html';
/** The tiddler a wiki needs to list this library (dragged in from index.html, which fills in `url`). */
const LIBRARY_TIDDLER = {
  title: '$:/config/TiddlyAgentPluginLibrary',
  tags: '$:/tags/PluginLibrary',
  caption: 'TiddlyAgent',
  text: 'The TiddlyAgent plugins: the AI agent, and MCP for wikis without a server.',
};

/** The file name --savelibrarytiddlers gives a plugin: its title as $tw.utils.encodeURIComponentExtended encodes it. */
const fileName = (title) => `${encodeURIComponent(title).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}.json`;
const escapeHtml = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function template(plugins) {
  // A link to a plugin's file encodes its (already encoded) name once more.
  const links = plugins
    .map((p) => {
      const name = `${p.title.split('/').pop()}.json`;
      return `<li><a href="recipes/library/tiddlers/${encodeURIComponent(fileName(p.title))}" download="${escapeHtml(name)}">${escapeHtml(name)}</a>: ${escapeHtml(p.description ?? '')}</li>`;
    })
    .join('\n');
  // Only TiddlyWiki's transclusions are wikitext here (the two scripts): no double braces elsewhere.
  return `\\rules only filteredtranscludeinline transcludeinline
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="application-name" content="TiddlyWiki Plugin Library">
<title>TiddlyAgent plugin library</title>
<script>
{{$:/plugins/tiddlywiki/pluginlibrary/asset-list-json}}
{{$:/plugins/tiddlywiki/pluginlibrary/libraryserver.js}}
</script>
<style>
body { font-family: system-ui, sans-serif; max-width: 44em; margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; background: #fff; }
code { background: #f2f2f2; padding: 0 0.2em; }
.drag { display: inline-block; border: 2px dashed #555; border-radius: 6px; padding: 0.4em 1em; cursor: grab; color: #222; text-decoration: none; font-weight: 600; }
</style>
</head>
<body>
<h1>TiddlyAgent plugin library</h1>
<p>An AI agent that lives inside your TiddlyWiki (5.3 or later). This page is a plugin library: your wiki opens it; it is not a wiki itself.</p>
<h2>Install from this library</h2>
<ol>
<li>Drag this box into your wiki and press <em>Import</em>: <a class="drag" id="library" href="#" draggable="true">TiddlyAgent plugin library</a><br>
(or make a tiddler tagged <code>$:/tags/PluginLibrary</code> whose field <code>url</code> is <code id="url">this page's address</code>).</li>
<li>In your wiki: Control Panel → Plugins → <em>Get more plugins</em> → <em>TiddlyAgent</em> → <em>Open plugin library</em>, and <em>Install</em> TiddlyAgent.</li>
<li>Save the wiki and open it again: a getting-started guide leads you to set up a provider.</li>
</ol>
<h2>Or drag a plugin file into your wiki</h2>
<ul>
${links}
</ul>
<p>The server edition (turns that run on a Node.js server, keys in its environment) is not offered here: it is installed in a Node.js wiki folder, as the project's README says.</p>
<script>
(function() {
  var url = location.href.replace(/[?#].*$/, "");
  var tiddler = ${JSON.stringify(LIBRARY_TIDDLER)};
  tiddler.url = url;
  document.getElementById("url").textContent = url;
  var box = document.getElementById("library");
  box.addEventListener("click", function(event) { event.preventDefault(); });
  box.addEventListener("dragstart", function(event) {
    event.dataTransfer.setData("text/vnd.tiddler", JSON.stringify(tiddler));
    event.dataTransfer.setData("text/plain", url);
  });
})();
</script>
</body>
</html>`;
}

/** Write the library of `plugins` (plugin tiddlers, as in dist/*.json) to `out`, with TiddlyWiki's commands. */
export async function buildLibrary(plugins, out = LIBRARY_DIR) {
  const wiki = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-library-'));
  try {
    fs.writeFileSync(path.join(wiki, 'tiddlywiki.info'), JSON.stringify({ plugins: ['tiddlywiki/pluginlibrary'] }));
    fs.rmSync(out, { recursive: true, force: true });
    const $tw = require('tiddlywiki').TiddlyWiki();
    $tw.boot.argv = [
      wiki,
      '--output',
      out,
      '--savelibrarytiddlers',
      BUNDLE,
      '[prefix[$:/plugins/tiddlyagent/]]',
      'recipes/library/tiddlers/',
      LIST,
      '--savetiddler',
      LIST,
      'recipes/library/tiddlers.json',
      '--rendertiddler',
      TEMPLATE,
      'index.html',
      'text/plain',
    ];
    // What TiddlyWiki's --makelibrary makes from every plugin on the plugin path, made from ours alone.
    const bundle = {
      title: BUNDLE,
      type: 'application/json',
      'plugin-type': 'library',
      text: JSON.stringify({ tiddlers: Object.fromEntries(plugins.map((p) => [p.title, p])) }),
    };
    $tw.preloadTiddlerArray([bundle, { title: TEMPLATE, text: template(plugins) }]);
    await new Promise((resolve) => $tw.boot.boot(resolve));
  } finally {
    fs.rmSync(wiki, { recursive: true, force: true });
  }
  return JSON.parse(fs.readFileSync(path.join(out, 'recipes', 'library', 'tiddlers.json'), 'utf8')).map((p) => p.title);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const plugins = fs
    .readdirSync(path.join(ROOT, 'src'))
    .filter(
      (name) =>
        fs.existsSync(path.join(ROOT, 'src', name, 'plugin.info')) &&
        JSON.parse(fs.readFileSync(path.join(ROOT, 'src', name, 'plugin.info'), 'utf8')).platform !== 'server',
    )
    .map((name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', `${name}.json`), 'utf8')));
  const titles = await buildLibrary(plugins);
  console.log(`plugin library in ${path.relative(ROOT, LIBRARY_DIR)}: ${titles.join(', ')}`);
}
