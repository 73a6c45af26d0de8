/*\
ExternalToolSession: tool calls that come from outside a turn (an MCP client of the server
edition, server/mcp/) run exactly as a turn's calls do: the agent's enabled wiki tools and
plugin tools (a plugin's DataSource and Actions, tools/plugin-tools.ts), its approval rules (engine/approval.ts), its view of the wiki and the write gate, journaled.

A writer's session is shown as a chat (`MCP: <client>`, field `agent-mcp-session`): one user
message opens it and is the turn of every call, so the journal of the whole session hangs on
it and "Roll back" undoes what the client did. Each call is an assistant message carrying the
call and a tool message with its result; results record the versions of tiddlers the client
read or wrote, and a write lands only on the version the session last read before the call
(store/read-ledger.ts), as in a turn. A call that needs confirmation is a pending tool
message, decided by the user's card through the runner (LocalRunner.attachExternal wakes the
session) or denied when nobody answers in time. A reader's session has no chat: it may call
read tools only, under the same approval rules (a denied read is denied; one that needs
confirmation is refused, since nobody can be asked), and changes nothing.
\*/
import * as z from 'zod/mini';
import { evaluateApproval, hasPatterns, parseApprovalConfig, type AllowingRule, type ApprovalConfig, type ApprovalDecision } from '../../engine/approval';
import {
  CHAT_ALLOWED_TOOLS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  approvalMessage,
  callTargets,
  plannedChanges,
  recordedRule,
  withUserVersion,
} from '../../engine/call-review';
import { executeToolCalls, type ToolCallRequest, type ToolCallResult } from '../../engine/tool-executor';
import { describeSections } from '../../engine/plugins/describe';
import { recordToolResult } from '../../engine/plugins/persistence';
import { readLedger } from '../../store/read-ledger';
import { changeStatus } from '../../engine/status-change';
import { NEW_CHAT_STATUS } from '../../store/new-chat';
import { canTransition } from '../../store/status';
import type { AgentDefinition, ChatStatus } from '../../store/schemas';
import { parseTitleList } from '../../store/wiki-port';
import { loadPluginTools, PLUGIN_TOOL_PREFIX } from '../../tools/plugin-tools';
import { createToolContext, type ToolContext, type ToolDefinition } from '../../tools/tool';
import { toolsNamed } from '../../tools/tool-names';
import { loadUserTools } from '../../tools/user-tools';
import { WIKI_READ_TOOLS } from '../../tools/wiki-read-tools';
import { WIKI_WRITE_TOOLS } from '../../tools/wiki-write-tools';
import type { LocalRunner } from '../local-runner';

/** Chat field of an MCP session's chat: the client's name. */
export const CHAT_MCP_SESSION = 'agent-mcp-session';
/** The tools an outside client may be offered: the wiki tools (not summary, questions, schedules, sub-agents). */
export const EXTERNAL_TOOLS: ReadonlyMap<string, ToolDefinition> = new Map([...WIKI_READ_TOOLS, ...WIKI_WRITE_TOOLS].map((t) => [t.name, t]));

export interface ExternalToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type ExternalCallResult = { content: string; isError: boolean } | { unknownTool: string };

/** One call of a writer's session, checked and ready: its tool, the agent, the titles the rules saw, how its context is made. */
interface CallRequest {
  call: ToolCallRequest;
  tool: ToolDefinition;
  agent: AgentDefinition;
  targets: string[] | null | undefined;
  context: (signal?: AbortSignal, request?: ToolCallRequest) => ToolContext;
  signal: AbortSignal;
}

let callCounter = 0;

export class ExternalToolSession {
  private running = 0;
  private readonly waiters = new Map<string, () => void>();
  private readonly detach: () => void;
  private closed = false;

  private constructor(
    private readonly runner: LocalRunner,
    private readonly agentTitle: string,
    /** The chat and its opening user message (the journal's key); undefined: a reader's session, which writes nothing. */
    readonly record?: { chat: string; turn: string },
  ) {
    this.detach = record ? runner.attachExternal(record.chat, { wake: () => this.wake() }) : () => {};
  }

