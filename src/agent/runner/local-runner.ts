/*\
LocalRunner: runs turns in this process (the browser tab, or Node when embedded). One active
turn per chat; a send during a turn waits in a queue and runs after it. Stop aborts the HTTP
request at once. The user's decisions (approvals, answers) are written into the waiting
messages and the turn resumes from them, so a reload in between loses nothing.
\*/
import { EventBus } from '../engine/events';
import type { EnginePlugin } from '../engine/hooks';
import { CHAT_ALLOWED_TOOLS, runTurn, type TurnResult } from '../engine/loop';
import { createLanguageModel } from '../providers';
import type { FetchFn, LanguageModel } from '../providers/types';
import { ChatStore } from '../store/chat-store';
import type { Message, ProviderProfile } from '../store/schemas';
import { parseTitleList, stringifyTitleList, type WikiPort } from '../store/wiki-port';
import { formatClarifications } from '../tools/control-tools';
import { journalTitle, planRollback, readJournal } from '../tools/journal';
import { restoreJournal } from '../tools/write-gate';
import { ensureWebGlobals } from './host';
import type { ToolDefinition } from '../tools/tool';
import { loadUserTools } from '../tools/user-tools';

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
}

export type ApprovalChoice = 'once' | 'chat' | 'always' | 'deny';

interface QueuedSend {
  text: string;
  attachments: string[];
  resolve(result: TurnResult): void;
}

interface ActiveTurn {
  controller: AbortController;
  done: Promise<TurnResult>;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
/** Chat field: messages sent during a turn and not started yet (JSON), so a reload keeps them. */
export const CHAT_QUEUED = 'agent-queued';

export class LocalRunner {
  readonly bus = new EventBus();
  readonly store: ChatStore;
  private active = new Map<string, ActiveTurn>();
  private queues = new Map<string, QueuedSend[]>();
  private expiryTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly host: RunnerHost) {
    ensureWebGlobals();
    this.store = new ChatStore(host.wiki);
  }

  isActive(chat: string): boolean {
    return this.active.has(chat);
  }

  /** Messages sent during the active turn, waiting for it to end. */
  queued(chat: string): string[] {
    return (this.queues.get(chat) ?? []).map((q) => q.text);
  }

  /** Send a user message; resolves when its turn has ended (or waits for the user). */
  send(chat: string, text: string, attachments: string[] = []): Promise<TurnResult> {
    if (this.active.has(chat)) {
      return new Promise((resolve) => {
        const queue = this.queues.get(chat) ?? [];
        queue.push({ text, attachments, resolve });
        this.queues.set(chat, queue);
        this.saveQueue(chat);
        this.bus.emit({ type: 'status', chat, status: 'working' });
      });
    }
    // A new message supersedes whatever the last turn was waiting for.
    this.closePending(chat, 'The user sent a new message instead.');
    return this.start(chat, { userText: text, attachments });
  }

  /** Abort the active turn (or end a waiting one) and drop anything queued behind it. */
  stop(chat: string): void {
    for (const q of this.queues.get(chat) ?? []) q.resolve({ status: 'canceled' });
    this.queues.delete(chat);
    this.saveQueue(chat);
    const turn = this.active.get(chat);
    if (turn) turn.controller.abort();
    else if (this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') {
      clearTimeout(this.expiryTimers.get(chat));
      this.expiryTimers.delete(chat);
      this.closePending(chat, 'The user stopped the turn.');
      this.store.setStatus(chat, 'canceled');
      this.bus.emit({ type: 'status', chat, status: 'canceled' });
    }
  }

  /** The user's answer to a confirmation card. */
  decide(chat: string, message: string, choice: ApprovalChoice): Promise<TurnResult> | undefined {
    const fields = this.host.wiki.getFields(message);
    if (!fields || fields['tool-status'] !== 'pending' || fields['agent-chat'] !== chat) return undefined;
    const tool = fields['tool-name'] ?? '';
    if (choice === 'chat') {
      const allowed = parseTitleList(this.host.wiki.getFields(chat)?.[CHAT_ALLOWED_TOOLS]);
      if (!allowed.includes(tool)) this.store.setStatus(chat, 'input-required', { [CHAT_ALLOWED_TOOLS]: stringifyTitleList([...allowed, tool]) });
    } else if (choice === 'always') {
      this.allowAlways(chat, tool);
    }
    this.store.updateFields(message, { approval: choice });
    return this.resumeWhenReady(chat);
  }

