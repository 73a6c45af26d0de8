/*\
The typed events a turn emits, wherever it runs. The chat UI applies them through one
reducer (live-state.ts); the server runner carries exactly these over its push channel.
Every emitted event gets an `id`, increasing per bus, so a push channel can resume after it.
\*/
import type { ChatStatus } from '../store/schemas';
import type { ContextUsage } from './context';
import { initialLiveState, reduceLiveState, type LiveChatState, type QueuedMessage } from './live-state';

export type AgentEventBody =
  /** What a subscriber first gets: the chat's live state (the text streamed so far, the queue, …). */
  | { type: 'snapshot'; chat: string; state: LiveChatState }
  | { type: 'status'; chat: string; status: ChatStatus }
  /** An assistant reply started streaming (it is not a tiddler until it completes). */
  | { type: 'reply-started'; chat: string; model: string }
  | { type: 'text-delta'; chat: string; text: string }
  | { type: 'reasoning-delta'; chat: string; text: string }
  /** The reply was written as a message tiddler (or dropped when `title` is undefined). */
  | { type: 'reply-finished'; chat: string; title?: string }
  | { type: 'usage'; chat: string; inputTokens?: number; outputTokens?: number }
  /** How the prompt of this round fills the context window, in estimated tokens. */
  | { type: 'context'; chat: string; usage: ContextUsage }
  | { type: 'retrying'; chat: string; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  | { type: 'tool-started'; chat: string; callId: string; name: string }
  | { type: 'tool-finished'; chat: string; callId: string; name: string; status: string }
  /** A tool call waits for the user's approval, or a question for an answer. */
  | { type: 'waiting'; chat: string; message: string; reason: 'approval' | 'question' }
  /** Messages sent during a turn, waiting for it to end (in order). */
  | { type: 'queue'; chat: string; queue: QueuedMessage[] }
  | { type: 'error'; chat: string; message: string };

export type AgentEvent = AgentEventBody & { id?: number };

export type AgentEventListener = (event: AgentEvent) => void;

/** Whether the live state has anything a view cannot read from the chat's tiddlers. */
function isLive(state: LiveChatState): boolean {
  return state.status === 'working' || !!state.streaming || state.runningTools.length > 0 || state.queue.length > 0;
}

/**
 * A small synchronous pub/sub keyed by chat title. It folds every event into the chat's live
 * state while a turn runs or messages wait, and a new subscriber gets a snapshot first: that
 * live state, or (for a quiet chat) the state `initial` reads from the chat's tiddlers.
 */
export class EventBus {
  private listeners = new Map<string, Set<AgentEventListener>>();
  private live = new Map<string, LiveChatState>();
  private all = new Set<AgentEventListener>();
  private lastId = 0;

  subscribe(chat: string, listener: AgentEventListener, initial?: () => LiveChatState): () => void {
    let set = this.listeners.get(chat);
    if (!set) {
      set = new Set();
      this.listeners.set(chat, set);
    }
    set.add(listener);
    const state = this.live.get(chat) ?? initial?.();
    if (state) deliver(listener, { type: 'snapshot', chat, state, id: this.lastId });
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(chat);
    };
  }

  /** The live state of a chat with a turn running or messages waiting. */
  state(chat: string): LiveChatState | undefined {
    return this.live.get(chat);
  }

  /** Chats with a live state. */
  liveChats(): string[] {
    return [...this.live.keys()];
  }

  emit(body: AgentEventBody): AgentEvent {
    const event: AgentEvent = { ...body, id: ++this.lastId };
    const state = reduceLiveState(this.live.get(event.chat) ?? initialLiveState(), event);
    // Kept only while there is something live to show.
    if (isLive(state)) this.live.set(event.chat, state);
    else this.live.delete(event.chat);
    const set = this.listeners.get(event.chat);
    if (set) for (const listener of [...set]) deliver(listener, event);
    for (const listener of [...this.all]) deliver(listener, event);
    return event;
  }

  /** Every event of every chat (a push channel). */
  subscribeAll(listener: AgentEventListener): () => void {
    this.all.add(listener);
    return () => this.all.delete(listener);
  }
}

function deliver(listener: AgentEventListener, event: AgentEvent): void {
  try {
    listener(event);
  } catch (e) {
    // a broken listener (e.g. a widget torn down mid-render) must not break the turn
    console.error('TiddlyAgent: event listener failed', e);
  }
}
