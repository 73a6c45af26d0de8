/*\
One turn of a chat: persist the user's message, call the model, stream the reply to the
event bus, and write the reply as one message tiddler when it completes. Every way out
(success, Stop, an HTTP or stream error, a bad definition) ends in a defined status with
a clear message in the chat; nothing is left `working`.
\*/
import { isProviderError, ProviderError } from '../providers/errors';
import type { LanguageModel, ModelRequest } from '../providers/types';
import { ChatStore } from '../store/chat-store';
import type { AgentDefinition, ChatStatus, ProviderProfile } from '../store/schemas';
import type { AgentEvent } from './events';
import { buildPrompt } from './prompt';
import { canTransition } from './status';

export interface TurnDeps {
  store: ChatStore;
  /** Build the model for a provider profile (the runner injects fetch and the API key). */
  createModel(profile: ProviderProfile): LanguageModel;
  emit(event: AgentEvent): void;
}

export interface TurnInput {
  chat: string;
  /** The user's message; already persisted when `userMessageTitle` is given. */
  userText: string;
  userMessageTitle?: string;
  signal: AbortSignal;
}

export interface TurnResult {
  status: ChatStatus;
  replyTitle?: string;
  error?: string;
}

export async function runTurn(deps: TurnDeps, input: TurnInput): Promise<TurnResult> {
  const { store, emit } = deps;
  const { chat, signal } = input;
  const setStatus = (status: ChatStatus) => {
    const current = store.readChat(chat)['agent-status'];
    if (!canTransition(current, status)) throw new Error(`Chat "${chat}" cannot go from ${current} to ${status}`);
    store.setStatus(chat, status);
    emit({ type: 'status', chat, status });
  };
  const fail = (message: string, status: ChatStatus = 'failed'): TurnResult => {
    store.appendMessage(chat, { role: 'error', text: message });
    emit({ type: 'error', chat, message });
    setStatus(status);
    return { status, error: message };
  };

  // The user's words are saved before anything can go wrong.
  if (!input.userMessageTitle) store.appendMessage(chat, { role: 'user', text: input.userText });
  setStatus('working');

  let agent: AgentDefinition;
  let profile: ProviderProfile;
  let model: LanguageModel;
  let request: ModelRequest;
  try {
    agent = store.readAgent(store.readChat(chat).agent);
    profile = store.readProvider(agent['agent-provider']);
    model = deps.createModel(profile);
    const modelName = agent['agent-model'] || profile['default-model'];
    if (!modelName) throw new Error(`No model is set: fill "agent-model" in "${agent.title}" or "default-model" in "${profile.title}".`);
    request = {
      model: modelName,
      messages: buildPrompt(store.renderSystemPrompt(agent.title, chat), store.listMessages(chat)),
      temperature: agent['agent-temperature'],
      maxOutputTokens: profile['max-output'],
    };
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }

  let text = '';
  let reasoning = '';
  let usage: { inputTokens?: number; outputTokens?: number } = {};
  let finish: 'stop' | 'length' | undefined;
  let streamError: ProviderError | undefined;
  emit({ type: 'reply-started', chat, model: request.model });
  try {
    for await (const part of model.stream(request, signal)) {
      if (part.type === 'text-delta') {
        text += part.text;
        emit({ type: 'text-delta', chat, text: part.text });
      } else if (part.type === 'reasoning-delta') {
        reasoning += part.text;
        emit({ type: 'reasoning-delta', chat, text: part.text });
      } else if (part.type === 'usage') {
        usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens };
        emit({ type: 'usage', chat, ...usage });
      } else if (part.type === 'finish') {
        finish = part.reason === 'length' ? 'length' : 'stop';
      } else if (part.type === 'error') {
        streamError = part.error;
        break;
      }
    }
  } catch (e) {
    streamError = isProviderError(e) ? e : new ProviderError({ kind: 'network', message: e instanceof Error ? e.message : String(e) });
  }
  const canceled = signal.aborted;
  if (!streamError && !canceled && !finish) streamError = new ProviderError({ kind: 'truncated', message: 'The reply ended before it was complete.' });

  // One write for the reply, whatever happened; partial text is kept and marked.
  let replyTitle: string | undefined;
  if (text || reasoning) {
    replyTitle = store.appendMessage(chat, {
      role: 'assistant',
      text,
      reasoning,
      model: request.model,
      round: 1,
      finish: canceled ? 'canceled' : streamError ? 'error' : finish,
      tokensIn: usage.inputTokens,
      tokensOut: usage.outputTokens,
    });
  }
  emit({ type: 'reply-finished', chat, title: replyTitle });

  if (canceled) {
    setStatus('canceled');
    return { status: 'canceled', replyTitle };
  }
  if (streamError) {
    const partial = replyTitle ? ' The partial reply above is kept and marked incomplete.' : '';
    return { ...fail(streamError.message + partial), replyTitle };
  }
  if (finish === 'length') store.appendMessage(chat, { role: 'error', text: 'The reply was cut off at the output token limit ("max-output" of the provider profile).' });
  setStatus('completed');
  return { status: 'completed', replyTitle };
}
