/*\
The agent loop (seed 001/004, with TidGi's gaps fixed). One turn: the user's message, then
rounds of [run the pending tool calls of the last reply] -> [call the model], until a reply
calls no tools, `summary` ends it, a call or a question waits for the user, Stop, an error,
a budget or `agent-max-rounds`. Iterative, never recursive.

Messages are the source of truth: each round re-reads them, so a turn that waits for an
approval or an answer is fully described by its tiddlers and `runTurn` without `userText`
resumes it, after a reload as well. Every way out ends in a defined status with a clear
message in the chat; nothing is left `working`.

Here: the loop and how a turn ends, and what is done for a chat outside a turn (Show prompt,
Compact now). Its parts: agent-setup.ts (what a turn needs of the agent), tool-phase.ts (the
tool calls), model-round.ts (the model call), budgets.ts, prompt-assembly.ts.
\*/
import type { LanguageModel } from '../providers/types';
import type { ChatStore } from '../store/chat-store';
import { ConfigError, type ChatStatus, type Message, type ProviderProfile } from '../store/schemas';
import type { ToolDefinition, ToolServices } from '../tools/tool';
import { agentSetup, extraPlugins, readyContext, turnContext } from './agent-setup';
import { parseApprovalConfig, type ApprovalConfig } from './approval';
import { budgetExceeded } from './budgets';
import { KEEP_TURNS, liveHistory } from './compaction';
import { errorHint, type ErrorKind } from './error-kinds';
import type { AgentEvent } from './events';
import { createHooks, type EngineHooks, type EnginePlugin, type ModelResponse, type TurnContext } from './hooks';
import { attachmentRefusal } from './images';
import { modelRound } from './model-round';
import { BUILTIN_PLUGINS } from './plugins';
import type { PromptWords } from './prompt-words';
import { assemblePrompt, promptWindow, type AssembledPrompt } from './prompt-assembly';
import type { RetryOptions } from './retry';
import { compactChat, type CompactionOutcome } from './summarize';
import { executeToolCalls } from './tool-executor';
import { runToolPhase, toolTurn } from './tool-phase';

// The chat fields a turn writes, where the runner and the library (lib.ts) take them from.
export { CHAT_ALLOWED_TOOLS } from './call-review';
export { CHAT_CONTEXT_USAGE } from './model-round';

export const DEFAULT_MAX_ROUNDS = 20;

export interface EngineDeps {
  store: ChatStore;
  /** Build the model for a provider profile (the runner injects fetch and the API key). */
  createModel(profile: ProviderProfile): LanguageModel;
  emit(event: AgentEvent): void;
  /** Every tool this wiki has, by name; an agent uses those named in `agent-tools`. */
  tools: ReadonlyMap<string, ToolDefinition>;
  /** Extra engine plugins an agent may enable by name in `agent-plugins`. */
  plugins?: ReadonlyMap<string, EnginePlugin>;
  now?(): number;
  /** What the runner lends the tools (sub-agents); the clock defaults to `now`. */
  services?: ToolServices;
  retry?: Pick<RetryOptions, 'sleep' | 'random' | 'maxRetries' | 'baseDelayMs'>;
  /** The prompt's fixed words in the wiki's language (engine/prompt-words.ts); English when absent. */
  words?: Partial<PromptWords>;
  /** A run no user started whose agent reached a spending cap: the line it stops with before its next model call. */
  capReached?(chat: string): { text: string; agent: string } | undefined;
}

export interface TurnInput {
  chat: string;
  signal: AbortSignal;
  /** A new user message; without it, the turn resumes from the chat's messages. */
  userText?: string;
  attachments?: string[];
  /** The operation that carries the user's message (stored on it). */
  operation?: string;
  /** A message a schedule or heartbeat sent: `schedule:<title>` or `heartbeat:<agent>`. */
  source?: string;
}

export interface TurnResult {
  status: ChatStatus;
  error?: string;
}

/** A turn as soon as it starts: its context and hooks, and what it was given; enough to end it. */
interface TurnStart {
  ctx: TurnContext;
  hooks: EngineHooks;
  deps: EngineDeps;
}

/** A turn whose agent was read: its language model, approval rules and round limit. */
interface Turn extends TurnStart {
  now: () => number;
  model: LanguageModel;
  approvals: ApprovalConfig;
  maxRounds: number;
}

