/*\
LocalRunner: runs turns in this process (the browser tab, or Node when embedded). One
active turn per chat; a send during a turn waits in a queue and runs after it. Stop aborts
the HTTP request at once.
\*/
import { EventBus } from '../engine/events';
import { runTurn, type TurnResult } from '../engine/turn';
import { createLanguageModel } from '../providers';
import type { FetchFn, LanguageModel } from '../providers/types';
import { ChatStore } from '../store/chat-store';
import type { ProviderProfile } from '../store/schemas';
import type { WikiPort } from '../store/wiki-port';

export interface RunnerHost {
  wiki: WikiPort;
  fetch: FetchFn;
  /** The secret stored under a profile's `api-key-name`, if any. */
  getApiKey(name: string): string | undefined;
  /** Where the user sets a missing key, for the error message. */
  keyHint: string;
}

interface QueuedSend {
  text: string;
  resolve(result: TurnResult): void;
}

interface ActiveTurn {
  controller: AbortController;
  done: Promise<TurnResult>;
}

const DEFAULT_TIMEOUT_SECONDS = 120;

export class LocalRunner {
  readonly bus = new EventBus();
  readonly store: ChatStore;
  private active = new Map<string, ActiveTurn>();
  private queues = new Map<string, QueuedSend[]>();

  constructor(private readonly host: RunnerHost) {
    this.store = new ChatStore(host.wiki);
  }

  isActive(chat: string): boolean {
    return this.active.has(chat);
  }

  /** Messages sent during the active turn, waiting for it to end. */
  queued(chat: string): string[] {
    return (this.queues.get(chat) ?? []).map((q) => q.text);
  }

  /** Send a user message; resolves when its turn has ended. */
  send(chat: string, text: string): Promise<TurnResult> {
    const running = this.active.get(chat);
    if (running) {
      return new Promise((resolve) => {
        const queue = this.queues.get(chat) ?? [];
        queue.push({ text, resolve });
        this.queues.set(chat, queue);
        this.bus.emit({ type: 'status', chat, status: 'working' });
      });
    }
    return this.start(chat, text);
  }

  /** Abort the active turn (and drop anything queued behind it). */
  stop(chat: string): void {
    for (const q of this.queues.get(chat) ?? []) q.resolve({ status: 'canceled' });
    this.queues.delete(chat);
    this.active.get(chat)?.controller.abort();
  }

  /** After a reload or restart, no turn can still be running here: mark such chats. */
  markInterrupted(): string[] {
    const marked: string[] = [];
    for (const chat of this.store.listChats()) {
      if (this.active.has(chat) || this.host.wiki.getFields(chat)?.['agent-status'] !== 'working') continue;
      this.store.appendMessage(chat, { role: 'error', text: 'This turn was interrupted: the page was closed or reloaded while it ran. Send your message again to retry.' });
      this.store.setStatus(chat, 'interrupted');
      marked.push(chat);
    }
    return marked;
  }

  private start(chat: string, text: string): Promise<TurnResult> {
    const controller = new AbortController();
    const done = runTurn(
      { store: this.store, createModel: (profile) => this.createModel(profile), emit: (e) => this.bus.emit(e) },
      { chat, userText: text, signal: controller.signal },
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
      .finally(() => {
        this.active.delete(chat);
        this.runNextQueued(chat);
      });
    this.active.set(chat, { controller, done });
    return done;
  }

  private runNextQueued(chat: string): void {
    const queue = this.queues.get(chat);
    const next = queue?.shift();
    if (!queue?.length) this.queues.delete(chat);
    if (next) void this.start(chat, next.text).then(next.resolve);
  }

  private createModel(profile: ProviderProfile): LanguageModel {
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
