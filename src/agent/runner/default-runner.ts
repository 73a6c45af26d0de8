/*\
The runner for this wiki: one LocalRunner over $tw.wiki, created on first use. In a browser
API keys come from TiddlyWiki's password store (localStorage, never a tiddler); under Node
from the environment variable named by the profile's `api-key-name`. Tools and engine
plugins from other TiddlyWiki plugins are picked up by module type.
\*/
import type { EnginePlugin } from '../engine/hooks';
import { BUILTIN_TOOLS } from '../tools';
import type { ToolDefinition } from '../tools/tool';
import { LocalRunner } from './local-runner';
import { createTiddlyWikiPort } from './tiddlywiki-port';

let runner: LocalRunner | undefined;

export function getRunner(): LocalRunner {
  if (runner) return runner;
  const browser = !!$tw.browser;
  const tools = new Map<string, ToolDefinition>(BUILTIN_TOOLS.map((t) => [t.name, t]));
  $tw.modules.forEachModuleOfType('tiddlyagent-tool', (_title, exports) => {
    const tool = (exports as { tool?: ToolDefinition }).tool;
    if (tool?.name) tools.set(tool.name, tool);
  });
  const plugins = new Map<string, EnginePlugin>();
  $tw.modules.forEachModuleOfType('tiddlyagent-engine-plugin', (_title, exports) => {
    const plugin = exports as Partial<EnginePlugin>;
    if (plugin.name && typeof plugin.apply === 'function') plugins.set(plugin.name, plugin as EnginePlugin);
  });
  runner = new LocalRunner({
    wiki: createTiddlyWikiPort($tw.wiki),
    fetch: (url, init) => fetch(url, init),
    getApiKey: (name) => (browser ? $tw.utils.getPassword(name) : process.env[name]) || undefined,
    keyHint: browser
      ? 'Enter it in Control Panel → Settings → TiddlyAgent; it is kept in this browser only, never in a tiddler.'
      : 'Set the environment variable "$name$" for the TiddlyWiki server.',
    tools,
    plugins,
  });
  return runner;
}
