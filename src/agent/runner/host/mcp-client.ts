/*\
MCP connections: the runner's side of the MCP servers an agent uses (tiddlers tagged
`$:/tags/AI/MCPServer`). A connection is opened when a chat's turn first needs a server's
tools, reused by that chat's later turns, opened again after the server went away (a crashed
stdio process, a restarted HTTP server), and closed when it has been idle for a while or its
chat is gone. HTTP servers (Streamable HTTP, or the older HTTP+SSE: mcp-http.ts) work in both
runners (in a browser where the server allows it, CORS); stdio (`mcp-command`) needs Node.js
and the server plugin. Environment variables and the bearer token are named in the tiddler,
never stored: their values come from the host. The SDK is loaded on first use.
\*/
import type { ToolDefinition } from '../../tools/tool';
import { MCP_PREFIX, mcpTools, unavailableServerTool, type ListedTool, type McpCallResult } from '../../tools/mcp-tools';
import { McpServerSchema, parseTiddler, type McpServer } from '../../store/schemas';
import type { WikiPort } from '../../store/wiki-port';
import type { FetchFn } from '../../providers/types';
import { fallsBackToSse, httpTransport, transportOrder, type HttpTransportKind } from './mcp-http';

/** The parts of the SDK the connections use (server/mcp-sdk.ts under Node, the mcp-browser plugin in a browser-only wiki). */
export interface McpSdk {
  Client: new (info: { name: string; version: string }) => SdkClient;
  StreamableHTTPClientTransport: new (url: URL, options?: { requestInit?: { headers?: Record<string, string> }; fetch?: FetchFn }) => SdkTransport;
  /** The older HTTP+SSE transport (absent from an mcp-browser plugin built before it was added). */
  SSEClientTransport?: new (
    url: URL,
    options?: { requestInit?: { headers?: Record<string, string> }; fetch?: FetchFn },
  ) => SdkTransport;
  /** `tools/list` read leniently (one odd tool does not hide the others). */
  LenientListToolsSchema: unknown;
  /** Absent in a browser, or where the server plugin is not installed. */
  stdio?: (params: { command: string; args: string[]; env: Record<string, string>; stderr: 'ignore' }) => SdkTransport;
}

interface SdkTransport {
  close(): Promise<void>;
}

interface SdkClient {
  connect(transport: SdkTransport, options?: { timeout?: number; signal?: AbortSignal }): Promise<void>;
  request(
    request: { method: string; params?: Record<string, unknown> },
    schema: unknown,
    options?: { timeout?: number; signal?: AbortSignal },
  ): Promise<unknown>;
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    schema?: unknown,
    options?: { timeout?: number; signal?: AbortSignal },
  ): Promise<unknown>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

export interface McpHost {
  wiki: WikiPort;
  loadSdk(): McpSdk;
  /** The bearer token of `mcp-key-name` for a call to `url`: password store, or environment as the owner allows (may throw KeyRefused). */
  getSecret(name: string, url: string): string | undefined;
  /** An environment variable the server may see (`mcp-env`), on Node. */
  getEnv(name: string): string | undefined;
  /** Why the owner does not let this command start with these variables (Node; owner-policy.ts), or undefined. */
  commandRefusal?(command: string, args: string[], env: string[]): string | undefined;
  /** The fetch for MCP over HTTP (Node: the owner's address rules, outbound-node.ts); absent: the global one. */
  fetch?: FetchFn;
  /** Where turns run, for the messages: "browser" or "server". */
  where: 'browser' | 'node';
  now?(): number;
}

interface Connection {
  server: McpServer;
  /** The server tiddler's fields when connected: an edit reconnects. */
  fingerprint: string;
  client: SdkClient;
  tools: ListedTool[];
  alive: boolean;
  lastUsed: number;
}

const DEFAULT_TIMEOUT_SECONDS = 30;
/** A connection nobody used for this long is closed (and so is one whose chat is gone). */
export const IDLE_MS = 10 * 60_000;