export async function runTurn(deps: EngineDeps, input: TurnInput): Promise<TurnResult> {
  const ctx = turnContext(deps, input.chat, input.signal);
  // Extra plugins tap the hooks before the first one fires, so they see the whole turn (the
  // user's message and the first status change). A definition that cannot be read, or an
  // unknown plugin, is reported below, once the user's message is saved.
  const hooks = createHooks([...BUILTIN_PLUGINS, ...extraPlugins(deps, ctx.chat)]);
  const start: TurnStart = { ctx, hooks, deps };

  // The user's words are saved before anything can go wrong.
  if (input.userText !== undefined)
    await hooks.userMessageReceived.call({ text: input.userText, attachments: input.attachments ?? [], operation: input.operation, source: input.source }, ctx);
  await setStatus(start, 'working');

  let model: LanguageModel;
  try {
    const setup = agentSetup(deps, ctx.chat);
    ({ agent: ctx.agent, profile: ctx.profile, model: ctx.model, tools: ctx.tools } = setup);
    model = setup.languageModel;
  } catch (e) {
    return fail(start, e instanceof Error ? e.message : String(e), 'config', errorHint(e), e instanceof ConfigError ? e.tiddler : undefined);
  }
  let approvals: ApprovalConfig;
  try {
    approvals = parseApprovalConfig(ctx.agent['agent-approval'], ctx.agent.title);
  } catch (e) {
    return fail(start, (e as Error).message, 'config', undefined, ctx.agent.title);
  }
  const maxRounds = ctx.agent['agent-max-rounds'] ?? DEFAULT_MAX_ROUNDS;
  const turn: Turn = { ...start, now: deps.now ?? Date.now, model, approvals, maxRounds };

  for (;;) {
    const ended = await nextRound(turn);
    if (ended) return ended;
  }
}

/** One pass of the loop: the tool phase, then, unless the turn ends or waits there, a model call. Returns how the turn ended, or undefined to go on. */
async function nextRound(turn: Turn): Promise<TurnResult | undefined> {
  const { ctx, hooks, deps } = turn;
  if (ctx.signal.aborted) return cancel(turn);
  const all = ctx.store.listMessages(ctx.chat);
  // A compaction's summary and the messages it replaced are no part of the turn's logic.
  const messages = liveHistory(all).messages;
  const current = currentTurn(messages);
  ctx.metadata.turn = messages[messages.length - current.length - 1]?.title ?? '';
  ctx.round = current.filter((m) => m.role === 'assistant').length;

  const phase = await runToolPhase(ctx, hooks, all, current, turn.approvals, turn.now);
  if (ctx.signal.aborted) return cancel(turn);
  if (phase.kind === 'wait') return end(turn, 'input-required');
  if (phase.kind === 'end') {
    ctx.store.appendMessage(ctx.chat, { role: 'assistant', text: phase.text, model: ctx.model, round: ctx.round, finish: 'stop' });
    return end(turn, 'completed');
  }
  if (phase.kind === 'none' && current.at(-1)?.role === 'assistant') return end(turn, 'completed');

  const refusal = roundRefusal(turn, all, messages, current);
  if (refusal) return fail(turn, refusal.message, refusal.kind, refusal.hint, refusal.subject);
  ctx.round += 1;
  ctx.actions = {};
  const response = await modelRound(ctx, hooks, turn.model, ctx.store.listMessages(ctx.chat), deps);
  if (typeof response === 'string') return fail(turn, response, 'context-overflow');
  return afterReply(turn, response);
}

/** Why the turn may not call the model again: its rounds are used up, a budget or (unattended) a spending cap is reached, or this model cannot take its attachments. */
function roundRefusal(
  turn: Turn,
  all: Message[],
  messages: Message[],
  current: Message[],
): { message: string; kind: ErrorKind; hint?: string; subject?: string } | undefined {
  const { ctx, maxRounds } = turn;
  if (ctx.round >= maxRounds)
    return {
      message: `Stopped after ${maxRounds} model calls in one turn (the agent's "agent-max-rounds"). Send a message to let it continue.`,
      kind: 'max-rounds',
    };
  const budget = budgetExceeded(ctx, all, current);
  if (budget) return { message: budget, kind: 'budget' };
  const cap = turn.deps.capReached?.(ctx.chat);
  if (cap) return { message: cap.text, kind: 'budget', hint: 'spend-cap', subject: cap.agent };
  // Before the turn's first request: its attached images must be sendable to this model.
  const refused =
    ctx.round === 0
      ? attachmentRefusal(
          ctx,
          messages.find((m) => m.title === ctx.metadata.turn),
        )
      : undefined;
  if (refused) return { message: refused, kind: 'attachment' };
  return undefined;
}

