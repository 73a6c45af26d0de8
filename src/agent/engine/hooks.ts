/*\
The engine's hooks and the plugin contract (seed 001/004). A fresh set of hooks is made for
every turn and the agent's plugins tap them; plugins keep no state of their own, everything
travels in the TurnContext. Another TiddlyWiki plugin can add an engine plugin through a
module of type `tiddlyagent-engine-plugin` exporting `name` and `apply(hooks)`, and an
agent enables it by listing that name in `agent-plugins`.
\*/
import type { ModelMessage, StreamPart, ToolSpec } from '../providers/types';
import type { ChatStore } from '../store/chat-store';
import type { Reads } from '../store/read-ledger';
import type { Source } from '../store/sources';
import type { AgentDefinition, ChatStatus, Message, ProviderProfile } from '../store/schemas';
import type { ToolDefinition, ToolServices } from '../tools/tool';
import type { PromptSection } from './context';
import type { ErrorKind } from './error-kinds';
import type { PromptWords } from './prompt-words';
import type { AgentEvent } from './events';
import type { AllowingRule } from './approval';
import type { ToolCallRequest, ToolCallResult } from './tool-executor';

export interface TurnContext {
  chat: string;
  agent: AgentDefinition;
  profile: ProviderProfile;
  model: string;
  store: ChatStore;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  tools: ReadonlyMap<string, ToolDefinition>;
  /** 1-based number of the model call in this turn. */
  round: number;
  /** Set by plugins on responseComplete: who acts next. */
  actions: { yieldNextRoundTo?: 'self' | 'human' };
  /** Free-form state shared between plugins for this turn. */
  metadata: Record<string, unknown>;
  /** What the runner lends the turn's tools (the clock, sub-agents). */
  services: ToolServices;
  /** The fixed words around the user's content in the prompt, in the wiki's language (English when absent). */
  words?: Partial<PromptWords>;
}

export interface UserMessage {
  text: string;
  attachments: string[];
  /** The operation that carried it (runner/operations.ts), so restart recovery finds it. */
  operation?: string;
  /** What sent it when the user did not type it: `schedule:<title>` or `heartbeat:<agent>`. */
  source?: string;
  /** Filled in by the persistence plugin. */
  title?: string;
}

/** What processPrompts builds: ordered sections, then flattened and fitted to the context size. */
export interface PromptBuild {
  sections: PromptSection[];
  toolSpecs: ToolSpec[];
  history: Message[];
  /** Versions of tiddlers the prompt shows as current (the Current tiddler section): recorded on the reply as read. */
  reads: Reads;
}

export interface ModelResponse {
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  finish?: 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'other';
  usage: { inputTokens?: number; outputTokens?: number };
  canceled: boolean;
  error?: string;
  /** What kind of failure `error` is (engine/error-kinds.ts). */
  errorKind?: ErrorKind;
  /** The versions the prompt of this reply showed as current (PromptBuild.reads). */
  reads?: Reads;
  /** The memories the reply's prompt carried (plugins/memory.ts), recorded on it as `agent-memories`. */
  memories?: string[];
  /** The reply's sources (plugins/sources.ts), written with it by the persistence plugin. */
  sources?: Source[];
  /** Filled in by the persistence plugin. */
  title?: string;
}

export interface ToolExecution {
  result: ToolCallResult;
  /** The pending tool message this result completes, if it waited for approval. */
  pendingTitle?: string;
  /** The user's rule that let the call run without asking (recorded as `approval-rule`). */
  approvalRule?: AllowingRule;
}

type AsyncTap<P> = (payload: P, context: TurnContext) => void | Promise<void>;
type SyncTap<P> = (payload: P, context: TurnContext) => void;

export class AsyncSeriesHook<P> {
  private taps: { name: string; fn: AsyncTap<P> }[] = [];
  tap(name: string, fn: AsyncTap<P>): void {
    this.taps.push({ name, fn });
  }
  async call(payload: P, context: TurnContext): Promise<void> {
    for (const { fn } of this.taps) await fn(payload, context);
  }
}

/** Synchronous, for the per-delta path where an await per tap would cost too much. */
export class SyncHook<P> {
  private taps: SyncTap<P>[] = [];
  tap(_name: string, fn: SyncTap<P>): void {
    this.taps.push(fn);
  }
  call(payload: P, context: TurnContext): void {
    for (const fn of this.taps) fn(payload, context);
  }
}

export interface EngineHooks {
  userMessageReceived: AsyncSeriesHook<UserMessage>;
  agentStatusChanged: AsyncSeriesHook<{ status: ChatStatus }>;
  processPrompts: AsyncSeriesHook<PromptBuild>;
  responseUpdate: SyncHook<StreamPart>;
  responseComplete: AsyncSeriesHook<ModelResponse>;
  toolExecuted: AsyncSeriesHook<ToolExecution>;
}

export interface EnginePlugin {
  name: string;
  apply(hooks: EngineHooks): void;
}

export function createHooks(plugins: EnginePlugin[]): EngineHooks {
  const hooks: EngineHooks = {
    userMessageReceived: new AsyncSeriesHook(),
    agentStatusChanged: new AsyncSeriesHook(),
    processPrompts: new AsyncSeriesHook(),
    responseUpdate: new SyncHook(),
    responseComplete: new AsyncSeriesHook(),
    toolExecuted: new AsyncSeriesHook(),
  };
  for (const plugin of plugins) plugin.apply(hooks);
  return hooks;
}

export type { ModelMessage };
