/*\
LocalRunner: runs turns in this process: the browser tab, the headless command, or the
Node.js server (whose route hands it every browser's requests). It coordinates; it does not
decide what a command does. Every request is a command (runner/commands.ts), validated where
it enters (submit, query, receive) and carried out by its handler (runner/services/); a
command that waits in the chat's queue is persisted as an operation (runner/operations.ts)
before it runs, and runs one at a time per chat: a send during a turn waits there. Stop aborts
the HTTP request at once. The user's decisions (approvals, answers) are written into the
waiting messages and the turn resumes from them, so a reload or a restart in between loses
nothing (runner/restore.ts).
\*/
import type { ContextUsage } from '../engine/context';
import { EventBus, type AgentEventListener } from '../engine/events';
import { changeStatus } from '../engine/status-change';
import { quietLiveState, type LiveChatState, type QueuedMessage } from '../engine/live-state';
import { CHAT_CONTEXT_USAGE, previewPrompt, runTurn, type EngineDeps, type TurnResult } from '../engine/loop';
import type { LanguageModel } from '../providers/types';
import type { SemanticPort } from '../search/semantic';
import { CHAT_DELETED, CHAT_MCP_SESSION, CHAT_QUEUED } from '../store/chat-fields';
import { ChatStore } from '../store/chat-store';
import type { ChatStatus, ProviderProfile } from '../store/schemas';
import type { ToolDefinition } from '../tools/tool';
import { loadPluginTools } from '../tools/plugin-tools';
import { loadUserTools } from '../tools/user-tools';
import { autoTitle } from './auto-title';
import { Branches } from './services/branches';
import { RunnerError, type ChatRunner, type CommandResults, type QueryResults, type RollbackResult } from './chat-runner';
import { parseCommand, parseQuery, type Command, type CommandKind, type Query, type QueryKind, type ValidCommand } from './commands';
import { Decisions } from './services/decisions';
import { COMMAND_HANDLERS, QUERY_HANDLERS, resume } from './services/command-table';
import { requireChat } from './services/handler';
import { ExpiryTimers } from './expiry';
import { ensureWebGlobals } from './host/host';
import { modelFor } from './models';
import { MemoryOperationLog, OperationQueue, type Operation, type OperationLog, type OperationStatus, type QueuedCommand } from './operations';
import { readPromptWords } from './prompt-words';
import { restoreAfterRestart } from './restore';
import { RuleBook } from './services/rule-book';
import type { RunnerHost } from './runner-host';
import { SubAgents } from './services/sub-agents';
import { Turns } from './services/turns';
import { unattendedCapReached, waitDeadline } from './services/turn-unattended';
import { systemClock } from '../clock';
import { refuse } from './refusals';

export type { ApprovalChoice } from './chat-runner';
export type { RunnerHost } from './runner-host';
export { CHAT_ARCHIVED, CHAT_DELETED } from '../store/chat-fields';
export { AUTO_TITLE_CONFIG } from './auto-title';

/** A chat whose calls come from outside (an MCP session, runner/services/external-session.ts). */
export interface ExternalChat {
  /** A decision was written, the user stopped, or a confirmation expired: look at the waiting calls again. */
  wake(): void;
}

/** What a command resolves with in this process: a queued one once it has run. */
export interface LocalResults extends CommandResults {
  send: TurnResult;
  decide: TurnResult;
  answer: TurnResult;
  retry: TurnResult;
  edit: TurnResult;
  'switch-branch': TurnResult;
  stop: undefined;
  'delete-turn': undefined;
  rollback: RollbackResult;
  rename: { title: string };
  'delete-chat': { deleted: string[] };
  compact: { compacted: true };
}

/** What a command from outside this process gets: the receipt of its queued operation, or its result. */
export type Reception = { receipt: { id: string; status: OperationStatus } } | { result: unknown };

/** Operations after which a chat's first turn may have completed. */
const TURN_KINDS: readonly Operation['kind'][] = ['send', 'decide', 'answer', 'retry', 'edit', 'resume'];

export class LocalRunner implements ChatRunner {
  readonly where = 'local' as const;
  readonly bus = new EventBus();
  readonly store: ChatStore;
  /** The calls waiting for the user, and what a decision writes. */
  readonly decisions: Decisions;
  /** A turn's messages; retry, delete and rollback. */
  readonly turns: Turns;
  /** The user's approval rules as the chat's shortcuts change them (revoke). */
  readonly rules: RuleBook;
  /** The versions a chat keeps when it forks (edit and resend, retry) and the switch between them. */
  readonly branches: Branches;
  /** Sub-agents the turns' spawn-agent calls run (in this runner, as hidden chats). */
  readonly subAgents: SubAgents;
  /** Each chat's queued operations, run one at a time. */
  readonly queue: OperationQueue<TurnResult>;
  /** What aborts the turn (or title, or compaction) running in a chat. */
  readonly controllers = new Map<string, AbortController>();
  /** Chats whose calls come from an MCP session, and how to wake it. */
  readonly external = new Map<string, ExternalChat>();
  /** Told when a chat's queue is empty again, so a run waiting for the chat to be free goes ahead (runner/host/scheduler-host.ts). */
  readonly idle = new Set<(chat: string) => void>();
  readonly now: () => number;
  private readonly log: OperationLog;
  /** Deny confirmations nobody answered in time, and end unattended turns nobody answered, even when nobody looks at the chat. */
  readonly expiry: ExpiryTimers;

