/*\
/mcp: the server edition as an MCP server (Streamable HTTP), off unless
`$:/config/tiddlyagent/mcp-server/enabled` is `yes`. External agents (Claude Desktop, Claude
Code, Cursor) get the wiki tools (and the plugin tools, a plugin's DataSource and Actions) of
the agent named in `$:/config/tiddlyagent/mcp-server/agent`, run by ExternalToolSession (agent plugin) exactly like a turn's calls: the agent's view of the
wiki, its approval rules, the write gate and the journal.

Access: TiddlyWiki's own. startup.ts has the server authenticate /mcp requests as reads, so
any user who may read the wiki may list and call the read tools; write tools need a writer
(TiddlyWiki's `writers=`). A writer's session is shown as a chat `MCP: <client>`; a reader's
session writes nothing at all, and both follow the agent's approval rules. MCP clients cannot
send `X-Requested-With`, so cross-site requests are refused by their Origin instead; the Host
was checked before (../host-check.ts), and each session's transport also holds its requests to
the Host and Origin that opened it (the SDK's own DNS rebinding protection). The SDK's
transport refuses any POST that is not `application/json`.

The MCP SDK is required on the first request, from node_modules (build.mjs keeps it out of
the bundle), so nothing of it loads unless the endpoint is used. Sessions: one transport and
one SDK server each, keyed by the transport's session id. Each user has at most
MAX_SESSIONS_PER_USER (their own least recently used one is closed when they open another), so
no user can end another's sessions; when MAX_SESSIONS are open, a new one is refused (503)
until one ends. An unknown id, or another user's, gets "Session not found" (404).
\*/
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as SdkServer from '@modelcontextprotocol/sdk/server/index.js';
import type * as SdkHttp from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { HttpError, MAX_BODY_BYTES, readBodyText } from '../http-body';
import { getServerEdition } from '../server-edition';

export const DEFAULT_AGENT = '$:/plugins/tiddlyagent/agent/agents/wiki-assistant';
export const MAX_SESSIONS = 64;
export const MAX_SESSIONS_PER_USER = 8;

interface RouteState {
  authenticatedUsername?: string;
  server: { isAuthorized(type: 'readers' | 'writers', username?: string | null): boolean };
}

interface Session {
  transport: SdkHttp.StreamableHTTPServerTransport;
  server: SdkServer.Server;
  tools: Agent.ExternalToolSession;
  user: string | undefined;
  lastUsed: number;
}

const sessions = new Map<string, Session>();

interface Sdk {
  Server: typeof SdkServer.Server;
  StreamableHTTPServerTransport: typeof SdkHttp.StreamableHTTPServerTransport;
  types: typeof SdkTypes;
}
let sdk: Sdk | undefined;

function loadSdk(): Sdk {
  sdk ??= {
    Server: (require('@modelcontextprotocol/sdk/server/index.js') as typeof SdkServer).Server,
    StreamableHTTPServerTransport: (require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof SdkHttp).StreamableHTTPServerTransport,
    types: require('@modelcontextprotocol/sdk/types.js') as typeof SdkTypes,
  };
  return sdk;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify(body));
}

