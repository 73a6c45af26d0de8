/*\
One model call of a turn: the prompt is built (older turns compacted first when it would fill
too much of the window), its context usage recorded for the meter, and the reply streamed
(with retries before its first token) into a ModelResponse. A reply that breaks off, comes
back empty or is stopped says so in the response; the loop decides what the turn does next.
\*/
import { isProviderError } from '../providers/errors';
import type { LanguageModel, ModelRequest } from '../providers/types';
import type { Message } from '../store/schemas';
import { DEFAULT_COMPACT_AT, overThreshold } from './compaction';
import { providerErrorKind } from './error-kinds';
import type { EngineHooks, ModelResponse, TurnContext } from './hooks';
import { CONTEXT_USAGE_FIELD } from './live-state';
import { assemblePrompt } from './prompt-assembly';
import { agentRetryPolicy, retryStream, type RetryOptions } from './retry';
import { compactChat } from './summarize';

/** Chat field: the last prompt's context usage (JSON), for the usage meter (engine/live-state.ts reads it back). */
export const CHAT_CONTEXT_USAGE = CONTEXT_USAGE_FIELD;

type RetryDeps = { retry?: Pick<RetryOptions, 'sleep' | 'random' | 'maxRetries' | 'baseDelayMs'> };

/**
 * One model call: build the prompt (compacting older turns when it is too full), stream the
 * reply (with retries before the first token). A string is why the prompt cannot be sent.
 */
export async function modelRound(
  ctx: TurnContext,
  hooks: EngineHooks,
  model: LanguageModel,
  history: Message[],
  deps: RetryDeps,
): Promise<ModelResponse | string> {
  let prompt = await assemblePrompt(ctx, hooks, history);
  const compactAt = ctx.agent['agent-compact-at'] ?? DEFAULT_COMPACT_AT;
  // One automatic try per turn: a summary that failed is not asked for again every round.
  if (!ctx.metadata.compactionTried && overThreshold(prompt.need, prompt.usage.window, compactAt)) {
    ctx.metadata.compactionTried = true;
    const outcome = await compactChat(ctx, model, deps, prompt.usage.window);
    if (ctx.signal.aborted) return { text: '', reasoning: '', toolCalls: [], usage: {}, canceled: true };
    if (outcome.compacted) prompt = await assemblePrompt(ctx, hooks, ctx.store.listMessages(ctx.chat));
    else if (outcome.error)
      ctx.store.appendMessage(ctx.chat, {
        role: 'error',
        text: `${outcome.error} The chat is as it was; where the prompt does not fit, its oldest messages are left out instead.`,
        errorKind: 'compaction',
      });
  }
  const { usage, request } = prompt;
  ctx.emit({ type: 'context', chat: ctx.chat, usage });
  ctx.store.setStatus(ctx.chat, 'working', { [CHAT_CONTEXT_USAGE]: JSON.stringify(usage) });
  if (prompt.overflow) {
    return `The prompt does not fit the context window: it needs about ${usage.total} tokens of ${usage.window}. Shorten the system prompt or the message, or raise "agent-context-window".`;
  }

  const response: ModelResponse = { text: '', reasoning: '', toolCalls: [], usage: {}, canceled: false, reads: prompt.reads };
  ctx.emit({ type: 'reply-started', chat: ctx.chat, model: ctx.model });
  await streamReply(ctx, hooks, model, request, deps, response);
  response.canceled = ctx.signal.aborted;
  if (response.canceled) response.error = undefined;
  else if (!response.error && !response.finish) [response.error, response.errorKind] = ['The reply ended before it was complete.', 'truncated'];
  else if (!response.error && !response.text.trim() && !response.toolCalls.length)
    [response.error, response.errorKind] = [emptyReplyError(response.finish), response.finish === 'length' ? 'length' : 'empty-reply'];
  return response;
}

/** Stream the reply into `response`, part by part (each one through responseUpdate), until it ends or fails. */
async function streamReply(
  ctx: TurnContext,
  hooks: EngineHooks,
  model: LanguageModel,
  request: ModelRequest,
  deps: RetryDeps,
  response: ModelResponse,
): Promise<void> {
  try {
    const stream = retryStream(() => model.stream(request, ctx.signal), {
      signal: ctx.signal,
      ...agentRetryPolicy(ctx.agent),
      ...deps.retry,
      onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
        ctx.emit({ type: 'retrying', chat: ctx.chat, attempt: attempt + 1, maxAttempts, delayMs, reason: error.message }),
    });
    for await (const part of stream) {
      hooks.responseUpdate.call(part, ctx);
      switch (part.type) {
        case 'text-delta':
          response.text += part.text;
          break;
        case 'reasoning-delta':
          response.reasoning += part.text;
          break;
        case 'tool-call':
          response.toolCalls.push({ id: part.id, name: part.name, args: part.args });
          break;
        case 'tool-call-invalid':
          response.toolCalls.push({ id: part.id, name: part.name, args: {}, invalid: part.reason });
          break;
        case 'usage':
          response.usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens };
          ctx.emit({ type: 'usage', chat: ctx.chat, ...response.usage });
          break;
        case 'finish':
          response.finish = part.reason;
          break;
        case 'error':
          response.error = part.error.message;
          response.errorKind = providerErrorKind(part.error);
          break;
      }
      if (response.error) break;
    }
  } catch (e) {
    response.error = isProviderError(e) || e instanceof Error ? e.message : String(e);
    response.errorKind = isProviderError(e) ? providerErrorKind(e) : 'unexpected';
  }
}

/**
 * A reply that finished with neither words nor a tool call (a stream of only `[DONE]`, or only
 * a finish reason) answers nothing: it fails the turn, so the user sees why and can retry,
 * instead of a completed turn with nothing in the chat.
 */
function emptyReplyError(finish: ModelResponse['finish']): string {
  if (finish === 'length') return 'The model reached its output token limit ("max-output" of the provider profile) before it wrote any reply.';
  const why = finish && finish !== 'stop' ? ` (finish reason: ${finish})` : '';
  return `The model sent an empty reply${why}: no text and no tool call. Retry, or try another model.`;
}