  /** Search by meaning, lent to calls from outside a turn too (runner/services/external-session.ts). */
  get semantic(): SemanticPort | undefined {
    return this.host.semantic;
  }

  constructor(readonly host: RunnerHost) {
    ensureWebGlobals();
    this.store = new ChatStore(host.wiki);
    this.decisions = new Decisions(this.store, host.wiki, (tool) => host.tools.get(tool)?.confirmOnly === true);
    this.turns = new Turns(this.store, host.wiki);
    this.rules = new RuleBook(this.store, host.wiki);
    this.branches = new Branches(this.store, host.wiki);
    this.subAgents = new SubAgents(this);
    this.now = host.now ?? Date.now;
    this.log = host.operations ?? new MemoryOperationLog();
    this.queue = new OperationQueue(
      this.log,
      (op) => this.execute(op),
      (chat) => this.queueChanged(chat),
      this.now,
    );
    this.expiry = new ExpiryTimers(
      (chat) => waitDeadline(this, chat),
      (chat) => {
        if (!this.isActive(chat) && this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') this.queue.submit({ kind: 'resume', chat });
      },
      host.clock ?? { ...systemClock, now: this.now },
    );
  }

  // ---- where requests enter ------------------------------------------------------------------

  /** Carry out a command from this process; a queued one resolves once it has run. */
  submit<K extends CommandKind>(command: Command<K>): Promise<LocalResults[K]> {
    try {
      const valid = this.validCommand(command.kind, command, true);
      const handler = COMMAND_HANDLERS[valid.kind];
      if (!handler.queued) return Promise.resolve(handler.run(this, valid as never) as LocalResults[K]);
      const queued = handler.check(this, valid);
      return this.queue.submit(queued).done.then((result) => (handler.settle ? handler.settle(result, queued) : result) as LocalResults[K]);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Queue a command that waits in the chat's queue and return its operation at once (a sub-agent's first message). */
  enqueue(command: Command<QueuedCommand['kind'] & CommandKind>): { op: Operation; done: Promise<TurnResult> } {
    const valid = this.validCommand(command.kind, command, true);
    const handler = COMMAND_HANDLERS[valid.kind];
    if (!handler.queued) throw new RunnerError('bad-request', `"${valid.kind}" does not wait in a chat's queue.`);
    return this.queue.submit(handler.check(this, valid));
  }

  query<K extends QueryKind>(query: Query<K>, signal?: AbortSignal): Promise<QueryResults[K]> {
    try {
      const parsed = parseQuery(query.kind, query, true);
      if (!parsed.ok) throw new RunnerError('bad-request', parsed.error);
      return QUERY_HANDLERS[parsed.value.kind](this, parsed.value as never, signal) as Promise<QueryResults[K]>;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * A command or query from outside this process (POST /agent/<kind>), validated without the
   * fields only this process may set. A queued command that runs a turn answers with its
   * receipt as soon as it is queued; the rest with their result.
   */
  async receive(kind: string, body: unknown, signal: AbortSignal): Promise<Reception> {
    if (Object.hasOwn(QUERY_HANDLERS, kind)) {
      const parsed = parseQuery(kind, body, false);
      if (!parsed.ok) throw new RunnerError('bad-request', parsed.error);
      return { result: await QUERY_HANDLERS[parsed.value.kind](this, parsed.value as never, signal) };
    }
    const valid = this.validCommand(kind, body, false);
    const handler = COMMAND_HANDLERS[valid.kind];
    if (!handler.queued) return { result: (await handler.run(this, valid as never)) ?? {} };
    const command = handler.check(this, valid);
    const { op, done } = this.queue.submit(command);
    if (handler.answer === 'receipt') return { receipt: { id: op.id, status: op.status } };
    const result = await done;
    return { result: handler.settle ? handler.settle(result, command) : result };
  }

  private validCommand(kind: string, body: unknown, inProcess: boolean): ValidCommand {
    const parsed = parseCommand(kind, body, inProcess);
    if (!parsed.ok) throw new RunnerError(parsed.unknownKind ? 'not-found' : 'bad-request', parsed.error);
    return parsed.value;
  }

  subscribe(chat: string, listener: AgentEventListener): () => void {
    return this.bus.subscribe(chat, listener, () => this.quietState(chat));
  }

  /** Whether a schedule or heartbeat may wake the chat: no turn running or queued, no card waiting for the user. */
  isFree(chat: string): boolean {
    const fields = this.host.wiki.getFields(chat);
    return !!fields && !fields[CHAT_DELETED] && !this.isActive(chat) && !this.queue.waiting(chat).length && fields['agent-status'] !== 'input-required';
  }

  /** A schedule or heartbeat wakes a free chat: its message is sent as a user turn marked with its source. */
  wake(chat: string, text: string, source: string): void {
    const valid = this.validCommand('send', { chat, text, attachments: [], source }, true) as ValidCommand<'send'>;
    requireChat(this, chat);
    if (!this.isFree(chat)) throw refuse('conflict', 'busy-for-schedule', { chat });
    this.queue.submit(valid);
  }

  /** Mark what a reload or restart cut off (runner/restore.ts); returns the chats it marked. */
  restore(): string[] {
    return restoreAfterRestart(this, this.log);
  }

  /** Stop every timer (the page or process is going away). */
  dispose(): void {
    this.expiry.dispose();
    this.host.mcp?.close();
  }

  // ---- chats whose calls come from outside --------------------------------------------------

  /**
   * Hand a chat's waiting calls to whoever made them (an MCP session): a decision, Stop or an
   * expiry wakes it instead of resuming a model turn. Returns the detach function.
   */
  attachExternal(chat: string, handler: ExternalChat): () => void {
    this.external.set(chat, handler);
    return () => {
      if (this.external.get(chat) === handler) this.external.delete(chat);
    };
  }

  isExternal(chat: string): boolean {
    return this.host.wiki.getFields(chat)?.[CHAT_MCP_SESSION] !== undefined;
  }

  /** What a decision or an expiry does in an outside chat: wake its session, or, when it has ended, close its calls. */
  externalTurn(chat: string): Promise<TurnResult> {
    const handler = this.external.get(chat);
    if (handler) handler.wake();
    else if (this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') {
      this.decisions.close(chat, 'The MCP session that made this call has ended.', 'canceled');
      this.setStatus(chat, 'canceled');
    }
    return Promise.resolve({ status: (this.host.wiki.getFields(chat)?.['agent-status'] || 'idle') as ChatStatus });
  }

  // ---- the one turn path --------------------------------------------------------------------

  /** Whether an operation (a turn) is running for the chat. */
  isActive(chat: string): boolean {
    return !!this.queue.current(chat);
  }

  /** The words of messages sent during the running turn, waiting for it to end. */
  queued(chat: string): string[] {
    return this.queuedMessages(chat).map((q) => q.text);
  }

  runTurn(chat: string, input: { userText?: string; attachments?: string[]; operation?: string; source?: string }): Promise<TurnResult> {
    if (this.isExternal(chat)) return this.externalTurn(chat);
    const controller = new AbortController();
    this.expiry.clear(chat);
    this.controllers.set(chat, controller);
    return this.turnTools(chat, controller.signal)
      .then((tools) => runTurn(this.engineDeps(tools), { chat, signal: controller.signal, ...input }))
      .catch((e: unknown): TurnResult => {
        // Last line of defence: the engine handles every expected failure itself.
        const message = `Unexpected error: ${e instanceof Error ? e.message : String(e)}`;
        try {
          this.store.appendMessage(chat, { role: 'error', text: message, errorKind: 'unexpected' });
          this.setStatus(chat, 'failed');
        } catch {
          // the chat tiddler itself is gone; nothing left to mark
        }
        return { status: 'failed', error: message };
      })
      .then((result) => {
        this.controllers.delete(chat);
        if (result.status === 'input-required') this.expiry.schedule(chat);
        return result;
      });
  }

  /** Every tool a turn of this chat may use: the built-in ones, the user's (tiddlers, read as they are now) and the MCP tools its agent enabled. */
  async turnTools(chat: string, signal: AbortSignal): Promise<Map<string, ToolDefinition>> {
    const tools = new Map([...this.host.tools, ...loadUserTools(this.host.wiki, new Set(this.host.tools.keys())).map((t) => [t.name, t] as const)]);
    for (const t of loadPluginTools(this.host.wiki, new Set(tools.keys()))) tools.set(t.name, t);
    const mcp = await this.mcpTools(chat, tools, signal);
    return new Map([...tools, ...mcp.map((t) => [t.name, t] as const)]);
  }

  /** What the engine gets from this runner. */
  engineDeps(tools: ReadonlyMap<string, ToolDefinition>): EngineDeps {
    return {
      store: this.store,
      createModel: (profile) => this.createModel(profile),
      emit: (e) => this.bus.emit(e),
      tools,
      plugins: this.host.plugins,
      now: this.now,
      services: { now: this.now, subAgents: this.subAgents, web: this.host.web, semantic: this.host.semantic },
      words: readPromptWords((title) => this.host.wiki.getFields(title)?.text),
      capReached: (chat) => unattendedCapReached(this, chat),
    };
  }

  createModel(profile: ProviderProfile): LanguageModel {
    return modelFor(profile, this.host);
  }

  /**
   * The context meter says what the next prompt would hold. A turn measures its prompt every
   * round; after the chat changed outside a turn (a turn deleted or rolled back, another version
   * shown, a compaction) it is measured again here, stored in the chat (what a page shows on
   * opening it) and announced. A chat whose prompt cannot be built (no model set) keeps its meter.
   */
  async recountContext(chat: string): Promise<void> {
    // A turn measures its own prompt (a turn or compaction holds a controller while it runs).
    if (this.controllers.has(chat) || this.isExternal(chat)) return;
    let usage: ContextUsage;
    try {
      usage = (await previewPrompt(this.engineDeps(await this.turnTools(chat, new AbortController().signal)), chat)).usage;
    } catch {
      return;
    }
    if (!this.host.wiki.getFields(chat) || this.controllers.has(chat)) return;
    this.store.updateChat(chat, { [CHAT_CONTEXT_USAGE]: JSON.stringify(usage) });
    this.bus.emit({ type: 'context', chat, usage });
  }

  /** The MCP tools the chat's agent enabled (runner/host/mcp-client.ts), connecting as needed. */
  private mcpTools(chat: string, tools: ReadonlyMap<string, ToolDefinition>, signal: AbortSignal): Promise<ToolDefinition[]> {
    if (!this.host.mcp) return Promise.resolve([]);
    let names: string[];
    try {
      names = this.store.readAgent(this.store.readChat(chat).agent)['agent-tools'];
    } catch {
      return Promise.resolve([]); // the turn reports the definition's problem
    }
    return this.host.mcp.toolsFor(chat, names, new Set(tools.keys()), signal).catch(() => []);
  }

  /** Set the status through the one status writer and announce it. */
  setStatus(chat: string, status: ChatStatus): void {
    changeStatus(this.store, this.bus, chat, status);
  }

  // ---- operations ---------------------------------------------------------------------------

  private async execute(op: Operation): Promise<{ result: TurnResult; status: OperationStatus; error?: string }> {
    const result = await this.run(op);
    if (result.status === 'completed' && TURN_KINDS.includes(op.kind)) await autoTitle(this, op.chat);
    const status: OperationStatus = result.status === 'failed' ? 'failed' : result.status === 'canceled' ? 'canceled' : 'done';
    return { result, status, error: result.error };
  }

  private run(op: Operation): Promise<TurnResult> {
    if (!this.host.wiki.getFields(op.chat)) return Promise.resolve({ status: 'failed', error: `The chat "${op.chat}" no longer exists.` });
    if (op.kind === 'resume') return resume(this, op.chat);
    const handler = COMMAND_HANDLERS[op.kind];
    if (!handler.queued) return Promise.resolve({ status: 'failed', error: `"${op.kind}" does not wait in a chat's queue.` });
    return handler.run(this, op);
  }

  // ---- state --------------------------------------------------------------------------------

  /** A chat's live state, or what its tiddler says when nothing runs (a push channel's snapshot). */
  snapshot(chat: string): LiveChatState {
    return this.bus.state(chat) ?? this.quietState(chat);
  }

  /** A chat's state when nothing is live: what its tiddler says. */
  private quietState(chat: string): LiveChatState {
    return quietLiveState(this.host.wiki.getFields(chat), this.queuedMessages(chat));
  }

  private queuedMessages(chat: string): QueuedMessage[] {
    return this.queue.waiting(chat).flatMap((op) => (op.kind === 'send' ? [{ id: op.id, text: op.text, attachments: op.attachments ?? [] }] : []));
  }

  private queueChanged(chat: string): void {
    if (!this.isActive(chat) && !this.queue.waiting(chat).length) for (const fn of this.idle) fn(chat);
    const queue = this.queuedMessages(chat);
    const previous = this.bus.state(chat)?.queue ?? [];
    if (queue.length || previous.length) this.bus.emit({ type: 'queue', chat, queue });
    if (!this.host.saveQueueInChat || !this.host.wiki.getFields(chat)) return;
    // Mirror the queue into the chat, so the words survive a reload (not the run).
    const saved = this.host.wiki.getFields(chat)?.[CHAT_QUEUED];
    const next = queue.length ? JSON.stringify(queue.map(({ text, attachments }) => ({ text, attachments }))) : undefined;
    if (saved !== next) this.store.updateChat(chat, { [CHAT_QUEUED]: next });
  }
}
