/*\
A turn's tool phase: run what the last reply asked for, every tool call without a result.
Each new call is checked against the approval rules: allowed calls run, denied ones get their
refusal, and one that needs confirmation becomes a pending tool message the turn waits on.
A call already put to the user is resumed from its message (allowed, denied, expired or still
waiting), so a turn that waited is continued from its tiddlers alone, after a reload as well.
Each call works with what the agent had read when it made the reply (the chat's messages
through it), so a call resumed after a reload checks the same versions.
\*/
import type { Message, ToolOutcome } from '../store/schemas';
import { readLedger } from '../store/read-ledger';
import { parseTitleList } from '../store/wiki-port';
import { createToolContext, type ToolContext, type ToolDefinition } from '../tools/tool';
import { evaluateApproval, hasPatterns, type AllowingRule, type ApprovalConfig } from './approval';
import {
  CHAT_ALLOWED_TOOLS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  approvalMessage,
  callTargets,
  plannedChanges,
  recordedRule,
  withUserVersion,
} from './call-review';
import { parseToolCalls } from './history';
import type { EngineHooks, TurnContext } from './hooks';
import { executeToolCalls, type ToolCallRequest, type ToolCallResult } from './tool-executor';

/** What the loop does after the tool phase: nothing was asked, call the model again, wait for the user, or end with a summary. */
export type ToolPhase = { kind: 'none' | 'continue' | 'wait' } | { kind: 'end'; text: string };

/**
 * A tool call's context: the agent's view of the wiki, the write gate and what the agent had
 * read when it made the call (tools/tool.ts).
 */
function toolContext(ctx: TurnContext, reads: ReadonlyMap<string, string>, signal = ctx.signal, userText?: string): ToolContext {
  return createToolContext(ctx.store.wiki, { chat: ctx.chat, agent: ctx.agent, signal, turn: String(ctx.metadata.turn ?? ''), reads, userText }, ctx.services);
}

/** The turn side of executeToolCalls: its signal, and each call's context. */
export function toolTurn(ctx: TurnContext, reads: ReadonlyMap<string, string> = new Map()) {
  return { signal: ctx.signal, contextFor: (signal: AbortSignal, call: ToolCallRequest) => toolContext(ctx, reads, signal, call.userText) };
}

/** One tool phase's shared state: the turn, what the reply's maker had read, the rules, and how a call's result is recorded. */
interface Phase {
  ctx: TurnContext;
  reads: ReadonlyMap<string, string>;
  context: () => ToolContext;
  approvals: ApprovalConfig;
  /** Tools the user allowed "in this chat". */
  chatAllowed: Set<string>;
  now: () => number;
  finish(result: ToolCallResult, pendingTitle?: string, rule?: AllowingRule): Promise<void>;
}

/** A call that runs now: decided on its pending message, or let through by a rule. */
interface CallToRun {
  call: ToolCallRequest;
  pendingTitle?: string;
  rule?: AllowingRule;
}

/** What one call comes to in this phase: it runs, the turn waits for the user, or it is done (its result recorded). */
type CallStep = CallToRun | 'wait' | 'done';

/** Run what the last reply asked for (see the header). Returns what the loop does next. */
export async function runToolPhase(
  ctx: TurnContext,
  hooks: EngineHooks,
  messages: Message[],
  turn: Message[],
  approvals: ApprovalConfig,
  now: () => number,
): Promise<ToolPhase> {
  const reply = [...turn].reverse().find((m) => m.role === 'assistant');
  const calls = reply ? parseToolCalls(reply) : [];
  if (!reply || !calls.length) return { kind: 'none' };
  const reads = readLedger(messages, reply['agent-seq']);
  const results = new Map(turn.filter((m) => m.role === 'tool' && m['agent-seq'] > reply['agent-seq']).map((m) => [m['tool-call-id'], m]));
  const phase: Phase = {
    ctx,
    reads,
    context: () => toolContext(ctx, reads),
    approvals,
    chatAllowed: new Set(parseTitleList(ctx.store.wiki.getFields(ctx.chat)?.[CHAT_ALLOWED_TOOLS])),
    now,
    finish: (result, pendingTitle, rule) => hooks.toolExecuted.call({ result, pendingTitle, approvalRule: rule }, ctx),
  };

  const toRun: CallToRun[] = [];
  let waiting = false;
  for (const call of calls) {
    const existing = results.get(call.id);
    if (existing && existing['tool-status'] !== 'pending') continue;
    const step = existing ? await resumeCall(phase, call, existing) : await reviewCall(phase, call);
    if (step === 'wait') waiting = true;
    else if (step !== 'done') toRun.push(step);
  }
  const ran = toRun.length ? await runCalls(phase, toRun) : { waiting: false };
  if (ran.waiting) waiting = true;
  if (ctx.signal.aborted) return { kind: 'none' };
  if (ran.summary !== undefined && !waiting) return { kind: 'end', text: ran.summary };
  return { kind: waiting ? 'wait' : 'continue' };
}

