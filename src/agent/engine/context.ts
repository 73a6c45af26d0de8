/*\
The context window: token estimates, `agent-duration` expiry and trimming to its size.

- estimateTokens: CJK aware. Each CJK ideograph, kana, hangul syllable or CJK/full-width
  punctuation mark counts 1 token; every other character counts 1/4 (ceil over their total).
  An image counts IMAGE_TOKENS.
- selectHistory: drops expired messages (`duration` defined and `age >= duration`). A tool call
  and its result live and die together: the pair is kept only when BOTH the assistant message
  and the tool result are unexpired; otherwise the call is removed from the assistant's
  `toolCalls` and the result message is dropped. So expiry works from either side (an expired
  result takes its call with it, an expired assistant message takes its results with it) and
  no orphan ever reaches a provider. Unanswered calls and unmatched results are dropped too.
- fitToWindow: flattens prompt sections in the caller's order (all history sections merge at
  the place of the first one) and trims history oldest first in whole groups (a user message;
  an assistant message with the tool results answering its calls). The newest user message is
  never trimmed, nor are protected sections. Unprotected non-history sections are dropped
  (last first) only when trimming history was not enough. One separate system placeholder
  message marks trimmed history; it never goes into a tool message's content. When protected
  content plus the newest user message exceed the window, everything kept is still returned
  with `usage.total > usage.window` so the caller can stop with a clear message.
Pure functions: no TiddlyWiki globals, DOM or Node APIs.
\*/
import type { ModelMessage, ToolCall } from '../providers/types';
import { estimateTokens } from '../store/token-estimate';

export interface PromptSection {
  /** e.g. 'system', 'tools', 'current-tiddler', 'history' */
  id: string;
  kind: 'system' | 'tools' | 'transient' | 'history';
  /** system/tools/transient sections usually hold one system message */
  messages: ModelMessage[];
  /** never trimmed (system prompt, tool list, the "Current tiddler" section) */
  protected?: boolean;
  /** transient sections only: place right before the newest user message of the history */
  placeBeforeLastUser?: boolean;
}

/** History input, oldest first, as the engine reads it from message tiddlers. */
export interface HistoryEntry {
  message: ModelMessage;
  /** agent-duration: rounds it stays in the prompt; undefined = always, 0 = never sent */
  duration?: number;
  /** rounds (model calls) since this message was written; 0 = this round */
  age: number;
}

export interface ContextUsage {
  system: number;
  tools: number;
  transient: number;
  history: number;
  /** The history by kind (the context meter's breakdown): user messages, replies, tool results. */
  user?: number;
  assistant?: number;
  toolResults?: number;
  total: number;
  /** tokens available for the prompt: contextWindow - reserveOutput */
  window: number;
}

export interface FitResult {
  messages: ModelMessage[];
  usage: ContextUsage;
  /** history messages left out (the N of the placeholder) */
  trimmed: number;
  /** ids of unprotected non-history sections left out */
  droppedSections: string[];
  /** true when even the untrimmable content does not fit (usage.total > usage.window) */
  overflow: boolean;
}

const MESSAGE_OVERHEAD = 4;
/**
 * What one image costs, whatever its size: about the most any provider charges for one
 * (Anthropic ~1,600 for a 1568 px image, OpenAI ~1,100 at high detail, Gemini 258 per tile),
 * so trimming errs on the side of room.
 */
export const IMAGE_TOKENS = 1_600;
export { estimateTokens };

function argsText(call: ToolCall): string {
  try {
    return JSON.stringify(call.args ?? {}) ?? '';
  } catch {
    return String(call.args);
  }
}

export function estimateMessageTokens(m: ModelMessage): number {
  let tokens = MESSAGE_OVERHEAD + estimateTokens(m.content);
  if ((m.role === 'user' || m.role === 'tool') && m.images) tokens += m.images.length * IMAGE_TOKENS;
  if (m.role === 'assistant') for (const c of m.toolCalls ?? []) tokens += estimateTokens(c.name) + estimateTokens(argsText(c));
  if (m.role === 'tool') tokens += estimateTokens(m.toolName);
  return tokens;
}

export function placeholderText(count: number): string {
  return `[${count} earlier messages were left out to fit the context window]`;
}

/**
 * For each tool message, the index of the assistant message whose call it answers (the
 * nearest earlier assistant message with that call id; first answer wins), else undefined.
 */
function matchResults(messages: ModelMessage[]): (number | undefined)[] {
  const open = new Map<string, number>();
  return messages.map((m, i) => {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) open.set(c.id, i);
    if (m.role !== 'tool') return undefined;
    const owner = open.get(m.toolCallId);
    open.delete(m.toolCallId);
    return owner;
  });
}

