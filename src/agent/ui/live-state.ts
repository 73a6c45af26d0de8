/*\
The live (not yet persisted) state of a chat, folded from engine events by one reducer:
the streaming reply, the status as the runner sees it, and the last usage figures.
\*/
import type { AgentEvent } from '../engine/events';
import type { ChatStatus } from '../store/schemas';

export interface LiveChatState {
  status?: ChatStatus;
  streaming?: { text: string; reasoning: string; model: string };
  usage?: { inputTokens?: number; outputTokens?: number };
  lastError?: string;
}

export function initialLiveState(): LiveChatState {
  return {};
}

export function reduceLiveState(state: LiveChatState, event: AgentEvent): LiveChatState {
  switch (event.type) {
    case 'status':
      return { ...state, status: event.status, lastError: event.status === 'working' ? undefined : state.lastError };
    case 'reply-started':
      return { ...state, streaming: { text: '', reasoning: '', model: event.model } };
    case 'text-delta':
      return state.streaming ? { ...state, streaming: { ...state.streaming, text: state.streaming.text + event.text } } : state;
    case 'reasoning-delta':
      return state.streaming ? { ...state, streaming: { ...state.streaming, reasoning: state.streaming.reasoning + event.text } } : state;
    case 'reply-finished':
      return { ...state, streaming: undefined };
    case 'usage':
      return { ...state, usage: { inputTokens: event.inputTokens, outputTokens: event.outputTokens } };
    case 'error':
      return { ...state, lastError: event.message };
  }
}