function denied(call: ToolCallRequest, content: string, outcome: ToolOutcome): ToolCallResult {
  return { call, status: 'denied', content, durationMs: 0, outcome };
}

/** A call whose pending message is in the chat: a question still waits; an approval is carried out as the user decided, or denied once expired. */
async function resumeCall(phase: Phase, call: ToolCallRequest, pending: Message): Promise<CallStep> {
  if (pending['tool-name'] === 'ask-question') return 'wait';
  if (pending.approval === 'deny') {
    await phase.finish(denied(call, 'The user denied it.', 'user-denied'), pending.title);
    return 'done';
  }
  if (pending.approval) return { call: withUserVersion(call, pending), pendingTitle: pending.title };
  if (pending['approval-expires'] && Number(pending['approval-expires']) <= phase.now()) {
    await phase.finish(denied(call, 'Nobody confirmed it in time, so it was denied.', 'expired'), pending.title);
    return 'done';
  }
  return 'wait';
}

/** A new call, checked against the approval rules. */
async function reviewCall(phase: Phase, call: ToolCallRequest): Promise<CallStep> {
  const { ctx, approvals } = phase;
  const tool = ctx.tools.get(call.name);
  // The executor reports the unknown tool or the bad arguments.
  if (!tool?.parameters.safeParse(call.args ?? {}).success) return { call };
  const targets = hasPatterns(approvals, tool.name) ? callTargets(tool, call.args, phase.context) : undefined;
  const verdict = evaluateApproval(approvals, tool, call.args, phase.chatAllowed.has(call.name), targets);
  if (verdict.decision === 'allow') return { call, rule: recordedRule(verdict.rule, ctx.agent.title) };
  if (verdict.decision === 'deny') {
    await phase.finish(denied(call, `Not allowed: ${verdict.reason}.`, 'rule-denied'));
    return 'done';
  }
  return askApproval(phase, tool, call, targets);
}

/** Put a call to the user as a pending tool message, unless the write gate would refuse it anyway: then the model gets the refusal. */
async function askApproval(phase: Phase, tool: ToolDefinition, call: ToolCallRequest, targets: string[] | null | undefined): Promise<CallStep> {
  const { ctx } = phase;
  const planned = plannedChanges(tool, call.args, phase.context);
  if ('refused' in planned) {
    await phase.finish({ call, status: 'error', content: planned.refused, durationMs: 0 });
    return 'done';
  }
  const timeout = (ctx.agent['agent-approval-timeout'] ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS) * 1000;
  const expires = phase.now() + timeout;
  const title = ctx.store.appendMessage(ctx.chat, { ...approvalMessage(tool, call, phase.context, planned, targets, expires), round: ctx.round });
  ctx.emit({ type: 'waiting', chat: ctx.chat, message: title, reason: 'approval' });
  return 'wait';
}

/**
 * Run the calls that may run, together, and record their results. A question (ask-user) makes
 * the turn wait on its pending message; a summary (end-turn) is what the turn ends with.
 */
async function runCalls(phase: Phase, toRun: CallToRun[]): Promise<{ waiting: boolean; summary?: string }> {
  const { ctx } = phase;
  const byId = new Map(toRun.map((r) => [r.call.id, r.pendingTitle]));
  const rules = new Map(toRun.map((r) => [r.call.id, r.rule]));
  const executed = await executeToolCalls(
    toRun.map((r) => r.call),
    ctx.tools,
    toolTurn(ctx, phase.reads),
    {
      timeoutMs: (ctx.agent['agent-tool-timeout'] ?? 30) * 1000,
      now: phase.now,
      onStart: (call) => ctx.emit({ type: 'tool-started', chat: ctx.chat, callId: call.id, name: call.name }),
    },
  );
  let waiting = false;
  let summary: string | undefined;
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
    await phase.finish(result, byId.get(result.call.id), rules.get(result.call.id));
    ctx.emit({ type: 'tool-finished', chat: ctx.chat, callId: result.call.id, name: result.call.name, status: result.status });
    if (result.status === 'ok' && control?.type === 'end-turn') summary = result.content;
  }
  return { waiting, summary };
}
