/*\
LocalRunner: runs turns in this process: the browser tab, the headless command, or the
Node.js server (whose routes call it for every browser). Every request becomes an operation
(runner/operations.ts), persisted before it runs and run one at a time per chat; a send
during a turn waits in that queue. Stop aborts the HTTP request at once. The user's decisions
(approvals, answers) are written into the waiting messages and the turn resumes from them,
so a reload or a restart in between loses nothing.
\*/
import type { ContextUsage } from '../engine/context';
import { EventBus, type AgentEventListener } from '../engine/events';
import type { EnginePlugin } from '../engine/hooks';
import { initialLiveState, quietLiveState, type LiveChatState, type QueuedMessage } from '../engine/live-state';
import { readPromptWords } from './prompt-words';
import { CHAT_CONTEXT_USAGE, compactNow, previewPrompt, runTurn, type EngineDeps, type TurnResult } from '../engine/loop';
import { createLanguageModel } from '../providers';
import type { FetchFn, LanguageModel } from '../providers/types';
import { ChatStore } from '../store/chat-store';
import { chatFamily, chatPartTitles, PART_KINDS } from '../store/chat-parts';
import { CONFIG, configValue } from '../store/config';
import type { ChatStatus, ProviderProfile } from '../store/schemas';
import type { SemanticPort } from '../search/semantic';
import type { WikiPort } from '../store/wiki-port';
import type { ToolDefinition } from '../tools/tool';
import type { WebFetcher } from '../tools/web-fetcher';
import { loadUserTools } from '../tools/user-tools';
import {
  RunnerError,
  type ApprovalChoice,
  type ApprovalScope,
  type ChatRunner,
  type DeleteTurnOptions,
  type McpTestResult,
  type PromptPreview,
  type RollbackResult,
} from './chat-runner';
import { Branches } from './branches';
import { CHOICES, Decisions, type Outcome } from './decisions';
import { RuleBook } from './rule-book';
import { ensureWebGlobals } from './host';
import { MemoryOperationLog, OperationQueue, type Operation, type OperationLog, type OperationStatus } from './operations';
import type { McpConnections } from './mcp-client';
import { SubAgents } from './sub-agents';
import { testProvider, type ProviderTestRequest, type ProviderTestResult } from './provider-test';
import { profileApiKey } from './api-key';
import { Turns } from './turns';
import { applyChatMove, planChatMove } from './chat-move';
import { isDefaultTitle, titleFromMessage, titleProblem, titleProblemText, uniqueTitle } from '../store/chat-titles';
import { suggestChatTitle } from '../engine/chat-title';
import { userVersionRefusal } from '../engine/edited-call';
import { LANGUAGE, lingoOf } from './lingo';
import { editRequestProblem, proposeEdit, type EditRequest } from '../engine/edit-request';

export type { ApprovalChoice } from './chat-runner';

/** A chat whose calls come from outside (an MCP session, runner/external-session.ts). */
export interface ExternalChat {
  /** A decision was written, the user stopped, or a confirmation expired: look at the waiting calls again. */
  wake(): void;
}
/** Chat field of such a chat (the MCP client's name): no model turn ever runs in it. */
const EXTERNAL_FIELD = 'agent-mcp-session';

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
  /** The MCP servers' connections (runner/mcp-client.ts); without it, agents have no MCP tools. */
  mcp?: McpConnections;
  now?(): number;
  /** Outside pages for web-fetch (runner/web-fetch-node.ts or web-fetch-browser.ts); absent: web-fetch says it is not available. */
  web?: WebFetcher;
  /** Search by meaning for wiki-search (runner/semantic-host.ts); absent: it falls back to text. */
  semantic?: SemanticPort;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
/** The agent new chats use, and "Ask AI" asks when none is chosen. */
/** Chat field: the chat is in the bin (when it was put there); its messages stay until it is deleted forever. */
export const CHAT_DELETED = 'agent-deleted';
/** What "delete forever" removes of each chat of the family (the user's schedules that wake it stay). */
const OWNED_PARTS = PART_KINDS.filter((kind) => kind !== 'wakers' && kind !== 'sub-agents');
/** Chat field: `yes` hides the chat from the Chats list but under "Archived". */
export const CHAT_ARCHIVED = 'agent-archived';
/** `no` turns the automatic title after a chat's first turn off. */
export const AUTO_TITLE_CONFIG = CONFIG.autoTitle;
/** Operations after which a chat's first turn may have completed. */
const TURN_KINDS: readonly Operation['kind'][] = ['send', 'decide', 'answer', 'retry', 'edit', 'resume'];
/** Chat field: messages sent during a turn and not started yet (JSON), so a reload keeps them. */
export const CHAT_QUEUED = 'agent-queued';
const INTERRUPTED = 'This turn was interrupted: the page was closed or reloaded while it ran. Send your message again to retry.';
const DECISION_NOT_APPLIED =
  'Interrupted by server restart: your decision was received but not applied before the server stopped. The call is still waiting: decide again.';
