// What `npm run build` gives a user who has no repository: dist/agent.json, the plugin as one
// tiddler, works in a stock empty wiki (the library, the widgets, the shipped agent, a chat,
// the getting-started guide); dist/library/ is a TiddlyWiki plugin library in TiddlyWiki's own
// format (index.html with TiddlyWiki's library server, the list, one file per plugin named as
// the library server asks for it), offers the agent and MCP for wikis without a server but not
// the server edition, and scripts/serve-library.cjs serves it as a wiki requests it.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/tw';

const { serveLibrary } = require('../../scripts/serve-library.cjs');

const LIBRARY = path.join(ROOT, 'dist', 'library');
const dist = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', `${name}.json`), 'utf8'));

test('the JSON plugin tiddler works in an empty wiki', async () => {
  const plugin = dist('agent');
  expect(plugin.title).toBe('$:/plugins/tiddlyagent/agent');
  const $tw = require('tiddlywiki').TiddlyWiki();
  $tw.boot.argv = [path.join(ROOT, 'node_modules', 'tiddlywiki', 'editions', 'empty')];
  $tw.preloadTiddlerArray([plugin, { title: 'My chat', agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'idle' }]);
  await new Promise<void>((resolve) => $tw.boot.boot(resolve));
  expect($tw.modules.titles['$:/plugins/tiddlyagent/agent/lib.js']).toBeDefined();
  expect($tw.wiki.getTiddler('$:/plugins/tiddlyagent/agent/agents/wiki-assistant').fields.caption).toBe('Wiki Assistant');
  const html: string = $tw.wiki.renderTiddler('text/html', '$:/core/ui/ViewTemplate/body', { variables: { currentTiddler: 'My chat' } });
  expect(html).toContain('class="tc-ai-chat"');
  expect(html).toContain('data-chat="My chat"');
  // The plugin brings its own getting-started guide, one of its info tabs, leading to the settings.
  expect(JSON.parse(plugin.text).tiddlers['$:/plugins/tiddlyagent/agent/getting-started']).toBeDefined();
  expect(plugin.list).toContain('getting-started');
  const guide: string = $tw.wiki.renderText(
    'text/plain',
    'text/vnd.tiddlywiki',
    '\\import [subfilter{$:/core/config/GlobalImportFilter}]\n{{$:/plugins/tiddlyagent/agent/getting-started}}',
  );
  expect(guide).toContain('Open the TiddlyAgent settings');
});

test('dist/library is a TiddlyWiki plugin library of the agent and MCP plugins, without the server edition', () => {
  const list = JSON.parse(fs.readFileSync(path.join(LIBRARY, 'recipes', 'library', 'tiddlers.json'), 'utf8'));
  expect(list.map((p: { title: string }) => p.title)).toEqual([
    '$:/plugins/tiddlyagent/agent',
    '$:/plugins/tiddlyagent/mcp-browser',
    '$:/plugins/tiddlyagent/pdf',
  ]);
  for (const entry of list) {
    // The list carries what "Get more plugins" shows, never the plugin's content.
    expect(entry).toMatchObject({ 'plugin-type': 'plugin', 'requires-reload': 'yes', version: expect.any(String), description: expect.any(String) });
    expect(entry.text).toBeUndefined();
    // One file per plugin, named as TiddlyWiki's library server asks for it, holding the plugin as dist/ has it.
    const file = path.join(LIBRARY, 'recipes', 'library', 'tiddlers', `${encodeURIComponent(entry.title)}.json`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(dist(entry.title.split('/').pop()));
  }
  expect(list[0].readme).toContain('TiddlyAgent');
  // MCP for wikis without a server brings the agent along.
  expect(list[1].dependents).toBe('$:/plugins/tiddlyagent/agent');
  const index = fs.readFileSync(path.join(LIBRARY, 'index.html'), 'utf8');
  // TiddlyWiki's library page: the list inline, and the script that answers the wiki's postMessage requests.
  expect(index).toContain('var assetList = [');
  expect(index).toContain('window.addEventListener("message"');
  expect(index).toContain('"title":"$:/config/TiddlyAgentPluginLibrary"');
  expect(index).not.toContain('$:/plugins/tiddlyagent/server');
});

test("serve-library answers as TiddlyWiki's library page asks: the page, the list, a plugin by its twice-encoded title; nothing outside", async () => {
  const library = await serveLibrary({ port: 0 });
  try {
    const get = (p: string) => fetch(`${library.url}${p}`);
    expect((await get('/')).headers.get('content-type')).toContain('text/html');
    expect((await get('/index.html')).status).toBe(200);
    expect((await (await get('/recipes/library/tiddlers.json')).json()).length).toBe(3);
    // libraryserver.js requests "recipes/library/tiddlers/" + encodeURIComponent(<the URL-encoded title>.json).
    const encoded = encodeURIComponent(`${encodeURIComponent('$:/plugins/tiddlyagent/agent')}.json`);
    const plugin = await get(`/recipes/library/tiddlers/${encoded}`);
    expect(plugin.status).toBe(200);
    expect((await plugin.json()).title).toBe('$:/plugins/tiddlyagent/agent');
    expect((await (await get('/plugins/agent.json')).json()).title).toBe('$:/plugins/tiddlyagent/agent');
    for (const outside of ['/..%2F..%2Fpackage.json', '/plugins/..%2Fpackage.json', '/plugins/library%2Findex.html', '/%2e%2e/%2e%2e/package.json'])
      expect((await get(outside)).status).toBe(404);
    expect((await fetch(`${library.url}/index.html`, { method: 'POST' })).status).toBe(405);
  } finally {
    await library.close();
  }
});
