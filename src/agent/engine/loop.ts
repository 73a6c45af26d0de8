/*\
The agent loop (seed 001/004, with TidGi's gaps fixed). One turn: the user's message, then
rounds of [run the pending tool calls of the last reply] -> [call the model], until a reply
calls no tools, `summary` ends it, a call or a question waits for the user, Stop, an error,
a budget or `agent-max-rounds`. Iterative, never recursive.

Messages are the source of truth: each round re-reads them, so a turn that waits for an
approval or an answer is fully described by its tiddlers and `runTurn` without `userText`
resumes it, after a reload as well. Every way out ends in a defined status with a clear
message in the chat; nothing is left `working`.
\*/
import * as z from 'zod/mini';
import { isProviderError } from '../providers/errors';
import { errorHint, providerErrorKind, withHint, type ErrorKind } from './error-kinds';
import type { PromptWords } from './prompt-words';
import type { LanguageModel, ModelRequest, ToolSpec } from '../providers/types';
import type { ChatStore } from '../store/chat-store';
import { formatUsd, replyCost, totalCost } from '../store/cost';
import { modelFacts } from '../store/model-facts';
import { readLedger, type Reads } from '../store/read-ledger';
import { userVersion } from '../store/user-version';
import { ConfigError, type ChatStatus, type Message, type ProviderProfile, type ToolOutcome } from '../store/schemas';
import { parseTitleList } from '../store/wiki-port';
import { MCP_PREFIX } from '../tools/mcp-tools';
import { createToolContext, type ToolContext, type ToolDefinition, type ToolServices } from '../tools/tool';
import { errorText } from '../tools/write-gate';
import { evaluateApproval, hasPatterns, parseApprovalConfig, type AllowingRule } from './approval';
import { DEFAULT_COMPACT_AT, KEEP_TURNS, liveHistory, overThreshold } from './compaction';
import { estimateMessageTokens, estimateTokens, fitToWindow, type ContextUsage } from './context';
import type { AgentEvent } from './events';
import { CONTEXT_USAGE_FIELD } from './live-state';
import { parseToolCalls } from './history';
import { attachmentRefusal } from './images';
import { createHooks, type EngineHooks, type EnginePlugin, type ModelResponse, type PromptBuild, type TurnContext } from './hooks';
import { BUILTIN_PLUGINS } from './plugins';
import { retryStream, type RetryOptions } from './retry';
import { compactChat, type CompactionOutcome } from './summarize';
import { executeToolCalls, type ToolCallRequest, type ToolCallResult } from './tool-executor';

export const DEFAULT_MAX_ROUNDS = 20;
export const DEFAULT_CONTEXT_WINDOW = 32_000;
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;
/** Chat field: tools the user allowed "in this chat". */
export const CHAT_ALLOWED_TOOLS = 'agent-allowed-tools';
/** The choices that decide a call of a confirm-only tool: each call asks again. */
export const CONFIRM_ONLY_CHOICES = ['once', 'deny'] as const;
/** Chat field: the last prompt's context usage (JSON), for the usage meter. */
/** The chat field of the context meter (engine/live-state.ts reads it back). */
export const CHAT_CONTEXT_USAGE = CONTEXT_USAGE_FIELD;

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

type ToolPhase = { kind: 'none' | 'continue' | 'wait' } | { kind: 'end'; text: string };