const ANSWER_NOT_APPLIED =
  'Interrupted by server restart: your answer was received but not applied before the server stopped. The question is still waiting: answer again.';

export class LocalRunner implements ChatRunner {
  readonly where = 'local' as const;
  readonly bus = new EventBus();
  readonly store: ChatStore;
  /** The calls waiting for the user, and what a decision writes. */
  readonly decisions: Decisions;
  /** A turn's messages; retry, delete and rollback. */
  readonly turns: Turns;
  /** The user's approval rules as the chat's shortcuts change them (revoke). */
  private readonly rules: RuleBook;
  /** The versions a chat keeps when it forks (edit and resend, retry) and the switch between them. */
  readonly branches: Branches;
  /** Sub-agents the turns' spawn-agent calls run (in this runner, as hidden chats). */
  readonly subAgents: SubAgents;
  private readonly operations: OperationQueue<TurnResult>;
  private readonly log: OperationLog;
  private controllers = new Map<string, AbortController>();
  private expiryTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly external = new Map<string, ExternalChat>();
  private readonly now: () => number;

  /** Search by meaning, lent to calls from outside a turn too (runner/external-session.ts). */
  get semantic(): SemanticPort | undefined {
    return this.host.semantic;
  }

  constructor(private readonly host: RunnerHost) {
    ensureWebGlobals();
    this.store = new ChatStore(host.wiki);
    this.decisions = new Decisions(this.store, host.wiki, (tool) => host.tools.get(tool)?.confirmOnly === true);
    this.turns = new Turns(this.store, host.wiki);
    this.rules = new RuleBook(this.store, host.wiki);
    this.branches = new Branches(this.store, host.wiki);
    this.subAgents = new SubAgents(this);
    this.now = host.now ?? Date.now;
    this.log = host.operations ?? new MemoryOperationLog();
    this.operations = new OperationQueue(
      this.log,
      (op) => this.execute(op),
      (chat) => this.queueChanged(chat),
      this.now,
    );
  }

  /** Whether an operation (a turn) is running for the chat. */
  isActive(chat: string): boolean {
    return !!this.operations.current(chat);
  }

  /** The words of messages sent during the running turn, waiting for it to end. */
  queued(chat: string): string[] {
    return this.queuedMessages(chat).map((q) => q.text);
  }

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

  private isExternal(chat: string): boolean {
    return this.host.wiki.getFields(chat)?.[EXTERNAL_FIELD] !== undefined;
  }

  /** What a decision or an expiry does in an outside chat: wake its session, or, when it has ended, close its calls. */
  private externalTurn(chat: string): Promise<TurnResult> {
    const handler = this.external.get(chat);
    if (handler) handler.wake();
    else if (this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') {
      this.decisions.close(chat, 'The MCP session that made this call has ended.', 'canceled');
      this.setStatus(chat, 'canceled');
    }
    return Promise.resolve({ status: (this.host.wiki.getFields(chat)?.['agent-status'] || 'idle') as ChatStatus });
  }

  // ---- ChatRunner -------------------------------------------------------------------------

  subscribe(chat: string, listener: AgentEventListener): () => void {
    return this.bus.subscribe(chat, listener, () => this.quietState(chat));
  }

