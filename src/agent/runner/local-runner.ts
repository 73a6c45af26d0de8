/*\
LocalRunner: runs turns in this process: the browser tab, the headless command, or the
Node.js server (whose routes call it for every browser). Every request becomes an operation
(runner/operations.ts), persisted before it runs and run one at a time per chat; a send
during a turn waits in that queue. Stop aborts the HTTP request at once. The user's decisions
(approvals, answers) are written into the waiting messages and the turn resumes from them,
so a reload or a restart in between loses nothing.
\*/
import { EventBus, type AgentEventListener } from '../engine/events';
import type { EnginePlugin } from '../engine/hooks';
import { initialLiveState, type LiveChatState, type QueuedMessage } from '../engine/live-state';
import { CHAT_ALLOWED_TOOLS, CHAT_CONTEXT_USAGE, runTurn, type TurnResult } from '../engine/loop';
import { createLanguageModel } from '../providers';
import type { FetchFn, LanguageModel } from '../providers/types';
import { ChatStore } from '../store/chat-store';
import type { ChatStatus, Message, ProviderProfile } from '../store/schemas';
import { parseTitleList, stringifyTitleList, type WikiPort } from '../store/wiki-port';
import { formatClarifications } from '../tools/control-tools';
import { journalTitle, planRollback, readJournal } from '../tools/journal';
import type { ToolDefinition } from '../tools/tool';
import { loadUserTools } from '../tools/user-tools';
import { restoreJournal } from '../tools/write-gate';
import { RunnerError, type ApprovalChoice, type ChatRunner, type RollbackResult } from './chat-runner';
import { ensureWebGlobals } from './host';
import { MemoryOperationLog, OperationQueue, type Operation, type OperationLog, type OperationStatus } from './operations';

export type { ApprovalChoice } from './chat-runner';

export interface RunnerHost {
  wiki: WikiPort;
  fetch: FetchFn;
  /** The secret stored under a profile's `api-key-name`, if any. */
  getApiKey(name: string): string | undefined;
  /** Where the user sets a missing key, for the error message. */
  keyHint: string;
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
  now?(): number;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
/** Chat field: messages sent during a turn and not started yet (JSON), so a reload keeps them. */
export const CHAT_QUEUED = 'agent-queued';
const CHOICES: readonly ApprovalChoice[] = ['once', 'chat', 'always', 'deny'];
const INTERRUPTED = 'This turn was interrupted: the page was closed or reloaded while it ran. Send your message again to retry.';

export class LocalRunner implements ChatRunner {
  readonly where = 'local' as const;
  readonly bus = new EventBus();
  readonly store: ChatStore;
  private readonly operations: OperationQueue<TurnResult>;
  private readonly log: OperationLog;
  private controllers = new Map<string, AbortController>();
  private expiryTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly now: () => number;

  constructor(private readonly host: RunnerHost) {
    ensureWebGlobals();
    this.store = new ChatStore(host.wiki);
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
    if (!Array.isArray(attachments) || attachments.some((a) => typeof a !== 'string')) throw new RunnerError('bad-request', 'Attachments must be a list of titles.');
    // "Talk with AI" attachments and a queue saved before a reload were in the input: this message carries them.
    if (!this.isActive(chat)) this.store.updateChat(chat, { 'agent-draft-attachments': undefined, [CHAT_QUEUED]: undefined });
    return this.operations.submit({ chat, kind: 'send', text, attachments });
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
      this.closePending(chat, 'The user stopped the turn.');
      this.setStatus(chat, 'canceled');
    }
  }

