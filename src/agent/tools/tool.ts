/*\
A tool the agent can call: a name, a description, a zod schema for its arguments and an
`execute` over a WikiPort. The engine validates arguments, applies approvals and timeouts,
and turns the output into a `tool` message; a tool never sees the engine.
\*/
import type * as z from 'zod/mini';
import type { AgentDefinition } from '../store/schemas';
import type { WikiPort } from '../store/wiki-port';

export type ToolAccess = 'read' | 'write' | 'control';

export interface ToolContext {
  wiki: WikiPort;
  chat: string;
  agent: AgentDefinition;
  signal: AbortSignal;
  /** The user message that started this turn: the key of its journal (rollback). */
  turn: string;
}

/** A question for the user (ask-question); answers come back as the tool's result. */
export interface ToolQuestion {
  question: string;
  inputType: 'single-select' | 'multi-select' | 'text';
  options: string[];
  allowFreeform: boolean;
}

export interface ToolOutput {
  content: string;
  ok?: boolean;
  /** `end-turn`: the content is the final answer (summary). `ask-user`: wait for answers. */
  control?: { type: 'end-turn' } | { type: 'ask-user'; question: ToolQuestion };
  /** The tiddler this call worked on: its fresh text goes into the "Current tiddler" section. */
  currentTiddler?: string;
}

export interface ToolDefinition<S extends z.ZodMiniType = z.ZodMiniType> {
  name: string;
  description: string;
  parameters: S;
  access: ToolAccess;
  /** Approval mode when the agent's `agent-approval` says nothing; default: writes confirm. */
  defaultMode?: 'auto' | 'confirm';
  timeoutMs?: number;
  execute(args: z.output<S>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
  /** A short human-readable preview of what a call will change, for the approval card. */
  preview?(args: z.output<S>, context: ToolContext): string;
}

/** Keeps the schema's type for `execute` while storing tools in one list. */
export function defineTool<S extends z.ZodMiniType>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