export async function runTurn(deps: EngineDeps, input: TurnInput): Promise<TurnResult> {
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const ctx: TurnContext = {
    chat: input.chat,
    store,
    signal: input.signal,
    emit: deps.emit,
    tools: new Map(),
    round: 0,
    actions: {},
    metadata: {},
    words: deps.words,
    services: deps.services ?? { now },
    // filled in below, once the definition has been read
    agent: undefined as unknown as TurnContext['agent'],
    profile: undefined as unknown as TurnContext['profile'],
    model: '',
  };
  let hooks = createHooks([...BUILTIN_PLUGINS]);
  const setStatus = (status: ChatStatus) => hooks.agentStatusChanged.call({ status }, ctx);
  /** `hint`: what the user can do (error-kinds.ts); `subject`: the agent or provider profile at fault, so the chat's error can open its settings. */
  const fail = async (message: string, errorKind: ErrorKind, hint?: string, subject?: string): Promise<TurnResult> => {
    store.appendMessage(ctx.chat, { role: 'error', text: message, errorKind, errorHint: hint, errorTiddler: subject });
    deps.emit({ type: 'error', chat: ctx.chat, message });
    await setStatus('failed');
    return { status: 'failed', error: message };
  };
  const cancel = async (): Promise<TurnResult> => {
    await setStatus('canceled');
    return { status: 'canceled' };
  };

  // Extra plugins tap the hooks before the first one fires, so they see the whole turn (the
  // user's message and the first status change). A definition that cannot be read, or an
  // unknown plugin, is reported below, once the user's message is saved.
  const early = extraPlugins(deps, ctx.chat);
  if (early.length) hooks = createHooks([...BUILTIN_PLUGINS, ...early]);

  // The user's words are saved before anything can go wrong.
  if (input.userText !== undefined)
    await hooks.userMessageReceived.call({ text: input.userText, attachments: input.attachments ?? [], operation: input.operation, source: input.source }, ctx);
  await setStatus('working');

  let model: LanguageModel;
  try {
    const setup = agentSetup(deps, ctx.chat);
    ({ agent: ctx.agent, profile: ctx.profile, model: ctx.model, tools: ctx.tools } = setup);
    model = setup.languageModel;
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e), 'config', errorHint(e), e instanceof ConfigError ? e.tiddler : undefined);
  }
  const approvals = (() => {
    try {
      return parseApprovalConfig(ctx.agent['agent-approval'], ctx.agent.title);
    } catch (e) {
      return e as Error;
    }
  })();
  if (approvals instanceof Error) return fail(approvals.message, 'config', ctx.agent.title);
  const maxRounds = ctx.agent['agent-max-rounds'] ?? DEFAULT_MAX_ROUNDS;

  for (;;) {
    if (ctx.signal.aborted) return cancel();
    const all = store.listMessages(ctx.chat);
    // A compaction's summary and the messages it replaced are no part of the turn's logic.
    const messages = liveHistory(all).messages;
    const turn = currentTurn(messages);
    ctx.metadata.turn = messages[messages.length - turn.length - 1]?.title ?? '';
    ctx.round = turn.filter((m) => m.role === 'assistant').length;

    const phase = await runToolPhase(ctx, hooks, all, turn, approvals, deps, now);
    if (ctx.signal.aborted) return cancel();
    if (phase.kind === 'wait') {
      await setStatus('input-required');
      return { status: 'input-required' };
    }
    if (phase.kind === 'end') {
      store.appendMessage(ctx.chat, { role: 'assistant', text: phase.text, model: ctx.model, round: ctx.round, finish: 'stop' });
      await setStatus('completed');
      return { status: 'completed' };
    }
    if (phase.kind === 'none' && turn.at(-1)?.role === 'assistant') {
      await setStatus('completed');
      return { status: 'completed' };
    }

    if (ctx.round >= maxRounds)
      return fail(`Stopped after ${maxRounds} model calls in one turn (the agent's "agent-max-rounds"). Send a message to let it continue.`, 'max-rounds');
    const budget = budgetExceeded(ctx, all, turn);
    if (budget) return fail(budget, 'budget');
    // Before the turn's first request: its attached images must be sendable to this model.
    const refused =
      ctx.round === 0
        ? attachmentRefusal(
            ctx,
            messages.find((m) => m.title === ctx.metadata.turn),
          )
        : undefined;
    if (refused) return fail(refused, 'attachment');

    ctx.round += 1;
    ctx.actions = {};
    const response = await modelRound(ctx, hooks, model, store.listMessages(ctx.chat), deps);
    if (typeof response === 'string') return fail(response, 'context-overflow');
    await hooks.responseComplete.call(response, ctx);
    deps.emit({ type: 'reply-finished', chat: ctx.chat, title: response.title });
    for (const call of response.toolCalls.filter((c) => c.invalid)) {
      await hooks.toolExecuted.call({ result: (await executeToolCalls([call], ctx.tools, toolTurn(ctx)))[0]! }, ctx);
    }
    if (response.canceled) return cancel();
    if (response.error)
      return fail(
        response.title ? `${response.error} The partial reply above is kept and marked incomplete.` : response.error,
        response.errorKind ?? 'unexpected',
      );
    if (ctx.actions.yieldNextRoundTo === 'self') continue;
    if (ctx.actions.yieldNextRoundTo === 'human') {
      await setStatus('input-required');
      return { status: 'input-required' };
    }
    if (response.finish === 'length')
      store.appendMessage(ctx.chat, {
        role: 'error',
        text: 'The reply was cut off at the output token limit ("max-output" of the provider profile).',
        errorKind: 'length',
      });
    await setStatus('completed');
    return { status: 'completed' };
  }
}