  /** Send a user message; resolves when its turn has ended (or waits for the user). */
  send(chat: string, text: string, attachments: string[] = []): Promise<TurnResult> {
    try {
      return this.submitSend(chat, text, attachments).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Persist a send as an operation (it runs when the chat is free) and return it at once. */
  submitSend(chat: string, text: string, attachments: string[] = []): { op: Operation; done: Promise<TurnResult> } {
    this.requireChat(chat);
    if (typeof text !== 'string' || !text.trim()) throw new RunnerError('bad-request', 'The message is empty.');
    if (this.isExternal(chat))
      throw new RunnerError('conflict', `"${chat}" lists what an MCP client did; no agent answers in it. Start a new chat to talk to the agent.`);
    if (this.host.wiki.getFields(chat)?.[CHAT_DELETED]) throw new RunnerError('conflict', `"${chat}" is in the bin; restore it first.`);
    if (!Array.isArray(attachments) || attachments.some((a) => typeof a !== 'string'))
      throw new RunnerError('bad-request', 'Attachments must be a list of titles.');
    // "Talk with AI" attachments and a queue saved before a reload were in the input: this message carries them.
    if (!this.isActive(chat)) this.store.updateChat(chat, { 'agent-draft-attachments': undefined, [CHAT_QUEUED]: undefined });
    return this.operations.submit({ chat, kind: 'send', text, attachments });
  }

  /**
   * Whether a schedule or heartbeat may wake the chat now: no turn running or queued, and not
   * waiting for the user's decision or answer (a woken turn would pre-empt the card).
   */
  isFree(chat: string): boolean {
    return (
      !!this.host.wiki.getFields(chat) &&
      !this.host.wiki.getFields(chat)?.[CHAT_DELETED] &&
      !this.isActive(chat) &&
      !this.operations.waiting(chat).length &&
      this.host.wiki.getFields(chat)?.['agent-status'] !== 'input-required'
    );
  }

  /** A schedule or heartbeat wakes a free chat: its message is sent as a user turn marked with its source. */
  wake(chat: string, text: string, source: string): void {
    this.requireChat(chat);
    if (!this.isFree(chat)) throw new RunnerError('conflict', `"${chat}" is busy or waiting for the user; the scheduler tries again when it is free.`);
    this.operations.submit({ chat, kind: 'send', text, attachments: [], source });
  }

  /** Abort the running turn (or end a waiting one) and drop anything queued behind it. */
  stop(chat: string): Promise<void> {
    try {
      this.stopNow(chat);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private stopNow(chat: string): void {
    this.requireChat(chat);
    const running = this.operations.current(chat);
    const waiting = this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required';
    if (!running && !waiting && !this.operations.waiting(chat).length) throw new RunnerError('conflict', `"${chat}" has no turn to stop.`);
    this.operations.cancelWaiting(chat, { status: 'canceled' });
    if (running) this.controllers.get(chat)?.abort();
    else if (waiting) {
      clearTimeout(this.expiryTimers.get(chat));
      this.expiryTimers.delete(chat);
      this.decisions.close(chat, 'The user stopped the turn.', 'stopped');
      this.setStatus(chat, 'canceled');
      this.external.get(chat)?.wake();
    }
  }

  /** The user's answer to a confirmation card (with the scope "always" needs, or their version of its text); resolves when the resumed turn has ended. */
  decide(chat: string, message: string, choice: ApprovalChoice, scope?: ApprovalScope, text?: string): Promise<TurnResult> {
    try {
      return this.submitDecision(chat, message, choice, scope, text).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Queue a decision, checked first: the choice, the waiting call, the scope "always" needs
   * (rule-book.ts), and the user's version of the call's text, planned as the call will run:
   * a version the write gate refuses is refused here, with its reason, and nothing is decided.
   */
  submitDecision(chat: string, message: string, choice: ApprovalChoice, scope?: unknown, text?: string): { op: Operation; done: Promise<TurnResult> } {
    if (!CHOICES.includes(choice)) throw new RunnerError('bad-request', `The choice must be one of: ${CHOICES.join(', ')}.`);
    if (text !== undefined && typeof text !== 'string') throw new RunnerError('bad-request', 'The text must be a string.');
    this.requireChat(chat);
    this.decisions.requireWaiting(chat, message, 'approval');
    const checked = this.decisions.checkScope(message, choice, scope);
    if (text !== undefined) {
      if (choice === 'deny') throw new RunnerError('bad-request', 'A denied call has no text to allow.');
      const waiting = this.decisions.requireEditable(chat, message);
      const refusal = userVersionRefusal(this.store, this.host.tools, { now: this.now, semantic: this.host.semantic }, waiting, text);
      if (refusal) throw new RunnerError('bad-request', refusal);
    }
    return this.operations.submit({ chat, kind: 'decide', message, choice, ...(checked ? { scope: checked } : {}), text });
  }

  /** Remove the rule that let a call run without asking (rule-book.ts); no turn needs to wait for it. */
  revokeRule(chat: string, message: string): Promise<{ revoked: boolean }> {
    try {
      this.requireChat(chat);
      return Promise.resolve(this.rules.revoke(chat, message));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The user's answers to an ask-question card; `null` cancels the turn without a reply. */
  answer(chat: string, message: string, answers: string[] | null): Promise<TurnResult> {
    try {
      return this.submitAnswer(chat, message, answers).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  submitAnswer(chat: string, message: string, answers: string[] | null): { op: Operation; done: Promise<TurnResult> } {
    if (answers !== null && (!Array.isArray(answers) || answers.some((a) => typeof a !== 'string')))
      throw new RunnerError('bad-request', 'The answers must be a list of strings, or null to dismiss the question.');
    this.requireChat(chat);
    this.decisions.requireWaiting(chat, message, 'question');
    return this.operations.submit({ chat, kind: 'answer', message, answers });
  }

  /** Regenerate the last turn: the user's message stays and is answered again; its replies are kept as a version. */
  retry(chat: string, userMessage: string): Promise<TurnResult> {
    try {
      return this.submitRetry(chat, userMessage).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  submitRetry(chat: string, userMessage: string): { op: Operation; done: Promise<TurnResult> } {
    this.requireLastTurn(chat, userMessage);
    return this.operations.submit({ chat, kind: 'retry', message: userMessage });
  }

  /** Send an edited copy of an earlier user message: the chat forks there and the old branch stays reachable. */
  edit(chat: string, userMessage: string, text: string): Promise<TurnResult> {
    try {
      return this.submitEdit(chat, userMessage, text).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  submitEdit(chat: string, userMessage: string, text: string): { op: Operation; done: Promise<TurnResult> } {
    if (typeof text !== 'string' || !text.trim()) throw new RunnerError('bad-request', 'The message is empty.');
    this.requireForkable(chat);
    this.turns.require(chat, userMessage);
    return this.operations.submit({ chat, kind: 'edit', message: userMessage, text });
  }

  /** Bring back another version of the chat at a fork (runner/branches.ts); resolves once it is shown. */
  switchBranch(chat: string, at: number, version: number): Promise<TurnResult> {
    try {
      return this.submitSwitch(chat, at, version).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  submitSwitch(chat: string, at: number, version: number): { op: Operation; done: Promise<TurnResult> } {
    if (!Number.isInteger(at) || !Number.isInteger(version)) throw new RunnerError('bad-request', 'The fork and the version must be whole numbers.');
    this.requireForkable(chat);
    if (!this.branches.forks(chat).get(at)?.versions.includes(version))
      throw new RunnerError('not-found', `"${chat}" has no version ${version} at message ${at}.`);
    return this.operations.submit({ chat, kind: 'switch', at, version });
  }

  /**
   * Remove a turn's messages (not what its tools changed in the wiki). A turn whose changes
   * stand (not rolled back) is deleted only with `keepChanges`: its journal is the only way
   * back, so no caller removes it without saying so.
   */
  deleteTurn(chat: string, userMessage: string, options: DeleteTurnOptions = {}): Promise<void> {
    try {
      this.requireIdle(chat);
      const turn = this.turns.require(chat, userMessage);
      const standing = this.turns.standingChanges(chat, userMessage);
      if (standing.length && options.keepChanges !== true) {
        throw new RunnerError(
          'conflict',
          `This turn changed ${standing.length === 1 ? '1 tiddler' : `${standing.length} tiddlers`} (${standing.join(', ')}): roll it back first, or delete it with keepChanges to keep the changes without a way back.`,
        );
      }
      this.turns.delete(chat, userMessage);
      // Its versions go with it (they have no message left to be switched back on).
      this.branches.drop(chat, turn[0]!['agent-seq'], turn.at(-1)!['agent-seq']);
      void this.recountContext(chat);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Restore what a turn's tools changed (turns.ts); with conflicts, only when `force`. */
  rollback(chat: string, userMessage: string, force = false): Promise<RollbackResult> {
    try {
      this.requireChat(chat);
      const result = this.turns.rollback(chat, userMessage, force);
      if (!result.conflicts.length) void this.recountContext(chat);
      return Promise.resolve(result);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * After a reload or restart no turn can still be running here. Operations the log holds
   * unfinished are failed (a send's words are kept as its user message); a chat left
   * `working` gets an error message and becomes `interrupted`; chats waiting for the user
   * keep waiting, with their confirmation timers restored, unless every waiting call already
   * has its decision or answer (cut off before the turn went on: interrupted too), or they
   * are a sub-agent's, whose parent's call is gone (canceled). A decision or answer that was
   * accepted but had not run fails too, and its chat says so under the card that waits again.
   * Returns the chats it marked.
   */
  restore(): string[] {
    const marked = new Set<string>();
    const cutOff = new Set<string>();
    // Chats whose decision or answer was accepted (logged) but had not run: the card waits again, and says why.
    const notApplied = new Map<string, string>();
    for (const op of this.log.unfinished()) {
      if (op.kind === 'decide' || op.kind === 'answer') notApplied.set(op.chat, op.kind === 'decide' ? DECISION_NOT_APPLIED : ANSWER_NOT_APPLIED);
      // An edit's branch and its message are written in one step: both landed, or the chat is as it was.
      if ((op.kind === 'send' || op.kind === 'edit') && op.text && this.host.wiki.getFields(op.chat)) {
        const kept = this.host.wiki.filter('[field:agent-operation<id>]', { id: op.id });
        if (!kept.length && op.kind === 'edit') {
          // Cut off before it started: nothing changed.
        } else if (!kept.length) {
          this.store.appendMessage(op.chat, { role: 'user', text: op.text, attachments: op.attachments, operation: op.id, source: op.source });
          cutOff.add(op.chat);
        } else if (this.store.listMessages(op.chat).at(-1)?.title === kept[0]) {
          // Cut off after its message was saved, before the turn saved anything else (its status included).
          cutOff.add(op.chat);
        }
      }
      this.log.write({ ...op, status: 'failed', error: 'Interrupted by server restart' });
    }
    for (const chat of this.store.listChats()) {
      if (this.isActive(chat)) continue;
      const status = this.host.wiki.getFields(chat)?.['agent-status'];
      if (status === 'input-required' && this.host.wiki.getFields(chat)?.['agent-parent']) {
        // A sub-agent answers its parent's call, which no longer runs: nobody waits for it now.
        this.decisions.close(chat, 'The parent turn ended (a restart or reload), so this sub-agent was stopped.', 'canceled');
        this.setStatus(chat, 'canceled');
        marked.add(chat);
        continue;
      }
      if (status === 'input-required' && !cutOff.has(chat)) {
        // Still waiting for the user, or cut off after the last decision or answer landed (it waits for nothing).
        if (this.decisions.allDecided(chat)) cutOff.add(chat);
        else {
          this.scheduleExpiry(chat);
          const why = notApplied.get(chat);
          if (why) {
            this.store.appendMessage(chat, { role: 'error', text: why, errorKind: 'interrupted' });
            marked.add(chat);
          }
        }
      }
      if (status !== 'working' && !cutOff.has(chat)) continue;
      this.store.appendMessage(chat, { role: 'error', text: this.host.interruptedText ?? INTERRUPTED, errorKind: 'interrupted' });
      // A turn cut off before its `working` reached disk did start (its message is saved): it went working, then was cut off.
      if (status !== 'working' && status !== 'input-required') this.setStatus(chat, 'working');
      this.setStatus(chat, 'interrupted');
      marked.add(chat);
    }
    return [...marked];
  }

  /**
   * Rename a chat and everything keyed by its title (runner/chat-move.ts), in the chat's
   * queue: after a running turn, before what was sent behind it (which then runs under the
   * new title). Refuses a blank, system, unsafe or existing title.
   */
  async rename(chat: string, to: string): Promise<{ title: string }> {
    const result = await this.submitRename(chat, to).done;
    if (result.error) throw new RunnerError(result.status === 'canceled' ? 'conflict' : 'bad-request', result.error);
    return { title: to };
  }

  submitRename(chat: string, to: string): { op: Operation; done: Promise<TurnResult> } {
    this.requireChat(chat);
    if (this.host.wiki.getFields(chat)?.['agent-parent']) throw new RunnerError('conflict', `"${chat}" is a sub-agent's chat: it moves with its parent's.`);
    this.requireTitle(to);
    return this.operations.submit({ chat, kind: 'rename', to });
  }

  /** "Delete forever" a chat in the bin: the chat, its messages, journals, images, todo list and sub-agents' chats. */
  deleteChat(chat: string): Promise<{ deleted: string[] }> {
    try {
      this.requireIdle(chat);
      if (!this.host.wiki.getFields(chat)?.[CHAT_DELETED])
        throw new RunnerError('conflict', `"${chat}" is not in the bin: delete it first, then delete it forever.`);
      // The chat, its parts, its sub-agents' chats and theirs; of the parts only hidden ones (`$:/ai/`): a tiddler of the user's stays.
      const owned = chatFamily(this.host.wiki, chat)
        .flatMap((c) => [c, ...chatPartTitles(this.host.wiki, c, OWNED_PARTS)])
        .filter((t) => t === chat || t.startsWith('$:/ai/'));
      for (const title of owned) this.host.wiki.deleteTiddler(title);
      return Promise.resolve({ deleted: owned });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** "Compact now": in the chat's queue, so it never runs beside a turn; rejects with why nothing was compacted. */
  async compact(chat: string): Promise<{ compacted: true }> {
    this.requireChat(chat);
    const result = await this.operations.submit({ chat, kind: 'compact' }).done;
    if (result.error) throw new RunnerError(result.status === 'canceled' ? 'conflict' : 'bad-request', result.error);
    return { compacted: true };
  }

  /** "Show prompt": the next request as a turn would build it now, tools and all; writes nothing. */
  async previewPrompt(chat: string): Promise<PromptPreview> {
    this.requireChat(chat);
    const controller = new AbortController();
    let prompt: Awaited<ReturnType<typeof previewPrompt>>;
    try {
      prompt = await previewPrompt(this.engineDeps(await this.turnTools(chat, controller.signal)), chat);
    } catch (e) {
      throw new RunnerError('bad-request', e instanceof Error ? e.message : String(e));
    }
    return {
      model: prompt.request.model,
      window: prompt.usage.window,
      total: prompt.usage.total,
      trimmed: prompt.trimmed,
      sections: prompt.sections.map((section) => ({
        id: section.id,
        tokens: section.tokens,
        messages: section.messages.map((m) => ({
          role: m.role,
          content: m.content,
          ...(m.role === 'assistant' && m.toolCalls?.length ? { toolCalls: JSON.stringify(m.toolCalls) } : {}),
          ...((m.role === 'user' || m.role === 'tool') && m.images?.length ? { images: m.images.length } : {}),
        })),
      })),
      tools: (prompt.request.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: JSON.stringify(t.parameters) })),
    };
  }

  testMcpServer(name: string): Promise<McpTestResult> {
    if (typeof name !== 'string' || !name) return Promise.reject(new RunnerError('bad-request', 'No MCP server was named.'));
    if (!this.host.mcp) return Promise.resolve({ ok: false, tools: [], error: 'MCP is not available here.' });
    return this.host.mcp.test(name, AbortSignal.timeout(60_000));
  }

  testProvider(request: ProviderTestRequest): Promise<ProviderTestResult> {
    return testProvider(this.host.wiki, request, {
      fetch: this.host.fetch,
      getApiKey: (name, url) => this.host.getApiKey(name, url),
      keyHint: this.host.keyHint,
      addressRefusal: this.host.addressRefusal,
      secrets: this.host.secrets,
    });
  }

  /**
   * "Ask AI" from the editor (engine/edit-request.ts): the agent (default: the one new chats
   * use) proposes a new text for a selection; no chat, no turn, nothing written. Stopped by
   * `signal` and by the provider profile's timeout.
   */
  async proposeEdit(request: EditRequest, signal?: AbortSignal): Promise<{ text: string }> {
    if (!request || typeof request !== 'object' || typeof request.text !== 'string') throw new RunnerError('bad-request', '"text" must be a string.');
    for (const key of ['custom', 'title', 'context', 'agent'] as const) {
      if (request[key] !== undefined && typeof request[key] !== 'string') throw new RunnerError('bad-request', `"${key}" must be a string.`);
    }
    const problem = editRequestProblem(request);
    if (problem) throw new RunnerError('bad-request', problem);
    const agent = request.agent?.trim() || configValue(this.host.wiki, CONFIG.defaultAgent);
    if (!this.host.wiki.getFields(agent)) throw new RunnerError('not-found', `There is no agent "${agent}".`);
    let timeout = DEFAULT_TIMEOUT_SECONDS;
    try {
      timeout = this.store.readProvider(this.store.readAgent(agent)['agent-provider']).timeout ?? timeout;
    } catch (e) {
      throw new RunnerError('bad-request', e instanceof Error ? e.message : String(e));
    }
    const signals = [AbortSignal.timeout(timeout * 1000), ...(signal ? [signal] : [])];
    try {
      const text = await proposeEdit(
        { store: this.store, createModel: (profile) => this.createModel(profile), signal: AbortSignal.any(signals) },
        { ...request, agent },
      );
      return { text };
    } catch (e) {
      throw new RunnerError(signal?.aborted ? 'conflict' : 'bad-request', e instanceof Error ? e.message : String(e));
    }
  }

  /** Stop every timer (the page or process is going away). */
  dispose(): void {
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    this.expiryTimers.clear();
    this.host.mcp?.close();
  }

  // ---- operations -------------------------------------------------------------------------

  private async execute(op: Operation): Promise<{ result: TurnResult; status: OperationStatus; error?: string }> {
    const result = await this.executeTurn(op);
    if (result.status === 'completed' && TURN_KINDS.includes(op.kind)) await this.autoTitle(op.chat);
    const status: OperationStatus = result.status === 'failed' ? 'failed' : result.status === 'canceled' ? 'canceled' : 'done';
    return { result, status, error: result.error };
  }

  private executeTurn(op: Operation): Promise<TurnResult> {
    const { chat } = op;
    if (!this.host.wiki.getFields(chat)) return Promise.resolve({ status: 'failed', error: `The chat "${chat}" no longer exists.` });
    switch (op.kind) {
      case 'send':
        // A new message supersedes whatever the last turn was waiting for.
        this.decisions.close(chat, 'The user sent a new message instead.', 'replaced');
        return this.runTurn(chat, { userText: op.text ?? '', attachments: op.attachments ?? [], operation: op.id, source: op.source });
      case 'decide':
        return this.afterDecision(chat, this.decisions.decide(chat, op.message ?? '', op.choice!, op.scope, op.text));
      case 'answer':
        return this.afterDecision(chat, this.decisions.answer(chat, op.message ?? '', op.answers ?? null));
      case 'retry':
        if (!this.turns.isLast(chat, op.message ?? '')) return Promise.resolve({ status: 'failed', error: 'Only the last turn can be answered again.' });
        this.keepReplies(chat, op.message ?? '');
        return this.runTurn(chat, {});
      case 'edit':
        return this.editTurn(op);
      case 'switch':
        if (!this.branches.switchTo(chat, op.at ?? -1, op.version ?? -1))
          return Promise.resolve({ status: 'failed', error: 'That version is no longer there.' });
        return this.recountContext(chat).then(() => ({ status: 'completed' }));
      case 'resume':
        return this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required' ? this.runTurn(chat, {}) : Promise.resolve({ status: 'completed' });
      case 'compact':
        return this.runCompaction(chat);
      case 'rename':
        return Promise.resolve(this.moveChat(chat, op.to ?? ''));
    }
  }

  /** Move the chat and all it owns to `to` in one synchronous step (one step on disk in the server edition). */
  private moveChat(chat: string, to: string): TurnResult {
    const problem = titleProblem(this.host.wiki, to);
    if (problem) return { status: 'failed', error: titleProblemText(to, problem) };
    applyChatMove(this.host.wiki, planChatMove(this.host.wiki, chat, to));
    this.operations.move(chat, to);
    if (this.expiryTimers.has(chat)) {
      clearTimeout(this.expiryTimers.get(chat));
      this.expiryTimers.delete(chat);
      this.scheduleExpiry(to);
    }
    return { status: 'completed' };
  }

  /**
   * After a chat's first turn completed under a default title (`Chat`, `Chat 1`…): ask its
   * model for a title in a side request (engine/chat-title.ts), else take the first words of
   * the user's message, and rename the chat to it (made unique). Stop aborts the request.
   */
  private async autoTitle(chat: string): Promise<void> {
    const read = (title: string) => this.host.wiki.getFields(title)?.text;
    const fields = this.host.wiki.getFields(chat);
    if (!fields || fields['agent-parent'] || fields['agent-hidden'] || this.isExternal(chat) || configValue(this.host.wiki, AUTO_TITLE_CONFIG) === 'no') return;
    const bases = () => ['Chat', read(`${LANGUAGE}NewChat/BaseTitle`) ?? '', lingoOf(read, 'NewChat/BaseTitle')].map((b) => b.trim());
    if (!isDefaultTitle(chat, bases())) return;
    const messages = this.store.listMessages(chat);
    const users = messages.filter((m) => m.role === 'user');
    if (users.length !== 1) return;
    const reply = messages.filter((m) => m.role === 'assistant' && m.text.trim()).at(-1)?.text ?? '';
    const controller = new AbortController();
    this.controllers.set(chat, controller);
    let suggested: string | undefined;
    try {
      suggested = await suggestChatTitle({
        store: this.store,
        chat,
        firstUser: users[0]!.text,
        firstReply: reply,
        createModel: (profile) => this.createModel(profile),
        signal: controller.signal,
        words: readPromptWords(read),
      });
    } finally {
      this.controllers.delete(chat);
    }
    // The user may have renamed or deleted the chat meanwhile.
    if (!this.host.wiki.getFields(chat) || !isDefaultTitle(chat, bases())) return;
    const title = suggested || titleFromMessage(users[0]!.text);
    if (title) this.moveChat(chat, uniqueTitle(this.host.wiki, title));
  }

  /**
   * Before a retry: the turn's replies are parked as a version (runner/branches.ts), unless
   * they are only errors (nothing anyone wants to read again): those go.
   */
  private keepReplies(chat: string, userMessage: string): void {
    const replies = this.turns.messages(chat, userMessage).slice(1);
    if (replies.every((m) => m.role === 'error'))
      this.store.deleteMessages(
        chat,
        replies.map((m) => m.title),
      );
    else this.branches.park(chat, replies[0]!['agent-seq']);
  }

  /** Edit and resend: park the path from the edited message on and answer the edited copy, in one step before the turn. */
  private editTurn(op: Operation): Promise<TurnResult> {
    const { chat } = op;
    const original = this.store.listMessages(chat).find((m) => m.title === op.message && m.role === 'user');
    if (!original) return Promise.resolve({ status: 'failed', error: 'The message to edit is no longer in the chat.' });
    this.branches.park(chat, original['agent-seq']);
    this.store.appendMessage(chat, { role: 'user', text: op.text ?? '', attachments: original.attachments, operation: op.id });
    return this.runTurn(chat, {});
  }

  /** The turn resumes once nothing waits for the user; a dismissed question ends it. */
  private afterDecision(chat: string, outcome: Outcome | { error: string }): Promise<TurnResult> {
    if (typeof outcome === 'object') return Promise.resolve({ status: 'failed', error: outcome.error });
    if (this.isExternal(chat)) return this.externalTurn(chat);
    if (outcome === 'dismissed') {
      this.setStatus(chat, 'canceled');
      return Promise.resolve({ status: 'canceled' });
    }
    return outcome === 'resume' ? this.runTurn(chat, {}) : Promise.resolve({ status: 'input-required' });
  }

  private runTurn(chat: string, input: { userText?: string; attachments?: string[]; operation?: string; source?: string }): Promise<TurnResult> {
    if (this.isExternal(chat)) return this.externalTurn(chat);
    const controller = new AbortController();
    clearTimeout(this.expiryTimers.get(chat));
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
        if (result.status === 'input-required') this.scheduleExpiry(chat);
        return result;
      });
  }

  /** Every tool a turn of this chat may use: the built-in ones, the user's (tiddlers, read as they are now) and the MCP tools its agent enabled. */
  private async turnTools(chat: string, signal: AbortSignal): Promise<Map<string, ToolDefinition>> {
    const tools = new Map([...this.host.tools, ...loadUserTools(this.host.wiki, new Set(this.host.tools.keys())).map((t) => [t.name, t] as const)]);
    const mcp = await this.mcpTools(chat, tools, signal);
    return new Map([...tools, ...mcp.map((t) => [t.name, t] as const)]);
  }

  /** What the engine gets from this runner. */
  private engineDeps(tools: ReadonlyMap<string, ToolDefinition>): EngineDeps {
    return {
      store: this.store,
      createModel: (profile) => this.createModel(profile),
      emit: (e) => this.bus.emit(e),
      tools,
      plugins: this.host.plugins,
      now: this.now,
      services: { now: this.now, subAgents: this.subAgents, web: this.host.web, semantic: this.host.semantic },
      words: readPromptWords((title) => this.host.wiki.getFields(title)?.text),
    };
  }

  /**
   * The context meter says what the next prompt would hold. A turn measures its prompt every
   * round; after the chat changed outside a turn (a turn deleted or rolled back, another version
   * shown, a compaction) it is measured again here, stored in the chat (what a page shows on
   * opening it) and announced. A chat whose prompt cannot be built (no model set) keeps its meter.
   */
  private async recountContext(chat: string): Promise<void> {
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

  /** "Compact now" as an operation: Stop aborts the summary; the chat's status does not change. */
  private async runCompaction(chat: string): Promise<TurnResult> {
    const controller = new AbortController();
    this.controllers.set(chat, controller);
    let outcome: Awaited<ReturnType<typeof compactNow>>;
    try {
      outcome = await compactNow(this.engineDeps(await this.turnTools(chat, controller.signal)), chat, controller.signal);
    } catch (e) {
      return { status: 'failed', error: e instanceof Error ? e.message : String(e) };
    } finally {
      this.controllers.delete(chat);
    }
    if (controller.signal.aborted) return { status: 'canceled', error: 'Compaction was stopped; the chat is as it was.' };
    if (!outcome.compacted) return { status: 'failed', error: outcome.error };
    await this.recountContext(chat);
    return { status: 'completed' };
  }

  /** The MCP tools the chat's agent enabled (runner/mcp-client.ts), connecting as needed. */
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
    return this.operations
      .waiting(chat)
      .filter((op) => op.kind === 'send')
      .map((op) => ({ id: op.id, text: op.text ?? '', attachments: op.attachments ?? [] }));
  }

  private queueChanged(chat: string): void {
    const queue = this.queuedMessages(chat);
    const previous = this.bus.state(chat)?.queue ?? [];
    if (queue.length || previous.length) this.bus.emit({ type: 'queue', chat, queue });
    if (!this.host.saveQueueInChat || !this.host.wiki.getFields(chat)) return;
    // Mirror the queue into the chat, so the words survive a reload (not the run).
    const saved = this.host.wiki.getFields(chat)?.[CHAT_QUEUED];
    const next = queue.length ? JSON.stringify(queue.map(({ text, attachments }) => ({ text, attachments }))) : undefined;
    if (saved !== next) this.store.updateChat(chat, { [CHAT_QUEUED]: next });
  }

  /** Set the status through the one status writer and announce it. */
  private setStatus(chat: string, status: ChatStatus): void {
    this.store.setStatus(chat, status);
    this.bus.emit({ type: 'status', chat, status });
  }

  // ---- checks -------------------------------------------------------------------------------

  private requireChat(chat: string): void {
    if (typeof chat !== 'string' || !chat) throw new RunnerError('bad-request', 'No chat was named.');
    const fields = this.host.wiki.getFields(chat);
    if (!fields) throw new RunnerError('not-found', `The chat "${chat}" does not exist.`);
    if (typeof fields.agent !== 'string' || !fields.agent.trim()) throw new RunnerError('bad-request', `"${chat}" is not a chat: it has no "agent" field.`);
  }

  private requireTitle(title: string): void {
    const problem = typeof title === 'string' ? titleProblem(this.host.wiki, title) : 'blank';
    if (problem) throw new RunnerError(problem === 'exists' ? 'conflict' : 'bad-request', titleProblemText(String(title ?? ''), problem));
  }

  private requireIdle(chat: string): void {
    this.requireChat(chat);
    if (this.isActive(chat)) throw new RunnerError('conflict', `"${chat}" is running a turn; stop it first.`);
  }

  /** A chat may fork (edit, switch) when no turn runs and nothing waits for the user. */
  private requireForkable(chat: string): void {
    this.requireIdle(chat);
    if (this.isExternal(chat)) throw new RunnerError('conflict', `"${chat}" lists what an MCP client did; it has no turns to edit.`);
    if (this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required')
      throw new RunnerError('conflict', `"${chat}" is waiting for your decision or answer; give it, or stop the turn, first.`);
  }

  private requireLastTurn(chat: string, userMessage: string): void {
    this.requireIdle(chat);
    if (this.isExternal(chat)) throw new RunnerError('conflict', `"${chat}" lists what an MCP client did; there is no reply to regenerate.`);
    this.turns.require(chat, userMessage);
    if (!this.turns.isLast(chat, userMessage)) throw new RunnerError('conflict', 'Only the last turn can be answered again.');
  }

  /** Deny confirmations nobody answered in time, even when nobody looks at the chat. */
  private scheduleExpiry(chat: string): void {
    clearTimeout(this.expiryTimers.get(chat));
    this.expiryTimers.delete(chat);
    const expiry = this.decisions.nextExpiry(chat);
    if (expiry === undefined) return;
    const wait = Math.max(0, expiry - this.now());
    this.expiryTimers.set(
      chat,
      setTimeout(() => {
        this.expiryTimers.delete(chat);
        if (!this.isActive(chat) && this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') this.operations.submit({ chat, kind: 'resume' });
      }, wait),
    );
  }

  private createModel(profile: ProviderProfile): LanguageModel {
    if (this.host.createModel) return this.host.createModel(profile);
    return createLanguageModel(profile.api, {
      baseUrl: profile['base-url'],
      apiKey: profileApiKey(profile, this.host),
      fetch: this.host.fetch,
      idleTimeoutMs: (profile.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    });
  }
}