export class McpConnections {
  /** Per chat, per server name. */
  private connections = new Map<string, Map<string, Connection>>();
  /** Connections being opened, per chat and server: calls that fail together open one, not one each. */
  private opening = new Map<string, Promise<Connection>>();
  private sweeper?: ReturnType<typeof setInterval>;
  private readonly now: () => number;

  constructor(private readonly host: McpHost) {
    this.now = host.now ?? Date.now;
  }

  /** The MCP servers defined in the wiki, by name, or the problem of each that cannot be read. */
  servers(): { servers: Map<string, McpServer>; problems: Map<string, string> } {
    const servers = new Map<string, McpServer>();
    const problems = new Map<string, string>();
    for (const title of this.host.wiki.filter('[all[shadows+tiddlers]tag[$:/tags/AI/MCPServer]!has[draft.of]]')) {
      const fields = this.host.wiki.getFields(title) ?? {};
      try {
        const server = parseTiddler(McpServerSchema, 'MCP server', fields);
        servers.set(server.name, server);
      } catch (e) {
        problems.set(fields.name?.trim() || title, e instanceof Error ? e.message : String(e));
      }
    }
    return { servers, problems };
  }

  /**
   * The tools a chat's agent enabled from MCP servers (`mcp-<server>` or `mcp-<server>-<tool>`
   * in `agent-tools`), connecting as needed. A server that cannot be reached gives one tool
   * that says why, so the turn goes on.
   */
  async toolsFor(chat: string, agentTools: string[], taken: ReadonlySet<string>, signal: AbortSignal): Promise<ToolDefinition[]> {
    const wanted = agentTools.filter((name) => name.startsWith(MCP_PREFIX) && !taken.has(name));
    if (!wanted.length) return [];
    const { servers, problems } = this.servers();
    const names = [...servers.keys(), ...problems.keys()].sort((a, b) => b.length - a.length);
    const needed = new Set<string>();
    for (const name of wanted) {
      const server = names.find((n) => name === `${MCP_PREFIX}${n}` || name.startsWith(`${MCP_PREFIX}${n}-`));
      if (server) needed.add(server);
    }
    const out: ToolDefinition[] = [];
    const names_ = new Set(taken);
    for (const name of needed) {
      const server = servers.get(name);
      if (!server) {
        out.push(unavailableServerTool(name, problems.get(name) ?? 'it is not defined'));
        continue;
      }
      try {
        const connection = await this.connection(chat, server, signal);
        const timeoutMs = (server['mcp-timeout'] ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
        const { tools } = mcpTools(
          name,
          connection.tools,
          { call: (tool, args, callSignal) => this.call(chat, name, tool, args, callSignal) },
          names_,
          timeoutMs + 1000,
        );
        for (const t of tools) names_.add(t.name);
        out.push(...tools);
        // A tool the agent named that the server does not have still exists, and says so.
        for (const wantedName of wanted.filter((w) => w.startsWith(`${MCP_PREFIX}${name}-`) && !names_.has(w)))
          out.push(
            unavailableServerTool(
              wantedName.slice(MCP_PREFIX.length),
              `the server "${name}" has no tool "${wantedName.slice(MCP_PREFIX.length + name.length + 1)}"`,
            ),
          );
      } catch (e) {
        if (signal.aborted) throw e;
        out.push(unavailableServerTool(name, errorMessage(e, server, this.host.where)));
      }
    }
    return out;
  }

  /** Connect to a server and list its tools (the settings tab's "Test"). */
  async test(name: string, signal: AbortSignal): Promise<{ ok: boolean; tools: string[]; error?: string }> {
    const { servers, problems } = this.servers();
    const server = servers.get(name);
    if (!server) return { ok: false, tools: [], error: problems.get(name) ?? `No MCP server is named "${name}".` };
    try {
      const connection = await this.connection('$:/temp/tiddlyagent/mcp-test', server, signal);
      return { ok: true, tools: connection.tools.map((t) => t.name) };
    } catch (e) {
      return { ok: false, tools: [], error: errorMessage(e, server, this.host.where) };
    } finally {
      this.close('$:/temp/tiddlyagent/mcp-test');
    }
  }

  /** Close a chat's connections (or every connection). */
  close(chat?: string): void {
    for (const [c, byServer] of this.connections) {
      if (chat !== undefined && c !== chat) continue;
      for (const connection of byServer.values()) void connection.client.close().catch(() => undefined);
      this.connections.delete(c);
    }
    if (!this.connections.size && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private async call(chat: string, name: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    for (let attempt = 0; ; attempt++) {
      const current = this.connections.get(chat)?.get(name);
      const server = current?.server ?? this.servers().servers.get(name);
      if (!server) throw new Error(`The MCP server "${name}" is no longer defined.`);
      const connection = current?.alive ? current : await this.connection(chat, server, signal);
      connection.lastUsed = this.now();
      try {
        const timeout = (server['mcp-timeout'] ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
        return (await connection.client.callTool({ name: tool, arguments: args }, undefined, { timeout, signal })) as McpCallResult;
      } catch (e) {
        // A call that throws (tool errors come back as results) lost its server: a crashed
        // process, a restarted server that forgot the session. Connect again, once.
        if (signal.aborted || attempt > 0) throw new Error(readable(e, 'answered with a malformed result'));
        this.drop(chat, name, connection);
      }
    }
  }

  private connection(chat: string, server: McpServer, signal: AbortSignal): Promise<Connection> {
    const fingerprint = JSON.stringify(server);
    const existing = this.connections.get(chat)?.get(server.name);
    if (existing?.alive && existing.fingerprint === fingerprint) {
      existing.lastUsed = this.now();
      return Promise.resolve(existing);
    }
    const key = JSON.stringify([chat, server.name]);
    let opening = this.opening.get(key);
    if (!opening) {
      if (existing) this.drop(chat, server.name, existing);
      opening = this.open(chat, server, fingerprint, signal).finally(() => this.opening.delete(key));
      this.opening.set(key, opening);
    }
    return opening;
  }

  private async open(chat: string, server: McpServer, fingerprint: string, signal: AbortSignal): Promise<Connection> {
    const sdk = this.host.loadSdk();
    const kinds: (HttpTransportKind | undefined)[] = server['mcp-url'] ? transportOrder(server['mcp-transport']) : [undefined];
    let opened: { client: SdkClient; tools: ListedTool[] } | undefined;
    for (const [i, kind] of kinds.entries()) {
      try {
        opened = await this.start(sdk, server, kind, signal);
        break;
      } catch (e) {
        // Streamable HTTP refused as an unknown route: an older server, spoken to over SSE next.
        if (i + 1 < kinds.length && !signal.aborted && fallsBackToSse(e)) continue;
        const message = readable(e, 'answered with a malformed list of tools');
        throw new Error(i > 0 ? `it does not take Streamable HTTP, and over HTTP+SSE: ${message}` : message);
      }
    }
    const { client, tools } = opened!;
    const connection: Connection = { server, fingerprint, client, tools, alive: true, lastUsed: this.now() };
    client.onclose = () => {
      connection.alive = false;
    };
    let byServer = this.connections.get(chat);
    if (!byServer) {
      byServer = new Map();
      this.connections.set(chat, byServer);
    }
    byServer.set(server.name, connection);
    this.sweeper ??= setInterval(() => this.sweep(), 60_000);
    (this.sweeper as { unref?: () => void }).unref?.();
    return connection;
  }

  /** Connect over one transport and list the tools; the client is closed again if that fails. */
  private async start(
    sdk: McpSdk,
    server: McpServer,
    kind: HttpTransportKind | undefined,
    signal: AbortSignal,
  ): Promise<{ client: SdkClient; tools: ListedTool[] }> {
    const timeout = (server['mcp-timeout'] ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    const client = new sdk.Client({ name: 'TiddlyAgent', version: '0.1.0' });
    try {
      await withTimeout(
        client.connect(this.transport(sdk, server, kind), { timeout, signal }),
        timeout,
        `did not answer "initialize" within ${timeout / 1000} s`,
      );
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = (await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, sdk.LenientListToolsSchema, { timeout, signal })) as {
          tools: ListedTool[];
          nextCursor?: string;
        };
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 1000);
      return { client, tools };
    } catch (e) {
      void client.close().catch(() => undefined);
      throw e;
    }
  }

  private transport(sdk: McpSdk, server: McpServer, kind: HttpTransportKind | undefined): SdkTransport {
    const key = server['mcp-key-name']?.trim();
    const url = server['mcp-url'];
    if (url) {
      // The owner's rules (Node): the token goes only to an origin it is bound to; the address is checked.
      const token = key ? this.host.getSecret(key, url) : undefined;
      if (key && !token)
        throw new Error(`its token "${key}" is not set (${this.host.where === 'browser' ? 'enter it in the settings tab' : 'set the environment variable'}).`);
      return httpTransport(sdk, kind ?? 'streamable-http', new URL(url), token, this.host.fetch);
    }
    if (!sdk.stdio)
      throw new Error(
        this.host.where === 'browser'
          ? 'it is a command (stdio), which runs only in the server edition or headless, not in a browser.'
          : 'it is a command (stdio), which needs the TiddlyAgent server plugin in this wiki.',
      );
    // A command starts only as the owner listed it, with only the variables listed for it (the token is one).
    const names = [...server['mcp-env'], ...(key ? [key] : [])];
    const refused = this.host.commandRefusal?.(server['mcp-command']!, server['mcp-args'], names);
    if (refused) throw new Error(refused);
    const env: Record<string, string> = {};
    for (const name of names) {
      const value = this.host.getEnv(name);
      if (value !== undefined) env[name] = value;
    }
    if (key && env[key] === undefined) throw new Error(`its token "${key}" is not set (set the environment variable).`);
    return sdk.stdio({ command: server['mcp-command']!, args: server['mcp-args'], env, stderr: 'ignore' });
  }

  /** Close a connection and forget it (only `which`, when given: not one another call has opened since). */
  private drop(chat: string, name: string, which?: Connection): void {
    const connection = this.connections.get(chat)?.get(name);
    if (which) void which.client.close().catch(() => undefined);
    if (!connection || (which && connection !== which)) return;
    this.connections.get(chat)!.delete(name);
    void connection.client.close().catch(() => undefined);
  }

  /** Close what nobody used for a while, and what belongs to a chat that is gone. */
  private sweep(): void {
    const now = this.now();
    for (const [chat, byServer] of this.connections) {
      const gone = !this.host.wiki.getFields(chat);
      for (const [name, connection] of byServer) if (gone || now - connection.lastUsed > IDLE_MS) this.drop(chat, name);
      if (!byServer.size) this.connections.delete(chat);
    }
    if (!this.connections.size) this.close();
  }
}

/** An error's message, with the SDK's schema complaints (zod issues as JSON) put in words. */
function readable(e: unknown, malformed: string): string {
  const message = e instanceof Error ? e.message : String(e);
  return /^\s*\[\s*\{\s*"(code|expected)"/.test(message) ? `${malformed} (${message.replace(/\s+/g, ' ').slice(0, 300)})` : message;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]).finally(() => clearTimeout(timer));
}

/** Why a server cannot be used, in words. */
function errorMessage(e: unknown, server: McpServer, where: McpHost['where']): string {
  const message = e instanceof Error ? e.message : String(e);
  if (server['mcp-url'] && where === 'browser' && /Failed to fetch|NetworkError|Load failed/i.test(message)) {
    return `${server['mcp-url']} cannot be reached from this browser (it may not allow other sites to call it: CORS). In the server edition MCP servers are called from the server.`;
  }
  if (server['mcp-command'] && /ENOENT|spawn/i.test(message)) return `the command "${server['mcp-command']}" could not be started (${message}).`;
  if (/Endpoint origin does not match/i.test(message))
    return `it named another host than its own (${message.split(': ').at(-1)}) as the address to send its messages to: refused, nothing was sent there.`;
  if (/Connection closed|closed/i.test(message)) return `it closed the connection at start (${message}); check its command and arguments.`;
  return message;
}