/** The agent's extra engine plugins, or none when the definition or a plugin is missing (reported later). */
function extraPlugins(deps: EngineDeps, chat: string): EnginePlugin[] {
  try {
    const plugins = deps.store.readAgent(deps.store.readChat(chat).agent)['agent-plugins'].map((name) => deps.plugins?.get(name));
    return plugins.every((p) => p !== undefined) ? (plugins as EnginePlugin[]) : [];
  } catch {
    return [];
  }
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

function agentTools(names: string[], all: ReadonlyMap<string, ToolDefinition>, agent: string): Map<string, ToolDefinition> {
  const tools = new Map<string, ToolDefinition>();
  for (const name of names) {
    const tool = all.get(name);
    // `mcp-<server>` enables every tool of that MCP server (tools/mcp-tools.ts).
    const server = !tool && name.startsWith(MCP_PREFIX) ? [...all.values()].filter((t) => t.name.startsWith(`${name}-`)) : [];
    if (!tool && !server.length)
      throw new ConfigError(
        agent,
        'agent-tools',
        `Agent definition "${agent}": the tool "${name}" in "agent-tools" does not exist. Available: ${[...all.keys()].join(', ')}.`,
      );
    for (const t of tool ? [tool] : server) tools.set(t.name, t);
  }
  return tools;
}

/**
 * A tool call's context: the agent's view of the wiki, the write gate and what the agent had
 * read when it made the call (tools/tool.ts).
 */
function toolContext(ctx: TurnContext, reads: ReadonlyMap<string, string>, signal = ctx.signal, userText?: string): ToolContext {
  return createToolContext(ctx.store.wiki, { chat: ctx.chat, agent: ctx.agent, signal, turn: String(ctx.metadata.turn ?? ''), reads, userText }, ctx.services);
}

function toolTurn(ctx: TurnContext, reads: ReadonlyMap<string, string> = new Map()) {
  return { signal: ctx.signal, contextFor: (signal: AbortSignal, call: ToolCallRequest) => toolContext(ctx, reads, signal, call.userText) };
}

function budgetExceeded(ctx: TurnContext, messages: Message[], turn: Message[]): string | undefined {
  const used = (list: Message[]) => list.reduce((n, m) => n + (m['tokens-in'] ?? 0) + (m['tokens-out'] ?? 0), 0);
  const turnBudget = ctx.agent['agent-turn-budget'];
  const chatBudget = ctx.agent['agent-chat-budget'];
  if (turnBudget !== undefined && used(turn) >= turnBudget)
    return `Token budget reached: this turn used ${used(turn)} of its ${turnBudget} tokens ("agent-turn-budget"). Send a message to continue.`;
  if (chatBudget !== undefined && used(messages) >= chatBudget)
    return `Token budget reached: this chat used ${used(messages)} of its ${chatBudget} tokens ("agent-chat-budget"). Start a new chat or raise the budget.`;
  return moneyBudgetExceeded(ctx, messages, turn);
}

/**
 * The money budgets (US dollars). A budget that cannot be priced fails the turn rather than
 * letting it spend unchecked: the next reply's model, or an earlier reply's, has no known price.
 */
function moneyBudgetExceeded(ctx: TurnContext, messages: Message[], turn: Message[]): string | undefined {
  const budgets = [
    { field: 'agent-turn-cost-budget', budget: ctx.agent['agent-turn-cost-budget'], list: turn, what: 'this turn', then: 'Send a message to continue.' },
    {
      field: 'agent-chat-cost-budget',
      budget: ctx.agent['agent-chat-cost-budget'],
      list: messages,
      what: 'this chat',
      then: 'Start a new chat or raise the budget.',
    },
  ] as const;
  const facts = new Map<string, ReturnType<typeof modelFacts>>();
  const factsOf = (model: string) => facts.get(model) ?? facts.set(model, modelFacts(ctx.profile, model)).get(model)!;
  for (const { field, budget, list, what, then } of budgets) {
    if (budget === undefined) continue;
    const spent = list.map((m) => replyCost({ model: m.model, tokensIn: m['tokens-in'], tokensOut: m['tokens-out'] }, factsOf));
    const next = replyCost({ model: ctx.model, tokensIn: 0 }, factsOf); // $0 when its price is known
    const total = totalCost([...spent, next]);
    if (total.unpriced.length) {
      return `The money budget ("${field}" of "${ctx.agent.title}") cannot be enforced: no price is known for the model "${total.unpriced[0]}". Set "price-input" and "price-output" for it in the "model-facts" field of the provider profile "${ctx.profile.title}", or clear the budget.`;
    }
    if (total.usd >= budget) return `Money budget reached: ${what} cost ${formatUsd(total.usd)} of its ${formatUsd(budget)} ("${field}"). ${then}`;
  }
  return undefined;
}

/**
 * Run what the last reply asked for: every tool call without a result. Calls are checked
 * against the approval rules; confirmations and questions become pending tool messages and
 * the turn waits. Each call works with what the agent had read when it made the reply (the
 * chat's messages through it), so a call resumed after a reload checks the same versions.
 * Returns what the loop does next.
 */
async function runToolPhase(
  ctx: TurnContext,
  hooks: EngineHooks,
  messages: Message[],
  turn: Message[],
  approvals: ReturnType<typeof parseApprovalConfig>,
  deps: EngineDeps,
  now: () => number,
): Promise<ToolPhase> {
  const reply = [...turn].reverse().find((m) => m.role === 'assistant');
  const calls = reply ? parseToolCalls(reply) : [];
  if (!reply || !calls.length) return { kind: 'none' };
  const reads = readLedger(messages, reply['agent-seq']);
  const context = () => toolContext(ctx, reads);
  const results = new Map(turn.filter((m) => m.role === 'tool' && m['agent-seq'] > reply['agent-seq']).map((m) => [m['tool-call-id'], m]));
  const chatAllowed = new Set(parseTitleList(ctx.store.wiki.getFields(ctx.chat)?.[CHAT_ALLOWED_TOOLS]));
  const toRun: { call: ToolCallRequest; pendingTitle?: string; rule?: AllowingRule }[] = [];
  let waiting = false;
  const finish = (result: ToolCallResult, pendingTitle?: string, rule?: AllowingRule) =>
    hooks.toolExecuted.call({ result, pendingTitle, approvalRule: rule }, ctx);
  const denied = (call: ToolCallRequest, content: string, outcome: ToolOutcome): ToolCallResult => ({
    call,
    status: 'denied',
    content,
    durationMs: 0,
    outcome,
  });

  for (const call of calls) {
    const existing = results.get(call.id);
    if (existing && existing['tool-status'] !== 'pending') continue;
    if (existing) {
      if (existing['tool-name'] === 'ask-question') waiting = true;
      else if (existing.approval === 'deny') await finish(denied(call, 'The user denied it.', 'user-denied'), existing.title);
      else if (existing.approval) toRun.push({ call: withUserVersion(call, existing), pendingTitle: existing.title });
      else if (existing['approval-expires'] && Number(existing['approval-expires']) <= now())
        await finish(denied(call, 'Nobody confirmed it in time, so it was denied.', 'expired'), existing.title);
      else waiting = true;
      continue;
    }
    const tool = ctx.tools.get(call.name);
    if (!tool || !tool.parameters.safeParse(call.args ?? {}).success) {
      toRun.push({ call }); // the executor reports the unknown tool or the bad arguments
      continue;
    }
    const targets = hasPatterns(approvals, tool.name) ? callTargets(tool, call.args, context) : undefined;
    const verdict = evaluateApproval(approvals, tool, call.args, chatAllowed.has(call.name), targets);
    if (verdict.decision === 'allow') toRun.push({ call, rule: recordedRule(verdict.rule, ctx.agent.title) });
    else if (verdict.decision === 'deny') await finish(denied(call, `Not allowed: ${verdict.reason}.`, 'rule-denied'));
    else {
      // A call the write gate would refuse anyway is not put to the user: the model gets the refusal.
      const planned = plannedChanges(tool, call.args, context);
      if ('refused' in planned) {
        await finish({ call, status: 'error', content: planned.refused, durationMs: 0 });
        continue;
      }
      const timeout = (ctx.agent['agent-approval-timeout'] ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS) * 1000;
      const title = ctx.store.appendMessage(ctx.chat, {
        role: 'tool',
        text: tool.preview ? safePreview(tool, call.args, context) : '',
        toolName: call.name,
        toolCallId: call.id,
        toolArgs: call.args,
        toolStatus: 'pending',
        round: ctx.round,
        approvalExpires: String(now() + timeout),
        toolChanges: planned.changes,
        approvalChoices: tool.confirmOnly ? [...CONFIRM_ONLY_CHOICES] : undefined,
        approvalTargets: targets ?? callTargets(tool, call.args, context) ?? undefined,
        approvalEdit: editableTitle(tool, call.args),
      });
      ctx.emit({ type: 'waiting', chat: ctx.chat, message: title, reason: 'approval' });
      waiting = true;
    }
  }

  let summary: string | undefined;
  if (toRun.length) {
    const byId = new Map(toRun.map((r) => [r.call.id, r.pendingTitle]));
    const rules = new Map(toRun.map((r) => [r.call.id, r.rule]));
    const executed = await executeToolCalls(
      toRun.map((r) => r.call),
      ctx.tools,
      toolTurn(ctx, reads),
      {
        timeoutMs: (ctx.agent['agent-tool-timeout'] ?? 30) * 1000,
        now,
        onStart: (call) => ctx.emit({ type: 'tool-started', chat: ctx.chat, callId: call.id, name: call.name }),
      },
    );
    for (const result of executed) {
      const control = result.output?.control;
      if (result.status === 'ok' && control?.type === 'ask-user') {
        const pendingTitle = byId.get(result.call.id);
        const fields = { toolName: result.call.name, toolCallId: result.call.id, toolArgs: control.question, toolStatus: 'pending' as const, round: ctx.round };
        const title = pendingTitle ?? ctx.store.appendMessage(ctx.chat, { role: 'tool', text: '', ...fields });
        ctx.emit({ type: 'waiting', chat: ctx.chat, message: title, reason: 'question' });
        waiting = true;
        continue;
      }
      await finish(result, byId.get(result.call.id), rules.get(result.call.id));
      ctx.emit({ type: 'tool-finished', chat: ctx.chat, callId: result.call.id, name: result.call.name, status: result.status });
      if (result.status === 'ok' && control?.type === 'end-turn') summary = result.content;
    }
  }
  if (ctx.signal.aborted) return { kind: 'none' };
  if (summary !== undefined && !waiting) return { kind: 'end', text: summary };
  return { kind: waiting ? 'wait' : 'continue' };
}

/** The rule that let a call run without asking, as its message records it: an agent's rule names the agent. */
export function recordedRule(rule: AllowingRule | undefined, agent: string): AllowingRule | undefined {
  return rule && rule.kind !== 'chat' ? { ...rule, agent } : rule;
}

/**
 * The titles a call touches, for the approval patterns (undefined: the tool has no targets,
 * patterns test its arguments; null: it failed to tell, see evaluateApproval). Shared with
 * calls that come from outside a turn (runner/external-session.ts), as are the two below.
 */
export function callTargets(tool: ToolDefinition, args: unknown, context: () => ToolContext): string[] | null | undefined {
  if (!tool.targets) return undefined;
  try {
    const parsed = tool.parameters.safeParse(args);
    return parsed.success ? tool.targets(parsed.data, context()) : null;
  } catch {
    return null;
  }
}

/** The call's planned changes as JSON, when the tool can tell them, or why it would be refused. */
export function plannedChanges(tool: ToolDefinition, args: unknown, context: () => ToolContext): { changes?: string } | { refused: string } {
  const parsed = tool.parameters.safeParse(args);
  if (!tool.plan || !parsed.success) return {};
  try {
    return { changes: JSON.stringify(tool.plan(parsed.data, context())) };
  } catch (e) {
    return { refused: errorText(e) };
  }
}

/** The tiddler whose text the user may edit on the card before allowing the call, if the tool allows it. */
export function editableTitle(tool: ToolDefinition, args: unknown): string | undefined {
  const parsed = tool.parameters.safeParse(args);
  return parsed.success ? tool.editableText?.(parsed.data) : undefined;
}

/** A decided call, carrying the user's version of its text when they edited it on the card. */
export function withUserVersion(call: ToolCallRequest, decided: { 'approval-text'?: unknown }): ToolCallRequest {
  const text = userVersion(decided);
  return text === undefined ? call : { ...call, userText: text };
}

export function safePreview(tool: ToolDefinition, args: unknown, context: () => ToolContext): string {
  try {
    const parsed = tool.parameters.safeParse(args);
    return parsed.success && tool.preview ? tool.preview(parsed.data, context()) : '';
  } catch (e) {
    return `(no preview: ${e instanceof Error ? e.message : String(e)})`;
  }
}

/** A prompt as the next request would carry it, with its tokens per section. */
export interface AssembledPrompt {
  request: ModelRequest;
  /** The versions of tiddlers the prompt shows as current (PromptBuild.reads). */
  reads: Reads;
  /** Sections after trimming, in order, with their estimated tokens. */
  sections: { id: string; kind: string; tokens: number; messages: ModelRequest['messages'] }[];
  usage: ContextUsage;
  /** Tokens the whole prompt would take before any trimming (tools included). */
  need: number;
  trimmed: number;
  overflow: boolean;
}

/** The window a prompt fits into, the output limit a request carries and the room kept for the reply. */
function promptWindow(ctx: TurnContext): { contextWindow: number; outputLimit?: number; reserve: number } {
  const facts = modelFacts(ctx.profile, ctx.model);
  const outputLimit = modelFacts(ctx.profile, ctx.model, { presets: false }).maxOutput;
  const contextWindow = ctx.agent['agent-context-window'] ?? facts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  return { contextWindow, outputLimit, reserve: outputLimit ?? Math.min(facts.maxOutput ?? 0, Math.floor(contextWindow / 4)) };
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

/**
 * What a turn needs of a chat's agent, read and checked: its definition, provider profile,
 * model, tools, extra plugins and the language model. Throws what is wrong, in the order a
 * user would fix it.
 */
function agentSetup(deps: EngineDeps, chat: string) {
  const { store } = deps;
  const agent = store.readAgent(store.readChat(chat).agent);
  const profile = (() => {
    try {
      return store.readProvider(agent['agent-provider']);
    } catch (e) {
      // A profile that is not there (not one that cannot be read): the agent needs one chosen.
      throw e instanceof ConfigError && e.field === undefined ? withHint(e, 'no-provider') : e;
    }
  })();
  const model = agent['agent-model'] || profile['default-model'] || '';
  if (!model)
    throw withHint(
      new ConfigError(profile.title, 'default-model', `No model is set: fill "agent-model" in "${agent.title}" or "default-model" in "${profile.title}".`),
      'no-model',
    );
  const tools = agentTools(agent['agent-tools'], deps.tools, agent.title);
  const plugins = agent['agent-plugins'].map((name) => {
    const plugin = deps.plugins?.get(name);
    if (!plugin)
      throw new ConfigError(
        agent.title,
        'agent-plugins',
        `Agent definition "${agent.title}": the engine plugin "${name}" (field "agent-plugins") is not installed.`,
      );
    return plugin;
  });
  return { agent, profile, model, tools, plugins, languageModel: deps.createModel(profile) };
}

/** A turn's context for a chat, its agent, profile, model and tools read, without starting a turn. */
function readyContext(deps: EngineDeps, chat: string, signal: AbortSignal): { ctx: TurnContext; hooks: EngineHooks; model: LanguageModel } {
  const setup = agentSetup(deps, chat);
  const now = deps.now ?? Date.now;
  const ctx: TurnContext = {
    chat,
    store: deps.store,
    signal,
    emit: deps.emit,
    tools: setup.tools,
    round: 0,
    actions: {},
    metadata: {},
    words: deps.words,
    services: deps.services ?? { now },
    agent: setup.agent,
    profile: setup.profile,
    model: setup.model,
  };
  return { ctx, hooks: createHooks([...BUILTIN_PLUGINS, ...setup.plugins]), model: setup.languageModel };
}

/** Build the prompt of the next request from the chat's messages (the plugins' sections, trimmed to the window). */
async function assemblePrompt(ctx: TurnContext, hooks: EngineHooks, history: Message[]): Promise<AssembledPrompt> {
  const toolSpecs: ToolSpec[] = [...ctx.tools.values()].map((t) => ({
    name: t.name,
    description: t.description,
    parameters: z.toJSONSchema(t.parameters, { io: 'input' }) as Record<string, unknown>,
  }));
  const build: PromptBuild = { sections: [], toolSpecs, history, reads: {} };
  await hooks.processPrompts.call(build, ctx);
  // The model's facts (presets, then the profile); the output limit a request carries is only
  // one the user set: a preset's is not harmless to send (OpenAI's reasoning models refuse
  // `max_tokens`), so it only reserves room, at most a quarter of the window.
  const { contextWindow, outputLimit, reserve } = promptWindow(ctx);
  const toolSpecTokens = build.toolSpecs.length ? estimateTokens(JSON.stringify(build.toolSpecs)) : 0;
  const fit = fitToWindow(build.sections, { contextWindow, reserveOutput: reserve + toolSpecTokens });
  const usage = { ...fit.usage, tools: fit.usage.tools + toolSpecTokens, total: fit.usage.total + toolSpecTokens, window: contextWindow };
  const kept = new Set(fit.messages);
  const sections = build.sections
    .map((section) => {
      const messages = section.messages.filter((m) => kept.has(m));
      return { id: section.id, kind: section.kind, messages, tokens: messages.reduce((n, m) => n + estimateMessageTokens(m), 0) };
    })
    .filter((section) => section.messages.length);
  // The placeholder that says how many messages were left out belongs to no section.
  const placeholder = fit.messages.filter((m) => !build.sections.some((sec) => sec.messages.includes(m)));
  if (placeholder.length)
    sections.unshift({ id: 'trimmed', kind: 'history', messages: placeholder, tokens: placeholder.reduce((n, m) => n + estimateMessageTokens(m), 0) });
  if (toolSpecTokens) sections.push({ id: 'tools', kind: 'tools', messages: [], tokens: toolSpecTokens });
  const need = build.sections.reduce((n, sec) => n + sec.messages.reduce((k, m) => k + estimateMessageTokens(m), 0), 0) + toolSpecTokens;
  return {
    request: {
      model: ctx.model,
      messages: fit.messages,
      tools: build.toolSpecs.length ? build.toolSpecs : undefined,
      temperature: ctx.agent['agent-temperature'],
      maxOutputTokens: outputLimit,
    },
    reads: build.reads,
    sections,
    usage,
    need,
    trimmed: fit.trimmed,
    overflow: fit.overflow,
  };
}

/** One model call: build the prompt (compacting older turns when it is too full), stream the reply (with retries before the first token). */
async function modelRound(ctx: TurnContext, hooks: EngineHooks, model: LanguageModel, history: Message[], deps: EngineDeps): Promise<ModelResponse | string> {
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
  try {
    const stream = retryStream(() => model.stream(request, ctx.signal), {
      signal: ctx.signal,
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
  response.canceled = ctx.signal.aborted;
  if (response.canceled) response.error = undefined;
  else if (!response.error && !response.finish) [response.error, response.errorKind] = ['The reply ended before it was complete.', 'truncated'];
  else if (!response.error && !response.text.trim() && !response.toolCalls.length)
    [response.error, response.errorKind] = [emptyReplyError(response.finish), response.finish === 'length' ? 'length' : 'empty-reply'];
  return response;
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
