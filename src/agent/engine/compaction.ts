/*\
Compaction: when a prompt would fill more than a share of the context window, the model
summarizes the older turns into one compaction message. The originals stay in the wiki (each
marked `agent-compacted` with the summary's title, shown collapsed) but leave the prompt,
where the summary stands in for them. The last turns are never compacted, nor the Current
tiddler and the todo list (they are prompt sections, not history). A summary that fails or
comes back empty changes nothing. A later compaction summarizes the previous summary with
the turns since. A mark whose summary is gone (its turn retried or deleted) no longer
counts, so the originals come back.
Pure: messages in, messages out; the loop makes the summary request and the writes.
\*/
import type { ModelMessage } from '../providers/types';
import type { Message } from '../store/schemas';
import { ENGLISH_PROMPT_WORDS } from './prompt-words';

/** Summary messages: `yes`. Role `assistant`, so they render and count like replies. */
export const COMPACTION_FIELD = 'agent-compaction';
/** Originals: the title of the summary that replaced them in the prompt. */
export const COMPACTED_FIELD = 'agent-compacted';
/** The default share of the window a prompt may fill before it is compacted (percent). */
export const DEFAULT_COMPACT_AT = 80;
/** Turns (from the newest user message back) that are never compacted. */
export const KEEP_TURNS = 2;

/**
 * The model of an agent's side calls (the automatic title, compaction): its `agent-side-model`,
 * a model of the same provider profile, else the chat's model.
 */
export function sideModelOf(agent: { 'agent-side-model'?: string }, chatModel: string): string {
  return agent['agent-side-model']?.trim() || chatModel;
}

export const isSummary = (m: Message | Record<string, unknown>): boolean => (m as Record<string, unknown>)[COMPACTION_FIELD] === 'yes';

/** A chat's messages as the loop and the prompt see them: the summary in force and what it did not replace. */
export function liveHistory(messages: Message[]): { summary?: Message; messages: Message[] } {
  const present = new Set(messages.map((m) => m.title));
  const summaries = messages.filter(isSummary);
  const summary = summaries.filter((s) => !compactedBy(s, present)).at(-1);
  return { summary, messages: messages.filter((m) => !isSummary(m) && !compactedBy(m, present)) };
}

function compactedBy(m: Message, present: Set<string>): boolean {
  const by = (m as Record<string, unknown>)[COMPACTED_FIELD];
  return typeof by === 'string' && present.has(by);
}

/**
 * What a compaction would replace: the live messages before the last KEEP_TURNS turns (and
 * the summary in force), or nothing when there is no older turn.
 */
export function compactable(messages: Message[]): { summary?: Message; older: Message[] } {
  const live = liveHistory(messages);
  const users = live.messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  if (users.length <= KEEP_TURNS) return { older: [] };
  const keepFrom = users[users.length - KEEP_TURNS]!;
  return { summary: live.summary, older: live.messages.slice(0, keepFrom) };
}

/** Whether a prompt of `tokens` passes `percent` of `window`. */
export function overThreshold(tokens: number, window: number, percent: number): boolean {
  return percent > 0 && tokens > (window * percent) / 100;
}

/** The summary request's messages: the history to summarize (already in prompt form), then the instructions. */
export function summaryMessages(history: ModelMessage[], words = ENGLISH_PROMPT_WORDS): ModelMessage[] {
  return [...history, { role: 'user', content: words.summaryRequest }];
}

/** How a summary stands in the prompt, at the place of the turns it replaced. */
export function summaryPromptMessage(summary: Message, words = ENGLISH_PROMPT_WORDS): ModelMessage {
  return { role: 'system', content: `${words.summaryHeading}\n${summary.text}` };
}
