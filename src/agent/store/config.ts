/*\
The wiki's TiddlyAgent settings: one tiddler each under $:/config/tiddlyagent/, its text the
value. Every read goes through configValue, which trims: a .tid file or an editor easily leaves
a newline or spaces around a value, and an exact comparison (an agent's title, `yes`) would then
quietly miss. Wikitext reads them through the global function `ai.config` (ui/config/config.tid).
\*/

/** The settings' titles. */
export const CONFIG = {
  /** The agent a new chat starts with. */
  defaultAgent: '$:/config/tiddlyagent/default-agent',
  /** `no` turns the automatic title after a chat's first turn off. */
  autoTitle: '$:/config/tiddlyagent/auto-title',
  /** The tools an imported agent may have at most (runner/services/transfer.ts); empty: the default agent's. */
  importToolCeiling: '$:/config/tiddlyagent/import-tool-ceiling',
  /** The provider profile that embeds tiddlers for search by meaning. */
  semanticProfile: '$:/config/tiddlyagent/semantic/profile',
  /** `yes` while the semantic indexer runs. */
  semanticEnabled: '$:/config/tiddlyagent/semantic/enabled',
  /** Loopback or private hosts web-fetch may read in a wiki without a server. */
  webAllowHosts: '$:/config/tiddlyagent/web-fetch/allow-hosts',
  /** `yes`: the server edition serves the wiki's tools at /mcp. */
  mcpServerEnabled: '$:/config/tiddlyagent/mcp-server/enabled',
  /** The agent whose tools and rules /mcp uses. */
  mcpServerAgent: '$:/config/tiddlyagent/mcp-server/agent',
  /** `yes` once the getting-started guide was shown (ui/getting-started-startup.ts). */
  gettingStartedShown: '$:/config/tiddlyagent/getting-started-shown',
  /** The data format the wiki's chats were last brought to (store/data-format.ts). */
  dataFormat: '$:/config/tiddlyagent/data-format',
} as const;

/** A wiki as the store sees it (a WikiPort), or as TiddlyWiki's own wiki object is. */
type ConfigSource =
  | { getFields(title: string): { text?: string } | undefined }
  | { getTiddlerText(title: string, fallback?: string): string | null | undefined };

/** A setting's value, trimmed; '' when its tiddler is missing or empty. */
export function configValue(wiki: ConfigSource, title: string): string {
  const text = 'getFields' in wiki ? wiki.getFields(title)?.text : wiki.getTiddlerText(title);
  return (text ?? '').trim();
}