/** Once a reply is in: its invalid calls get their errors, then the turn ends (stopped, failed, waiting, completed) or goes on. */
async function afterReply(turn: Turn, response: ModelResponse): Promise<TurnResult | undefined> {
  const { ctx, hooks, deps } = turn;
  await hooks.responseComplete.call(response, ctx);
  deps.emit({ type: 'reply-finished', chat: ctx.chat, title: response.title });
  for (const call of response.toolCalls.filter((c) => c.invalid)) {
    await hooks.toolExecuted.call({ result: (await executeToolCalls([call], ctx.tools, toolTurn(ctx)))[0]! }, ctx);
  }
  if (response.canceled) return cancel(turn);
  if (response.error)
    return fail(
      turn,
      response.title ? `${response.error} The partial reply above is kept and marked incomplete.` : response.error,
      response.errorKind ?? 'unexpected',
    );
  if (ctx.actions.yieldNextRoundTo === 'self') return undefined;
  if (ctx.actions.yieldNextRoundTo === 'human') return end(turn, 'input-required');
  if (response.finish === 'length')
    ctx.store.appendMessage(ctx.chat, {
      role: 'error',
      text: 'The reply was cut off at the output token limit ("max-output" of the provider profile).',
      errorKind: 'length',
    });
  return end(turn, 'completed');
}

function setStatus(turn: TurnStart, status: ChatStatus): Promise<void> {
  return turn.hooks.agentStatusChanged.call({ status }, turn.ctx);
}

async function end(turn: TurnStart, status: ChatStatus): Promise<TurnResult> {
  await setStatus(turn, status);
  return { status };
}

function cancel(turn: TurnStart): Promise<TurnResult> {
  return end(turn, 'canceled');
}

/** `hint`: what the user can do (error-kinds.ts); `subject`: the agent or provider profile at fault, so the chat's error can open its settings. */
async function fail(turn: TurnStart, message: string, errorKind: ErrorKind, hint?: string, subject?: string): Promise<TurnResult> {
  const { ctx, deps } = turn;
  ctx.store.appendMessage(ctx.chat, { role: 'error', text: message, errorKind, errorHint: hint, errorTiddler: subject });
  deps.emit({ type: 'error', chat: ctx.chat, message });
  await setStatus(turn, 'failed');
  return { status: 'failed', error: message };
}

/** The messages since the last user message (the current turn). */
function currentTurn(messages: Message[]): Message[] {
  let start = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      start = i + 1;
      break;
    }
  }
  return messages.slice(start);
}

/**
 * What a chat's next request would be, built as a turn builds it but without writing anything
 * ("Show prompt"). Throws the reason when the chat's agent cannot run.
 */
export async function previewPrompt(deps: EngineDeps, chat: string): Promise<AssembledPrompt & { contextWindow: number }> {
  const { ctx, hooks } = readyContext(deps, chat, new AbortController().signal);
  const prompt = await assemblePrompt(ctx, hooks, deps.store.listMessages(chat));
  return { ...prompt, contextWindow: prompt.usage.window };
}

/** "Compact now": summarize the chat's older turns outside a turn; throws why when it cannot. */
export async function compactNow(deps: EngineDeps, chat: string, signal: AbortSignal): Promise<CompactionOutcome> {
  const { ctx, model } = readyContext(deps, chat, signal);
  const outcome = await compactChat(ctx, model, deps, promptWindow(ctx).contextWindow);
  if (!outcome.compacted && !outcome.error && !signal.aborted)
    return { compacted: false, error: `Nothing to compact yet: the last ${KEEP_TURNS} turns are always kept as they are.` };
  return outcome;
}
