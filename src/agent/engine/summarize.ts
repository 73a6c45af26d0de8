/*\
The compaction request (engine/compaction.ts says what is compacted and how the summary
stands in the prompt): the model summarizes the older turns, with no tools, and only a
complete, non-empty summary is written, as one message, before the originals are marked.
Anything else (an HTTP error, a cut-off or empty reply, Stop) writes nothing. The request
goes to the agent's side model when it names one (`agent-side-model`), and the summary
message carries that model, so its cost is counted at that model's price.
\*/
import { isProviderError } from '../providers/errors';
import { modelFacts } from '../store/model-facts';
import type { LanguageModel } from '../providers/types';
import { compactable, sideModelOf, summaryMessages, summaryPromptMessage, COMPACTED_FIELD } from './compaction';
import { promptWords } from './prompt-words';
import { fitToWindow, selectHistory } from './context';
import type { TurnContext } from './hooks';
import { historyEntries } from './plugins/prompt';
import { agentRetryPolicy, retryStream, type RetryOptions } from './retry';

export type CompactionOutcome = { compacted: true; summary: string } | { compacted: false; error?: string };

export async function compactChat(
  ctx: TurnContext,
  model: LanguageModel,
  deps: { retry?: Pick<RetryOptions, 'sleep' | 'random' | 'maxRetries' | 'baseDelayMs'> },
  contextWindow: number,
): Promise<CompactionOutcome> {
  const { summary, older } = compactable(ctx.store.listMessages(ctx.chat));
  if (!older.length) return { compacted: false };
  const words = promptWords(ctx.words);
  const history = [...(summary ? [summaryPromptMessage(summary, words)] : []), ...selectHistory(historyEntries(ctx, older))];
  const side = sideModelOf(ctx.agent, ctx.model);
  // The summary request must fit too, in the side model's window when that is smaller: its oldest messages give way first.
  const sideWindow = side === ctx.model ? undefined : modelFacts(ctx.profile, side).contextWindow;
  const window = sideWindow ? Math.min(contextWindow, sideWindow) : contextWindow;
  const fit = fitToWindow([{ id: 'history', kind: 'history', messages: summaryMessages(history, words) }], {
    contextWindow: window,
    reserveOutput: Math.floor(window / 4),
  });
  let text = '';
  let finished = false;
  let error: string | undefined;
  let usage: { inputTokens?: number; outputTokens?: number } = {};
  try {
    const stream = retryStream(() => model.stream({ model: side, messages: fit.messages, temperature: ctx.agent['agent-temperature'] }, ctx.signal), {
      signal: ctx.signal,
      ...agentRetryPolicy(ctx.agent),
      ...deps.retry,
    });
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'usage') usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens };
      else if (part.type === 'finish') finished = part.reason === 'stop';
      else if (part.type === 'error') error = part.error.message;
      if (error) break;
    }
  } catch (e) {
    error = isProviderError(e) || e instanceof Error ? e.message : String(e);
  }
  if (ctx.signal.aborted) return { compacted: false };
  if (error) return { compacted: false, error: `Compacting the older messages failed: ${error}` };
  if (!finished) return { compacted: false, error: 'Compacting the older messages failed: the summary was cut off.' };
  if (!text.trim()) return { compacted: false, error: 'Compacting the older messages failed: the model returned an empty summary.' };
  const title = ctx.store.appendMessage(ctx.chat, {
    role: 'assistant',
    text: text.trim(),
    model: side,
    round: ctx.round,
    tokensIn: usage.inputTokens,
    tokensOut: usage.outputTokens,
    compaction: true,
  });
  for (const m of [...(summary ? [summary] : []), ...older]) ctx.store.updateFields(m.title, { [COMPACTED_FIELD]: title });
  return { compacted: true, summary: title };
}