export function selectHistory(entries: HistoryEntry[]): ModelMessage[] {
  const messages = entries.map((e) => e.message);
  const live = entries.map((e) => e.duration === undefined || e.age < e.duration);
  const owner = matchResults(messages);
  // call ids whose pair survives, per assistant index
  const keptCalls = new Map<number, Set<string>>();
  messages.forEach((m, i) => {
    const a = owner[i];
    if (m.role !== 'tool' || a === undefined || !live[a] || !live[i]) return;
    if (!keptCalls.has(a)) keptCalls.set(a, new Set());
    keptCalls.get(a)!.add(m.toolCallId);
  });
  const out: ModelMessage[] = [];
  messages.forEach((m, i) => {
    if (!live[i]) return;
    if (m.role === 'tool') {
      const a = owner[i];
      if (a !== undefined && keptCalls.get(a)?.has(m.toolCallId)) out.push(m);
      return;
    }
    if (m.role !== 'assistant' || !m.toolCalls?.length) {
      out.push(m);
      return;
    }
    const ids = keptCalls.get(i);
    const calls = m.toolCalls.filter((c) => ids?.has(c.id));
    if (calls.length === m.toolCalls.length) out.push(m);
    else if (calls.length) out.push({ ...m, toolCalls: calls });
    else if (m.content.trim()) out.push({ role: 'assistant', content: m.content });
  });
  return out;
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const sectionTokens = (s: PromptSection): number => sum(s.messages.map(estimateMessageTokens));

export function fitToWindow(sections: PromptSection[], options: { contextWindow: number; reserveOutput?: number }): FitResult {
  const window = Math.max(0, options.contextWindow - (options.reserveOutput ?? 0));
  const history = sections.filter((s) => s.kind === 'history').flatMap((s) => s.messages);
  const cost = history.map(estimateMessageTokens);
  let lastUser = -1;
  history.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });

  // Groups: a tool result joins the group of the assistant message that called it.
  const owner = matchResults(history);
  const groupOf: number[] = [];
  const groups: number[][] = [];
  history.forEach((_, i) => {
    const a = owner[i];
    const g = a === undefined ? groups.push([]) - 1 : groupOf[a]!;
    groupOf[i] = g;
    groups[g]!.push(i);
  });

  const others = sections.filter((s) => s.kind !== 'history');
  const dropped = new Set<PromptSection>();
  const removed = new Set<number>();
  let historyTokens = sum(cost);
  let trimmed = 0;
  const total = (): number =>
    sum(others.filter((s) => !dropped.has(s)).map(sectionTokens)) +
    historyTokens +
    (trimmed ? estimateMessageTokens({ role: 'system', content: placeholderText(trimmed) }) : 0);

  for (let g = 0; g < groups.length && total() > window; g++) {
    if (lastUser >= 0 && groupOf[lastUser] === g) continue;
    removed.add(g);
    trimmed += groups[g]!.length;
    historyTokens -= sum(groups[g]!.map((i) => cost[i]!));
  }
  for (let k = others.length - 1; k >= 0 && total() > window; k--) {
    if (!others[k]!.protected) dropped.add(others[k]!);
  }

  // Assembly, in the caller's order.
  const kept = sections.filter((s) => !dropped.has(s));
  const beforeLastUser = lastUser >= 0 ? kept.filter((s) => s.kind === 'transient' && s.placeBeforeLastUser) : [];
  const usage: ContextUsage = { system: 0, tools: 0, transient: 0, history: 0, user: 0, assistant: 0, toolResults: 0, total: 0, window };
  const messages: ModelMessage[] = [];
  let historyDone = false;
  for (const s of kept) {
    if (s.kind !== 'history') {
      usage[s.kind] += sectionTokens(s);
      if (!beforeLastUser.includes(s)) messages.push(...s.messages);
      continue;
    }
    if (historyDone) continue;
    historyDone = true;
    if (trimmed) {
      const placeholder: ModelMessage = { role: 'system', content: placeholderText(trimmed) };
      messages.push(placeholder);
      usage.history += estimateMessageTokens(placeholder);
    }
    history.forEach((m, i) => {
      if (removed.has(groupOf[i]!)) return;
      if (i === lastUser) for (const t of beforeLastUser) messages.push(...t.messages);
      messages.push(m);
      usage.history += cost[i]!;
      const kind = m.role === 'tool' ? 'toolResults' : m.role === 'system' ? undefined : m.role;
      if (kind) usage[kind] = (usage[kind] ?? 0) + cost[i]!;
    });
  }
  usage.total = usage.system + usage.tools + usage.transient + usage.history;
  return {
    messages,
    usage,
    trimmed,
    droppedSections: others.filter((s) => dropped.has(s)).map((s) => s.id),
    overflow: usage.total > window,
  };
}
