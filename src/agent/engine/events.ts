/*\
The typed events a turn emits, wherever it runs. The chat UI applies them through one
reducer (live-state.ts); a future server runner carries exactly these over its push channel.
\*/
import type { ChatStatus } from '../store/schemas';
import type { ContextUsage } from './context';
import { initialLiveState, reduceLiveState, type LiveChatState } from './live-state';

export type AgentEvent =
  /** What a subscriber that joins a running turn first gets: the live state so far. */
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
  | { type: 'error'; chat: string; message: string };

export type AgentEventListener = (event: AgentEvent) => void;

/**
 * A small synchronous pub/sub keyed by chat title. It folds every event into the chat's live
 * state while a turn runs, and a new subscriber gets that state first as a `snapshot`, so a
 * chat opened mid-reply shows the text streamed so far.
 */
export class EventBus {
  private listeners = new Map<string, Set<AgentEventListener>>();
  private live = new Map<string, LiveChatState>();

  subscribe(chat: string, listener: AgentEventListener): () => void {
    let set = this.listeners.get(chat);
    if (!set) this.listeners.set(chat, (set = new Set()));
    set.add(listener);
    const state = this.live.get(chat);
    if (state) deliver(listener, { type: 'snapshot', chat, state });
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(chat);
    };
  }

  emit(event: AgentEvent): void {
    const state = reduceLiveState(this.live.get(event.chat) ?? initialLiveState(), event);
    // Kept only while there is something live to show.
    if (state.status === 'working' || state.streaming || state.runningTools.length) this.live.set(event.chat, state);
    else this.live.delete(event.chat);
    const set = this.listeners.get(event.chat);
    if (!set) return;
    for (const listener of [...set]) deliver(listener, event);
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
