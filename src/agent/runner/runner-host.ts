/*\
RunnerHost: what a LocalRunner gets from where it runs (a browser tab, the headless command,
the Node.js server): the wiki, fetch, keys, tools and the host adapters (MCP, web pages, search
by meaning), and where its operations are persisted.
\*/
import type { Clock } from '../clock';
import type { EnginePlugin } from '../engine/hooks';
import type { FetchFn, LanguageModel } from '../providers/types';
import type { SemanticPort } from '../search/semantic';
import type { ProviderProfile } from '../store/schemas';
import type { WikiPort } from '../store/wiki-port';
import type { ToolDefinition } from '../tools/tool';
import type { WebFetcher } from '../tools/web-fetcher';
import type { McpConnections } from './host/mcp-client';
import type { OperationLog } from './operations';

export interface RunnerHost {
  wiki: WikiPort;
  fetch: FetchFn;
  /**
   * The secret stored under a profile's `api-key-name`, for a call to `url`, if any. Under Node
   * it throws KeyRefused where the owner's configuration does not let it go there.
   */
  getApiKey(name: string, url: string): string | undefined;
  /** Why this process may not call `url` (Node: the owner's address rules), checked before Test the connection calls it. */
  addressRefusal?(url: string): Promise<string | undefined>;
  /** Every secret this process may read: what Test the connection's result is scrubbed of. */
  secrets?(): string[];
  /** Where the user sets a missing key, for the error message, and its hint (runner/api-key.ts). */
  keyHint: string;
  keyHintName?: string;
  tools: ReadonlyMap<string, ToolDefinition>;
  plugins?: ReadonlyMap<string, EnginePlugin>;
  /** Replaces the provider registry, e.g. with a scripted model in tests. */
  createModel?(profile: ProviderProfile): LanguageModel;
  /** Where operations are persisted (default: memory, for as long as the page lives). */
  operations?: OperationLog;
  /**
   * Keep queued messages' words in the chat's `agent-queued` field, so they come back into
   * the input after a reload (a browser, whose operations live only in memory).
   */
  saveQueueInChat?: boolean;
  /** What restart recovery says in a chat whose turn was cut off. */
  interruptedText?: string;
  /** The MCP servers' connections (runner/host/mcp-client.ts); without it, agents have no MCP tools. */
  mcp?: McpConnections;
  now?(): number;
  /** Timers for the waits that run out (runner/expiry.ts), with `now`; default: the system's. */
  clock?: Clock;
  /** Outside pages for web-fetch (runner/host/web-fetch-node.ts or web-fetch-browser.ts); absent: web-fetch says it is not available. */
  web?: WebFetcher;
  /** Search by meaning for wiki-search (runner/host/semantic-host.ts); absent: it falls back to text. */
  semantic?: SemanticPort;
}