  /** The user's answer to a confirmation card; resolves when the resumed turn has ended. */
  decide(chat: string, message: string, choice: ApprovalChoice): Promise<TurnResult> {
    try {
      return this.submitDecision(chat, message, choice).done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  submitDecision(chat: string, message: string, choice: ApprovalChoice): { op: Operation; done: Promise<TurnResult> } {
    if (!CHOICES.includes(choice)) throw new RunnerError('bad-request', `The choice must be one of: ${CHOICES.join(', ')}.`);
    this.requirePending(chat, message, 'approval');
    return this.operations.submit({ chat, kind: 'decide', message, choice });
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
    if (answers !== null && (!Array.isArray(answers) || answers.some((a) => typeof a !== 'string'))) throw new RunnerError('bad-request', 'The answers must be a list of strings, or null to dismiss the question.');
    this.requirePending(chat, message, 'question');
    return this.operations.submit({ chat, kind: 'answer', message, answers });
  }

  /** Regenerate the last turn: its replies go, the user's message stays and is answered again. */
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

  /** Remove a turn's messages (not what its tools changed in the wiki; roll back first for that). */
  deleteTurn(chat: string, userMessage: string): Promise<void> {
    try {
      this.requireIdle(chat);
      const turn = this.requireTurn(chat, userMessage);
      for (const m of turn) this.host.wiki.deleteTiddler(m.title);
      this.host.wiki.deleteTiddler(journalTitle(chat, userMessage));
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Restore every tiddler the turn's tools changed. When any of them changed again since
   * (the user edited it), nothing happens unless `force`, and the titles are returned.
   */
  rollback(chat: string, userMessage: string, force = false): Promise<RollbackResult> {
    try {
      this.requireChat(chat);
      const title = journalTitle(chat, typeof userMessage === 'string' ? userMessage : '');
      if (!this.host.wiki.getFields(title)) throw new RunnerError('not-found', 'This turn changed no tiddler: there is nothing to roll back.');
      const journal = readJournal(this.host.wiki, title);
      const plan = planRollback(this.host.wiki, journal);
      if (plan.conflicts.length && !force) return Promise.resolve({ conflicts: plan.conflicts, restored: [] });
      // Through the write gate's rule for what may be restored: a journal never plants code.
      const { restored } = restoreJournal(this.host.wiki, journal);
      const fields = this.host.wiki.getFields(title);
      if (fields) this.host.wiki.putTiddler({ ...fields, 'agent-rolled-back': this.host.wiki.now() });
      return Promise.resolve({ conflicts: plan.conflicts, restored });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The messages of the turn a user message started, that message included. */
  turnMessages(chat: string, userMessage: string): Message[] {
    const messages = this.store.listMessages(chat);
    const start = messages.findIndex((m) => m.title === userMessage);
    if (start < 0) return [];
    const next = messages.findIndex((m, i) => i > start && m.role === 'user');
    return messages.slice(start, next < 0 ? undefined : next);
  }

  /**
   * After a reload or restart no turn can still be running here. Operations the log holds
   * unfinished are failed (a send's words are kept as its user message); a chat left
   * `working` gets an error message and becomes `interrupted`; chats waiting for the user
   * keep waiting, with their confirmation timers restored, unless every waiting call already
   * has its decision or answer (cut off before the turn went on: interrupted too). Returns
   * the chats it marked.
   */
  restore(): string[] {
    const marked = new Set<string>();
    const cutOff = new Set<string>();
    for (const op of this.log.unfinished()) {
      if (op.kind === 'send' && op.text && this.host.wiki.getFields(op.chat)) {
        const kept = this.host.wiki.filter('[field:agent-operation<id>]', { id: op.id });
        if (!kept.length) {
          this.store.appendMessage(op.chat, { role: 'user', text: op.text, attachments: op.attachments, operation: op.id });
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
      if (status === 'input-required' && !cutOff.has(chat)) {
        // Still waiting for the user, or cut off after the last decision or answer landed (it waits for nothing).
        if (this.pendingMessages(chat).some((m) => m['tool-name'] === 'ask-question' || !m.approval)) this.scheduleExpiry(chat);
        else cutOff.add(chat);
      }
      if (status !== 'working' && !cutOff.has(chat)) continue;
      this.store.appendMessage(chat, { role: 'error', text: this.host.interruptedText ?? INTERRUPTED });
      // A turn cut off before its `working` reached disk did start (its message is saved): it went working, then was cut off.
      if (status !== 'working' && status !== 'input-required') this.setStatus(chat, 'working');
      this.setStatus(chat, 'interrupted');
      marked.add(chat);
    }
    return [...marked];
  }

  /** Stop every timer (the page or process is going away). */
  dispose(): void {
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    this.expiryTimers.clear();
  }

  // ---- operations -------------------------------------------------------------------------

  private async execute(op: Operation): Promise<{ result: TurnResult; status: OperationStatus; error?: string }> {
    const result = await this.executeTurn(op);
    const status: OperationStatus = result.status === 'failed' ? 'failed' : result.status === 'canceled' ? 'canceled' : 'done';
    return { result, status, error: result.error };
  }

  private executeTurn(op: Operation): Promise<TurnResult> {
    const { chat } = op;
    if (!this.host.wiki.getFields(chat)) return Promise.resolve({ status: 'failed', error: `The chat "${chat}" no longer exists.` });
    switch (op.kind) {
      case 'send':
        // A new message supersedes whatever the last turn was waiting for.
        this.closePending(chat, 'The user sent a new message instead.');
        return this.runTurn(chat, { userText: op.text ?? '', attachments: op.attachments ?? [], operation: op.id });
      case 'decide':
        return this.applyDecision(op);
      case 'answer':
        return this.applyAnswer(op);
      case 'retry': {
        const turn = this.turnMessages(chat, op.message ?? '');
        const last = this.store.listMessages(chat).at(-1);
        if (!turn.length || turn.at(-1)?.title !== last?.title) return Promise.resolve({ status: 'failed', error: 'Only the last turn can be answered again.' });
        for (const m of turn.slice(1)) this.host.wiki.deleteTiddler(m.title);
        return this.runTurn(chat, {});
      }
      case 'resume':
        return this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required' ? this.runTurn(chat, {}) : Promise.resolve({ status: 'completed' });
    }
  }

  private applyDecision(op: Operation): Promise<TurnResult> {
    const { chat } = op;
    const fields = this.pendingFields(chat, op.message ?? '');
    if (!fields || fields.approval) return Promise.resolve({ status: 'failed', error: 'The call no longer waits for a decision.' });
    const tool = fields['tool-name'] ?? '';
    if (op.choice === 'chat') {
      const allowed = parseTitleList(this.host.wiki.getFields(chat)?.[CHAT_ALLOWED_TOOLS]);
      if (!allowed.includes(tool)) this.store.updateChat(chat, { [CHAT_ALLOWED_TOOLS]: stringifyTitleList([...allowed, tool]) });
    } else if (op.choice === 'always') {
      this.allowAlways(chat, tool);
    }
    this.store.updateFields(op.message!, { approval: op.choice });
    return this.resumeWhenReady(chat);
  }

  private applyAnswer(op: Operation): Promise<TurnResult> {
    const { chat } = op;
    const fields = this.pendingFields(chat, op.message ?? '');
    if (!fields) return Promise.resolve({ status: 'failed', error: 'The question was already answered.' });
    if (op.answers === null || op.answers === undefined) {
      this.store.updateFields(op.message!, { 'tool-status': 'denied', text: 'The user dismissed the question.' });
      this.closePending(chat, 'The user dismissed the question.');
      this.setStatus(chat, 'canceled');
      return Promise.resolve({ status: 'canceled' });
    }
    let question = '';
    try {
      question = (JSON.parse(fields['tool-args'] ?? '{}') as { question?: string }).question ?? '';
    } catch {
      // the question text is only used to label the answer
    }
    this.store.updateFields(op.message!, { 'tool-status': 'ok', text: formatClarifications([{ question, answer: op.answers.join(', ') }]) });
    return this.resumeWhenReady(chat);
  }

  /** Resume once every waiting call of the chat has a decision or an answer. */
  private resumeWhenReady(chat: string): Promise<TurnResult> {
    const undecided = this.pendingMessages(chat).some((m) => (m['tool-name'] === 'ask-question' ? true : !m.approval));
    if (undecided) return Promise.resolve({ status: 'input-required' });
    return this.runTurn(chat, {});
  }

  private runTurn(chat: string, input: { userText?: string; attachments?: string[]; operation?: string }): Promise<TurnResult> {
    const controller = new AbortController();
    clearTimeout(this.expiryTimers.get(chat));
    this.controllers.set(chat, controller);
    return runTurn(
      {
        store: this.store,
        createModel: (profile) => this.createModel(profile),
        emit: (e) => this.bus.emit(e),
        // User tools are tiddlers: read them as they are now, at the start of every turn.
        tools: new Map([...this.host.tools, ...loadUserTools(this.host.wiki, new Set(this.host.tools.keys())).map((t) => [t.name, t] as const)]),
        plugins: this.host.plugins,
      },
      { chat, signal: controller.signal, ...input },
    )
      .catch((e: unknown): TurnResult => {
        // Last line of defence: the engine handles every expected failure itself.
        const message = `Unexpected error: ${e instanceof Error ? e.message : String(e)}`;
        try {
          this.store.appendMessage(chat, { role: 'error', text: message });
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

  // ---- state --------------------------------------------------------------------------------

  /** A chat's live state, or what its tiddler says when nothing runs (a push channel's snapshot). */
  snapshot(chat: string): LiveChatState {
    return this.bus.state(chat) ?? this.quietState(chat);
  }

  /** A chat's state when nothing is live: what its tiddler says. */
  private quietState(chat: string): LiveChatState {
    const fields = this.host.wiki.getFields(chat);
    let context: LiveChatState['context'];
    try {
      context = fields?.[CHAT_CONTEXT_USAGE] ? JSON.parse(fields[CHAT_CONTEXT_USAGE]) : undefined;
    } catch {
      context = undefined;
    }
    return { ...initialLiveState(), status: (fields?.['agent-status'] || 'idle') as ChatStatus, context, queue: this.queuedMessages(chat) };
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

  private requireIdle(chat: string): void {
    this.requireChat(chat);
    if (this.isActive(chat)) throw new RunnerError('conflict', `"${chat}" is running a turn; stop it first.`);
  }

  private requireTurn(chat: string, userMessage: string): Message[] {
    this.requireChat(chat);
    const turn = this.turnMessages(chat, userMessage);
    if (!turn.length || turn[0]!.role !== 'user') throw new RunnerError('not-found', `"${userMessage}" is not a user message of "${chat}".`);
    return turn;
  }

  private requireLastTurn(chat: string, userMessage: string): void {
    this.requireIdle(chat);
    const turn = this.requireTurn(chat, userMessage);
    if (turn.at(-1)?.title !== this.store.listMessages(chat).at(-1)?.title) throw new RunnerError('conflict', 'Only the last turn can be answered again.');
  }

  private requirePending(chat: string, message: string, reason: 'approval' | 'question'): void {
    this.requireChat(chat);
    if (typeof message !== 'string' || !message) throw new RunnerError('bad-request', 'No message was named.');
    const fields = this.host.wiki.getFields(message);
    if (!fields || fields['agent-chat'] !== chat) throw new RunnerError('not-found', `"${message}" is not a message of "${chat}".`);
    const question = fields['tool-name'] === 'ask-question';
    if (fields['tool-status'] !== 'pending' || (reason === 'approval' && (question || fields.approval)) || (reason === 'question' && !question)) {
      throw new RunnerError('conflict', reason === 'approval' ? 'This call does not wait for a decision.' : 'This question does not wait for an answer.');
    }
  }

  private pendingFields(chat: string, message: string): Record<string, string> | undefined {
    const fields = this.host.wiki.getFields(message);
    return fields && fields['tool-status'] === 'pending' && fields['agent-chat'] === chat ? fields : undefined;
  }

  private pendingMessages(chat: string): Message[] {
    return this.store.listMessages(chat).filter((m) => m.role === 'tool' && m['tool-status'] === 'pending');
  }

  private closePending(chat: string, reason: string): void {
    for (const m of this.pendingMessages(chat)) this.store.updateFields(m.title, { 'tool-status': 'denied', text: reason, 'approval-expires': undefined });
  }

  private allowAlways(chat: string, tool: string): void {
    const agentTitle = this.host.wiki.getFields(chat)?.agent;
    const agent = agentTitle ? this.host.wiki.getFields(agentTitle) : undefined;
    if (!agent) return;
    let config: Record<string, { mode?: string }> = {};
    try {
      config = agent['agent-approval'] ? JSON.parse(agent['agent-approval']) : {};
    } catch {
      return; // a broken config is reported by the turn itself
    }
    config[tool] = { ...config[tool], mode: 'auto' };
    this.host.wiki.putTiddler({ ...agent, 'agent-approval': JSON.stringify(config) });
  }

  /** Deny confirmations nobody answered in time, even when nobody looks at the chat. */
  private scheduleExpiry(chat: string): void {
    clearTimeout(this.expiryTimers.get(chat));
    this.expiryTimers.delete(chat);
    const expiries = this.pendingMessages(chat)
      .filter((m) => !m.approval && m['approval-expires'])
      .map((m) => Number(m['approval-expires']));
    if (!expiries.length) return;
    const wait = Math.max(0, Math.min(...expiries) - this.now());
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
    const keyName = profile['api-key-name']?.trim();
    const apiKey = keyName ? this.host.getApiKey(keyName) : undefined;
    if (keyName && !apiKey) {
      throw new Error(`No API key is set for the provider "${profile.caption || profile.title}". ${this.host.keyHint.replace('$name$', keyName)}`);
    }
    return createLanguageModel(profile.api, {
      baseUrl: profile['base-url'],
      apiKey,
      fetch: this.host.fetch,
      idleTimeoutMs: (profile.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    });
  }
}