function rpcError(response: ServerResponse, status: number, code: number, message: string): void {
  json(response, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The agent plugin's library: its settings (CONFIG, configValue) and the external tool session. */
const agentLib = () => require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Agent;

export function mcpEnabled(): boolean {
  const agent = agentLib();
  return agent.configValue($tw.wiki, agent.CONFIG.mcpServerEnabled) === 'yes';
}

/** A browser page of another site may not drive the endpoint with the user's credentials. */
function crossSite(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (!origin || origin === 'null') return !!origin;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

export async function handleMcp(request: IncomingMessage, response: ServerResponse, state: RouteState): Promise<void> {
  try {
    const edition = getServerEdition();
    if (!edition) return json(response, 503, { error: 'The TiddlyAgent server edition is not running.' });
    if (!mcpEnabled())
      return json(response, 404, {
        error: `The MCP server of this wiki is off. A writer turns it on in the TiddlyAgent settings ("MCP server"), i.e. sets ${agentLib().CONFIG.mcpServerEnabled} to "yes".`,
      });
    if (crossSite(request)) return json(response, 403, { error: 'Requests to /mcp from another site are refused.' });
    const user = state.authenticatedUsername;
    let body: unknown;
    if (request.method === 'POST') {
      const text = await readBodyText(request, MAX_BODY_BYTES);
      try {
        body = JSON.parse(text);
      } catch {
        return rpcError(response, 400, -32700, 'Parse error: the request body is not valid JSON.');
      }
    }
    const { types } = loadSdk();
    const id = request.headers['mcp-session-id'];
    let session: Session | undefined;
    if (typeof id === 'string' && id) {
      session = sessions.get(id);
      // A session belongs to the user who opened it.
      if (!session || session.user !== user)
        return rpcError(response, 404, -32001, 'Session not found: it ended, the server restarted, or it is not yours. Start a new session (initialize).');
      session.lastUsed = Date.now();
    } else if (request.method === 'POST' && (Array.isArray(body) ? body.some((m) => types.isInitializeRequest(m)) : types.isInitializeRequest(body))) {
      const init = (Array.isArray(body) ? body.find((m) => types.isInitializeRequest(m)) : body) as SdkTypes.InitializeRequest;
      if (sessions.size >= MAX_SESSIONS && sessionsOf(user).length < MAX_SESSIONS_PER_USER) {
        return rpcError(response, 503, -32000, `The wiki's MCP server has ${MAX_SESSIONS} sessions open, its limit; try again when one has ended.`);
      }
      session = await openSession(
        edition.runner,
        user,
        state.server.isAuthorized('writers', user),
        init.params.clientInfo?.name || 'client',
        request.headers.host ?? '',
      );
    } else {
      return rpcError(response, 400, -32000, 'Bad Request: no valid session id (the Mcp-Session-Id header); a session starts with an initialize request.');
    }
    await session.transport.handleRequest(request, response, body);
  } catch (e) {
    if (e instanceof HttpError) return json(response, e.status, { error: e.message });
    if (e instanceof Error && e.name === 'ConfigError') return json(response, 500, { error: `The MCP server's agent cannot be used: ${e.message}` });
    console.error('TiddlyAgent: an MCP request failed', e);
    if (!response.headersSent) json(response, 500, { error: 'Internal error in the TiddlyAgent MCP server.' });
  }
}

async function openSession(runner: Agent.LocalRunner, user: string | undefined, writer: boolean, client: string, host: string): Promise<Session> {
  const agent = agentLib();
  const { Server, StreamableHTTPServerTransport, types } = loadSdk();
  const agentTitle = agent.configValue($tw.wiki, agent.CONFIG.mcpServerAgent) || DEFAULT_AGENT;
  const tools = writer ? agent.ExternalToolSession.open(runner, agentTitle, client.slice(0, 100)) : agent.ExternalToolSession.readOnly(runner, agentTitle);
  const server = new Server(
    { name: 'TiddlyAgent', version: '0.1.0' },
    {
      capabilities: { tools: {} },
      // The plugins' own words about their tools, as a turn's prompt carries them (bounded, marked as the plugins').
      instructions: [
        `The tools of this TiddlyWiki as the agent "${agentTitle}" may use them. Writes are checked, may wait for the user's confirmation, and are journaled.`,
        tools.pluginDocs(),
      ]
        .filter(Boolean)
        .join('\n\n'),
    },
  );
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: tools.listTools().map((t) => ({ ...t, inputSchema: t.inputSchema as SdkTypes.Tool['inputSchema'] })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (req, extra) => {
    const result = await tools.call(req.params.name, req.params.arguments ?? {}, extra.signal);
    if ('unknownTool' in result)
      throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown tool "${result.unknownTool}". Call tools/list for the tools this wiki offers.`);
    return { content: [{ type: 'text' as const, text: result.content }], isError: result.isError };
  });
  const session: Session = { transport: undefined as unknown as Session['transport'], server, tools, user, lastUsed: Date.now() };
  session.transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableDnsRebindingProtection: true,
    allowedHosts: [host],
    allowedOrigins: [`http://${host}`, `https://${host}`],
    onsessioninitialized: (id) => {
      sessions.set(id, session);
      evictOwn(user);
    },
    onsessionclosed: (id) => endSession(id),
  });
  session.transport.onclose = () => {
    const id = session.transport.sessionId;
    if (id) endSession(id);
    else tools.close();
  };
  await server.connect(session.transport);
  return session;
}

function endSession(id: string): void {
  const session = sessions.get(id);
  if (!session) return;
  sessions.delete(id);
  session.tools.close();
  void session.server.close().catch(() => {});
}

function sessionsOf(user: string | undefined): [string, Session][] {
  return [...sessions.entries()].filter(([, session]) => session.user === user);
}

/** Keep at most MAX_SESSIONS_PER_USER of this user's sessions: their least recently used ones end, nobody else's. */
function evictOwn(user: string | undefined): void {
  for (let own = sessionsOf(user); own.length > MAX_SESSIONS_PER_USER; own = sessionsOf(user)) {
    const oldest = own.reduce((a, b) => (b[1].lastUsed < a[1].lastUsed ? b : a));
    endSession(oldest[0]);
  }
}

/** End every session (the server is closing). */
export function closeMcpSessions(): void {
  for (const id of [...sessions.keys()]) endSession(id);
}