  /** The user's answers to an ask-question card; `null` cancels the turn without a reply. */
  answer(chat: string, message: string, answers: string[] | null): Promise<TurnResult> | undefined {
    const fields = this.host.wiki.getFields(message);
    if (!fields || fields['tool-status'] !== 'pending' || fields['agent-chat'] !== chat) return undefined;
    if (answers === null) {
      this.store.updateFields(message, { 'tool-status': 'denied', text: 'The user dismissed the question.' });
      this.closePending(chat, 'The user dismissed the question.');
      this.store.setStatus(chat, 'canceled');
      this.bus.emit({ type: 'status', chat, status: 'canceled' });
      return Promise.resolve({ status: 'canceled' });
    }
    let question = '';
    try {
      question = (JSON.parse(fields['tool-args'] ?? '{}') as { question?: string }).question ?? '';
    } catch {
      // the question text is only used to label the answer
    }
    const text = formatClarifications([{ question, answer: answers.join(', ') }]);
    this.store.updateFields(message, { 'tool-status': 'ok', text });
    return this.resumeWhenReady(chat);
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
   * Restore every tiddler the turn's tools changed. When any of them changed again since
   * (the user edited it), nothing happens unless `force`, and the titles are returned.
   */
  rollbackTurn(chat: string, userMessage: string, force = false): { conflicts: string[]; restored: string[] } {
    const title = journalTitle(chat, userMessage);
    const journal = readJournal(this.host.wiki, title);
    const plan = planRollback(this.host.wiki, journal);
    if (plan.conflicts.length && !force) return { conflicts: plan.conflicts, restored: [] };
    // Through the write gate's rule for what may be restored: a journal never plants code.
    const { restored } = restoreJournal(this.host.wiki, journal);
    const fields = this.host.wiki.getFields(title);
    if (fields) this.host.wiki.putTiddler({ ...fields, 'agent-rolled-back': this.host.wiki.now() });
    return { conflicts: plan.conflicts, restored };
  }

  /** Regenerate the last turn: its replies go, the user's message stays and is answered again. */
  retryTurn(chat: string, userMessage: string): Promise<TurnResult> | undefined {
    if (this.active.has(chat)) return undefined;
    const turn = this.turnMessages(chat, userMessage);
    const last = this.store.listMessages(chat).at(-1);
    if (!turn.length || turn.at(-1)?.title !== last?.title) return undefined;
    for (const m of turn.slice(1)) this.host.wiki.deleteTiddler(m.title);
    return this.start(chat, {});
  }

  /** Remove a turn's messages (not what its tools changed in the wiki; roll back first for that). */
  deleteTurn(chat: string, userMessage: string): void {
    if (this.active.has(chat)) return;
    for (const m of this.turnMessages(chat, userMessage)) this.host.wiki.deleteTiddler(m.title);
    this.host.wiki.deleteTiddler(journalTitle(chat, userMessage));
  }

  /**
   * After a reload or restart no turn can still be running here: a chat left `working` is
   * marked `interrupted`; waiting chats keep waiting, with their confirmation timers restored.
   */
  restore(): string[] {
    const marked: string[] = [];
    for (const chat of this.store.listChats()) {
      const status = this.host.wiki.getFields(chat)?.['agent-status'];
      if (this.active.has(chat)) continue;
      if (status === 'input-required') this.scheduleExpiry(chat);
      if (status !== 'working') continue;
      this.store.appendMessage(chat, { role: 'error', text: 'This turn was interrupted: the page was closed or reloaded while it ran. Send your message again to retry.' });
      this.store.setStatus(chat, 'interrupted');
      marked.push(chat);
    }
    return marked;
  }

  private pendingMessages(chat: string): Message[] {
    return this.store.listMessages(chat).filter((m) => m.role === 'tool' && m['tool-status'] === 'pending');
  }

  private closePending(chat: string, reason: string): void {
    for (const m of this.pendingMessages(chat)) this.store.updateFields(m.title, { 'tool-status': 'denied', text: reason, 'approval-expires': undefined });
  }

  /** Resume once every waiting call of the chat has a decision or an answer. */
  private resumeWhenReady(chat: string): Promise<TurnResult> | undefined {
    if (this.active.has(chat)) return undefined;
    const undecided = this.pendingMessages(chat).some((m) => (m['tool-name'] === 'ask-question' ? true : !m.approval));
    if (undecided) return undefined;
    return this.start(chat, {});
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
    const wait = Math.max(0, Math.min(...expiries) - Date.now());
    this.expiryTimers.set(
      chat,
      setTimeout(() => {
        this.expiryTimers.delete(chat);
        if (!this.active.has(chat) && this.host.wiki.getFields(chat)?.['agent-status'] === 'input-required') void this.start(chat, {});
      }, wait),
    );
  }

  private start(chat: string, input: { userText?: string; attachments?: string[] }): Promise<TurnResult> {
    const controller = new AbortController();
    clearTimeout(this.expiryTimers.get(chat));
    const done = runTurn(
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
          this.store.setStatus(chat, 'failed');
        } catch {
          // the chat tiddler itself is gone; nothing left to mark
        }
        this.bus.emit({ type: 'status', chat, status: 'failed' });
        return { status: 'failed', error: message };
      })
      .then((result) => {
        this.active.delete(chat);
        if (result.status === 'input-required') this.scheduleExpiry(chat);
        this.runNextQueued(chat);
        return result;
      });
    this.active.set(chat, { controller, done });
    return done;
  }

  private runNextQueued(chat: string): void {
    const queue = this.queues.get(chat);
    const next = queue?.shift();
    if (!queue?.length) this.queues.delete(chat);
    this.saveQueue(chat);
    if (next) {
      this.closePending(chat, 'The user sent a new message instead.');
      void this.start(chat, { userText: next.text, attachments: next.attachments }).then(next.resolve);
    }
  }

  /** Stop every timer (the page or process is going away). */
  dispose(): void {
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    this.expiryTimers.clear();
  }

  /** Mirror the in-memory queue into the chat, so the words survive a reload (not the run). */
  private saveQueue(chat: string): void {
    const queue = (this.queues.get(chat) ?? []).map(({ text, attachments }) => ({ text, attachments }));
    const saved = this.host.wiki.getFields(chat)?.[CHAT_QUEUED];
    const next = queue.length ? JSON.stringify(queue) : undefined;
    if (saved !== next) this.store.updateFields(chat, { [CHAT_QUEUED]: next });
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
