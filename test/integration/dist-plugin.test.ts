// dist/agent.json is the plugin as one tiddler, for dragging into any wiki: loaded into a
// stock empty TiddlyWiki, it brings the library, the widgets and the shipped agent, and a
// chat tiddler renders as a chat.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/tw';

test('the JSON plugin tiddler works in an empty wiki', async () => {
  const plugin = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'agent.json'), 'utf8'));
  expect(plugin.title).toBe('$:/plugins/tiddlyagent/agent');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const $tw = require('tiddlywiki').TiddlyWiki();
  $tw.boot.argv = [path.join(ROOT, 'node_modules', 'tiddlywiki', 'editions', 'empty')];
  $tw.preloadTiddlerArray([plugin, { title: 'My chat', agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'idle' }]);
  await new Promise<void>((resolve) => $tw.boot.boot(resolve));
  expect($tw.modules.titles['$:/plugins/tiddlyagent/agent/lib.js']).toBeDefined();
  expect($tw.wiki.getTiddler('$:/plugins/tiddlyagent/agent/agents/wiki-assistant').fields.caption).toBe('Wiki Assistant');
  const html: string = $tw.wiki.renderTiddler('text/html', '$:/core/ui/ViewTemplate/body', { variables: { currentTiddler: 'My chat' } });
  expect(html).toContain('class="tc-ai-chat"');
  expect(html).toContain('data-chat="My chat"');
});