  /** A writer's session: its chat `MCP: <client>` (unique), opened with one user message. */
  static open(runner: LocalRunner, agentTitle: string, client: string): ExternalToolSession {
    runner.store.readAgent(agentTitle); // a missing or broken definition fails here, before anything is written
    const chat = runner.store.createChat(agentTitle, `MCP: ${client}`);
    runner.store.updateFields(chat, { [CHAT_MCP_SESSION]: client });
    const turn = runner.store.appendMessage(chat, {
      role: 'user',
      text: `MCP session started by the client "${client}". Every call it makes is listed below; roll back this turn to undo what it changed.`,
    });
    runner.bus.emit({ type: 'status', chat, status: NEW_CHAT_STATUS });
    return new ExternalToolSession(runner, agentTitle, { chat, turn });
  }

  /** A session that may call read tools only and records nothing (a reader, an anonymous user). */
  static readOnly(runner: LocalRunner, agentTitle: string): ExternalToolSession {
    runner.store.readAgent(agentTitle);
    return new ExternalToolSession(runner, agentTitle);
  }

  get mayWrite(): boolean {
    return !!this.record;
  }

  /** The agent's enabled wiki tools this session may call, with their argument schemas. */
  listTools(): ExternalToolSpec[] {
    return [...this.tools(this.agent()).values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>,
    }));
  }

  /**
   * What the wiki's plugins say about themselves (their Describe tiddlers and DataSources), as a
   * turn's prompt has it (engine/plugins/describe.ts): for the client's instructions. Empty when
   * the agent has no plugin tools, as a turn's prompt then has none either.
   */
  pluginDocs(): string {
    const tools = new Set(this.tools(this.agent()).keys());
    if (![...tools].some((name) => name.startsWith(PLUGIN_TOOL_PREFIX))) return '';
    return describeSections(this.runner.store.wiki.agentView(), tools)
      .flatMap((section) => section.messages.map((m) => m.content))
      .join('\n\n');
  }

  /** Run one call like a turn's call; waits for the user when it needs confirmation. */
  async call(name: string, args: unknown, signal: AbortSignal): Promise<ExternalCallResult> {
    if (this.closed) return { content: 'The MCP session has ended.', isError: true };
    const agent = this.agent();
    const enabled = this.tools(agent, true);
    const tool = enabled.get(name);
    if (!tool) return { unknownTool: name };
    if (tool.access === 'write' && !this.record)
      return {
        content: `${name} changes the wiki: only users the server lets write (TiddlyWiki's "writers") may call it. Nothing was changed.`,
        isError: true,
      };
    const parsed = tool.parameters.safeParse(args ?? {});
    if (!parsed.success) return { content: `Invalid arguments for ${name}:\n${z.prettifyError(parsed.error)}`, isError: true };
    let approvals: ApprovalConfig;
    try {
      approvals = parseApprovalConfig(agent['agent-approval'], agent.title);
    } catch (e) {
      return { content: (e as Error).message, isError: true };
    }
    // What the session had read before this call (its chat's messages): a write lands only on that version.
    const reads = this.record ? readLedger(this.runner.store.listMessages(this.record.chat), Number.MAX_SAFE_INTEGER) : undefined;
    const context = (callSignal: AbortSignal = signal, request?: ToolCallRequest): ToolContext =>
      createToolContext(
        this.runner.store.wiki,
        { chat: this.record?.chat ?? '', agent, turn: this.record?.turn ?? '', signal: callSignal, reads, userText: request?.userText },
        { now: Date.now, semantic: this.runner.semantic },
      );
    const call = { id: `mcp-${Date.now().toString(36)}-${++callCounter}`, name, args: args ?? {} };
    const chatAllowed = new Set(this.record ? parseTitleList(this.runner.store.wiki.getFields(this.record.chat)?.[CHAT_ALLOWED_TOOLS]) : []);
    const targets = hasPatterns(approvals, name) ? callTargets(tool, call.args, () => context()) : undefined;
    const verdict = evaluateApproval(approvals, tool, call.args, chatAllowed.has(name), targets);
    if (!this.record) {
      // A reader's session: the agent's rules hold as in a turn; there is no chat to ask in.
      if (verdict.decision === 'deny') return { content: `Not allowed: ${verdict.reason}.`, isError: true };
      if (verdict.decision === 'confirm')
        return { content: `${name} needs the user's confirmation here, which a read-only session cannot ask for. Nothing was done.`, isError: true };
      return toResult((await this.execute(call, tool, agent, signal, context))[0]!);
    }
    return this.recordedCall({ call, tool, agent, targets, context, signal }, verdict);
  }

  /** A writer's call, recorded in the session's chat as a turn's call is: the call, its approval when it needs one, its result. */
  private async recordedCall(request: CallRequest, verdict: ApprovalDecision): Promise<ExternalCallResult> {
    const { call, tool, agent, context, signal } = request;
    const { chat } = this.record!;
    this.running++;
    this.settle();
    try {
      this.runner.store.appendMessage(chat, {
        role: 'assistant',
        text: '',
        toolCalls: [call],
        model: `MCP client: ${this.runner.store.wiki.getFields(chat)?.[CHAT_MCP_SESSION] ?? ''}`,
      });
      if (verdict.decision === 'deny')
        return this.finish({ call, status: 'denied', content: `Not allowed: ${verdict.reason}.`, durationMs: 0, outcome: 'rule-denied' });
      let pendingTitle: string | undefined;
      if (verdict.decision === 'confirm') {
        const confirmed = await this.confirmation(request);
        if (typeof confirmed !== 'string') return confirmed;
        pendingTitle = confirmed;
      }
      const decided = pendingTitle ? this.runner.store.wiki.getFields(pendingTitle) : undefined;
      const [result] = await this.execute(decided ? withUserVersion(call, decided) : call, tool, agent, signal, context);
      return this.finish(result!, pendingTitle, pendingTitle ? undefined : recordedRule(verdict.rule, agent.title));
    } finally {
      this.running--;
      this.settle();
    }
  }

  /**
   * Put the call to the user as a pending tool message and wait for their decision. The title
   * of the message when they allowed it; otherwise the call's result (refused by the write
   * gate, denied, timed out, canceled by the client or closed).
   */
  private async confirmation(request: CallRequest): Promise<string | ExternalCallResult> {
    const { call, tool, agent, targets, context, signal } = request;
    const { chat } = this.record!;
    const planned = plannedChanges(tool, call.args, () => context());
    if ('refused' in planned) return this.finish({ call, status: 'error', content: planned.refused, durationMs: 0 });
    const expires = Date.now() + (agent['agent-approval-timeout'] ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS) * 1000;
    const pendingTitle = this.runner.store.appendMessage(
      chat,
      approvalMessage(tool, call, () => context(), planned, targets, expires),
    );
    this.runner.bus.emit({ type: 'waiting', chat, message: pendingTitle, reason: 'approval' });
    this.settle();
    await this.decision(pendingTitle, expires, signal);
    const fields = this.runner.store.wiki.getFields(pendingTitle);
    if (fields?.['tool-status'] !== 'pending') return { content: `Denied: ${fields?.text || 'the call was closed'}`, isError: true };
    if (fields.approval === 'deny')
      return this.finish({ call, status: 'denied', content: 'Denied: the user denied it.', durationMs: 0, outcome: 'user-denied' }, pendingTitle);
    if (!fields.approval) {
      const why = signal.aborted
        ? 'Denied: the MCP client canceled the call before the user decided.'
        : 'Timed out: nobody confirmed it in time, so it was denied.';
      return this.finish({ call, status: 'denied', content: why, durationMs: 0, outcome: signal.aborted ? 'canceled' : 'expired' }, pendingTitle);
    }
    return pendingTitle;
  }

  /** End the session: calls still waiting are denied, the chat stops listening for decisions. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.record) {
      this.runner.decisions.close(this.record.chat, 'The MCP session ended.', 'canceled');
      this.wake();
      this.settle();
    }
    this.detach();
  }

  // ---- internals ------------------------------------------------------------------------------

  private agent(): AgentDefinition {
    return this.runner.store.readAgent(this.agentTitle);
  }

  /**
   * The agent's enabled wiki tools and plugin tools (read afresh, as a turn's are: a plugin's
   * DataSource and Actions, by name or by a `plugin-` prefix); a reader's session lists only the
   * read tools (`all`: every enabled one).
   */
  private tools(agent: AgentDefinition, all = false): Map<string, ToolDefinition> {
    const wiki = this.runner.store.wiki;
    const plugins = agent['agent-tools'].some((name) => name.startsWith(PLUGIN_TOOL_PREFIX))
      ? loadPluginTools(wiki, new Set([...EXTERNAL_TOOLS.keys(), ...loadUserTools(wiki, new Set(EXTERNAL_TOOLS.keys())).map((t) => t.name)]))
      : [];
    const offered = new Map([...plugins.map((t): [string, ToolDefinition] => [t.name, t]), ...EXTERNAL_TOOLS]);
    const tools = new Map<string, ToolDefinition>();
    for (const name of agent['agent-tools'])
      for (const tool of toolsNamed(name, offered)) if (all || this.record || tool.access === 'read') tools.set(tool.name, tool);
    return tools;
  }

  private execute(
    call: ToolCallRequest,
    tool: ToolDefinition,
    agent: AgentDefinition,
    signal: AbortSignal,
    context: (s: AbortSignal, call: ToolCallRequest) => ToolContext,
  ): Promise<ToolCallResult[]> {
    const chat = this.record?.chat;
    return executeToolCalls(
      [call],
      new Map([[tool.name, tool]]),
      { signal, contextFor: context },
      {
        timeoutMs: (agent['agent-tool-timeout'] ?? 30) * 1000,
        onStart: () => chat && this.runner.bus.emit({ type: 'tool-started', chat, callId: call.id, name: call.name }),
      },
    );
  }

  /** Write the call's result into the chat (the pending message, or a new one) and announce it. */
  private finish(result: ToolCallResult, pendingTitle?: string, rule?: AllowingRule): { content: string; isError: boolean } {
    const { chat } = this.record!;
    recordToolResult(this.runner.store, chat, result, pendingTitle, {
      // agent-duration is the rounds a result stays in a prompt (DESIGN 4): an MCP client's call is in none.
      fields: {},
      message: { approvalRule: rule ? JSON.stringify(rule) : undefined },
    });
    this.runner.bus.emit({ type: 'tool-finished', chat, callId: result.call.id, name: result.call.name, status: result.status });
    return toResult(result);
  }

  /** Resolves when the user decided (or stopped), the confirmation expired, or the client gave up. */
  private decision(message: string, expires: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, expires - Date.now()));
      signal.addEventListener('abort', done, { once: true });
      this.waiters.set(message, done);
      const fields = this.runner.store.wiki.getFields(message);
      if (!fields || fields.approval || fields['tool-status'] !== 'pending') done();
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  /** The runner says something changed (a decision, Stop): wake the calls whose message no longer just waits. */
  private wake(): void {
    for (const [message, resolve] of [...this.waiters]) {
      const fields = this.runner.store.wiki.getFields(message);
      if (this.closed || !fields || fields.approval || fields['tool-status'] !== 'pending' || Number(fields['approval-expires']) <= Date.now()) {
        this.waiters.delete(message);
        resolve();
      }
    }
  }

  /** The chat's status follows its calls: working while one runs, input-required while one waits, then completed. */
  private settle(): void {
    if (!this.record) return;
    const { chat } = this.record;
    const current = (this.runner.store.wiki.getFields(chat)?.['agent-status'] || 'idle') as ChatStatus;
    const target: ChatStatus = this.runner.decisions.pending(chat).length ? 'input-required' : this.running > 0 ? 'working' : 'completed';
    if (current === target || (target === 'completed' && current === 'canceled')) return;
    for (const status of canTransition(current, target) ? [target] : (['working', target] as ChatStatus[])) {
      changeStatus(this.runner.store, this.runner.bus, chat, status);
    }
  }
}

function toResult(result: ToolCallResult): { content: string; isError: boolean } {
  return { content: result.content, isError: result.status !== 'ok' };
}
