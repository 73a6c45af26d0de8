/*\
The runner for this wiki, created on first use. In a page served by the Node.js server
edition (the server plugin marks the page, runner/remote-runner.ts) every turn runs on the
server and the page talks to it over HTTP; otherwise one LocalRunner over $tw.wiki runs
turns here. API keys come from TiddlyWiki's password store in a browser (localStorage, never
a tiddler); under Node from the environment, as the owner's configuration allows
(owner-policy.ts), and every call the wiki can point somewhere goes through the owner's
address rules (outbound-node.ts). web-fetch reads pages from this process (the server, in the
server edition). Tools and engine plugins from other TiddlyWiki plugins are picked up by
module type.
\*/
import type * as Page from '$:/plugins/tiddlyagent/agent/page.js';
import type { EnginePlugin } from '../engine/hooks';
import type { FetchFn } from '../providers/types';
import { BUILTIN_TOOLS } from '../tools';
import type { ToolDefinition } from '../tools/tool';
import type { ChatRunner } from './chat-runner';
import { LocalRunner, type RunnerHost } from './local-runner';
import { McpConnections, type McpSdk } from './host/mcp-client';
import { createTiddlyWikiPort } from './host/tiddlywiki-port';
import { createBrowserWebFetcher } from './host/web-fetch-browser';
import { createNodeWebFetcher } from './host/web-fetch-node';
import { semanticPort } from './host/semantic-host';
import { CONFIG_ENV, commandRefusal, envVariableNames, ownerKey, ownerPolicy, ownerSecrets } from './host/owner-policy';
import { checkUrl, createOutboundFetch, resolveChecked, type OutboundRules } from './host/outbound-node';

const MCP_NODE_SDK = '$:/plugins/tiddlyagent/server/mcp-sdk.js';
const MCP_BROWSER_SDK = '$:/plugins/tiddlyagent/mcp-browser/mcp-sdk.js';

interface StdioModule {
  StdioClientTransport: new (params: {
    command: string;
    args: string[];
    env: Record<string, string>;
    stderr: 'ignore';
  }) => ReturnType<NonNullable<McpSdk['stdio']>>;
  getDefaultEnvironment(): Record<string, string>;
}

let local: LocalRunner | undefined;

/** The runner the chat UI talks to. */
export function getRunner(): ChatRunner {
  // One runner per page or process, kept by the page's library (page.ts) that the UI uses.
  return (require('$:/plugins/tiddlyagent/agent/page.js') as typeof Page).getRunner();
}

/** The runner of this process (the headless command, the server plugin, a browser-only wiki). */
export function getLocalRunner(): LocalRunner {
  if (!local) local = createLocalRunner();
  return local;
}

/**
 * A secret by its name, for a call to `url`: in a browser from the password store; under Node
 * from the environment, and only as the owner's configuration allows (owner-policy.ts: a
 * listed key, to an origin it is bound to; KeyRefused otherwise).
 */
export function getSecret(name: string, url: string): string | undefined {
  if ($tw.browser) return $tw.utils.getPassword(name) || undefined;
  return ownerKey(ownerPolicy(), name, url);
}

/** The fetch for calls the wiki's content points somewhere: the page's own in a browser; under Node, one under the owner's address rules. */
export function processFetch(): FetchFn {
  return $tw.browser ? (url, init) => fetch(url, init) : createOutboundFetch(outboundRules);
}

/** The rules of every call this process makes where the wiki points it (Node only). */
export function outboundRules(): OutboundRules {
  const policy = ownerPolicy();
  const allowOrigins = new Set([...policy.keys.values()].flatMap((rule) => rule.origins));
  return { allowHosts: policy.allowHosts, allowOrigins, allowHint: ownerAllowHint };
}

/** Why this process may not call `url` (the owner's address rules), or undefined. */
async function addressRefusal(url: string): Promise<string | undefined> {
  try {
    await resolveChecked(checkUrl(url), outboundRules());
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function ownerAllowHint(url: URL): string {
  return `The server's owner can allow it by adding "${url.host}" to "allowHosts" in the TiddlyAgent configuration (${CONFIG_ENV}).`;
}

/** Where the user sets a missing key (`$name$`: the key's name). */
export function keyHint(): string {
  return $tw.browser
    ? 'Enter it in Control Panel → Settings → TiddlyAgent; it is kept in this browser only, never in a tiddler.'
    : 'Set the environment variable "$name$" for the TiddlyWiki server (or the same name in capitals with underscores, e.g. OPENAI_API_KEY for openai-api-key), or the one the TiddlyAgent configuration names for it.';
}

/** Make this process's runner with some host settings replaced (the server plugin's durable log). */
export function createLocalRunner(overrides: Partial<RunnerHost> = {}): LocalRunner {
  if (local) throw new Error('TiddlyAgent: the runner of this process already exists.');
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
  const mcp = new McpConnections({
    wiki: createTiddlyWikiPort($tw.wiki),
    where: browser ? 'browser' : 'node',
    getSecret,
    getEnv: (name) =>
      browser
        ? undefined
        : envVariableNames(name)
            .map((v) => process.env[v])
            .find((v) => v !== undefined),
    commandRefusal: (command, args, env) => (browser ? undefined : commandRefusal(ownerPolicy(), command, args, env)),
    fetch: browser ? undefined : processFetch(),
    loadSdk: () => {
      // Node: the server plugin requires the SDK from node_modules; a browser-only wiki: the optional bundled plugin.
      const title = browser ? MCP_BROWSER_SDK : MCP_NODE_SDK;
      if (!$tw.modules.titles[title]) {
        throw new Error(
          browser
            ? `calling MCP servers from a wiki without a server needs the plugin $:/plugins/tiddlyagent/mcp-browser (dist/mcp-browser.json); in the server edition they are called from the server.`
            : 'calling MCP servers needs the TiddlyAgent server plugin in this wiki.',
        );
      }
      const sdk = require(title) as McpSdk & Partial<StdioModule>;
      const stdio =
        sdk.StdioClientTransport && sdk.getDefaultEnvironment
          ? { StdioClientTransport: sdk.StdioClientTransport, getDefaultEnvironment: sdk.getDefaultEnvironment }
          : undefined;
      return {
        ...sdk,
        stdio: stdio ? (params) => new stdio.StdioClientTransport({ ...params, env: { ...stdio.getDefaultEnvironment(), ...params.env } }) : undefined,
      };
    },
  });
  local = new LocalRunner({
    mcp,
    wiki: createTiddlyWikiPort($tw.wiki),
    fetch: processFetch(),
    getApiKey: getSecret,
    ...(browser ? {} : { addressRefusal, secrets: () => ownerSecrets(ownerPolicy()) }),
    keyHint: keyHint(),
    keyHintName: browser ? 'no-key' : 'no-key-server',
    tools,
    plugins,
    saveQueueInChat: browser,
    // web-fetch: under Node the resolved addresses are checked; a browser checks host names only.
    web: browser ? createBrowserWebFetcher() : createNodeWebFetcher({ allowHosts: () => ownerPolicy().allowHosts, allowHint: ownerAllowHint }),
    semantic: semanticPort,
    ...overrides,
  });
  // Chats the page showed before the runner existed follow its events from now on (page.ts).
  if (browser) (require('$:/plugins/tiddlyagent/agent/page.js') as typeof Page).localRunnerReady(local);
  return local;
}
