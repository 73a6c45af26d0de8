/*\
The live state of a chat, folded from engine events by one reducer: the status as the
runner sees it, the streaming reply, a retry in progress, running tools, the messages queued
behind the turn and the context usage of the last prompt. The event bus keeps one per chat
with a turn running, so a view that opens mid-reply starts from a snapshot; the chat UI
folds the same events into its own copy and reads nothing around it.
\*/
import type { ContextUsage } from './context';
import type { AgentEvent } from './events';
import type { ChatStatus } from '../store/schemas';

/** A message sent while a turn runs, waiting for it to end. */
export interface QueuedMessage {
  id: string;
  text: string;
  attachments: string[];
}

export interface LiveChatState {
  status?: ChatStatus;
  streaming?: { text: string; reasoning: string; model: string };
  usage?: { inputTokens?: number; outputTokens?: number };
  context?: ContextUsage;
  retrying?: { attempt: number; maxAttempts: number; delayMs: number; reason: string };
  runningTools: string[];
  queue: QueuedMessage[];
  lastError?: string;
}

export function initialLiveState(): LiveChatState {
  return { runningTools: [], queue: [] };
}

/** The chat field that keeps the context meter (written by the engine after each request). */
export const CONTEXT_USAGE_FIELD = 'agent-context-usage';

/** The live state of a chat with no turn running, as its tiddler's fields say it. */
export function quietLiveState(fields: Record<string, string | undefined> | undefined, queue: QueuedMessage[] = []): LiveChatState {
  let context: LiveChatState['context'];
  try {
    context = fields?.[CONTEXT_USAGE_FIELD] ? (JSON.parse(fields[CONTEXT_USAGE_FIELD]) as LiveChatState['context']) : undefined;
  } catch {
    context = undefined;
  }
  return { ...initialLiveState(), status: (fields?.['agent-status'] || 'idle') as ChatStatus, context, queue };
}

export function reduceLiveState(state: LiveChatState, event: AgentEvent): LiveChatState {
  switch (event.type) {
    case 'snapshot':
      return { ...initialLiveState(), ...event.state };
    case 'status':
      return { ...state, status: event.status, retrying: undefined, runningTools: event.status === 'working' ? state.runningTools : [] };
    case 'reply-started':
      return { ...state, streaming: { text: '', reasoning: '', model: event.model } };
    case 'text-delta':
      return state.streaming ? { ...state, retrying: undefined, streaming: { ...state.streaming, text: state.streaming.text + event.text } } : state;
    case 'reasoning-delta':
      return state.streaming ? { ...state, retrying: undefined, streaming: { ...state.streaming, reasoning: state.streaming.reasoning + event.text } } : state;
    case 'reply-finished':
      return { ...state, streaming: undefined, retrying: undefined };
    case 'usage':
      return { ...state, usage: { inputTokens: event.inputTokens, outputTokens: event.outputTokens } };
    case 'context':
      return { ...state, context: event.usage };
    case 'retrying':
      return { ...state, retrying: { attempt: event.attempt, maxAttempts: event.maxAttempts, delayMs: event.delayMs, reason: event.reason } };
    case 'tool-started':
      return { ...state, runningTools: [...state.runningTools, event.name] };
    case 'tool-finished': {
      const i = state.runningTools.indexOf(event.name);
      return i < 0 ? state : { ...state, runningTools: [...state.runningTools.slice(0, i), ...state.runningTools.slice(i + 1)] };
    }
    case 'waiting':
      return state;
    case 'queue':
      return { ...state, queue: event.queue };
    case 'error':
      return { ...state, lastError: event.message };
  }
}
