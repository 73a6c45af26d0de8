/*\
A tool the agent can call: a name, a description, a zod schema for its arguments and an
`execute` over the agent's view of the wiki. The engine validates arguments, applies
approvals and timeouts, and turns the output into a `tool` message; a tool never sees the
engine. A tool reads through `context.wiki` (hidden tiddlers do not exist there) and changes
the wiki only through `context.gate` (every change checked as it would land, then journaled).
The one exception is the chat's own todo list (`context.todo`), chat state the model keeps
with `manage-todo`: a TodoList that can touch that chat's todo tiddler and nothing else.
\*/
import type * as z from 'zod/mini';
import { ScheduleBook } from '../schedules/schedule-book';
import type { SemanticPort } from '../search/semantic';
import type { Reads } from '../store/read-ledger';
import type { AgentDefinition, ChatStatus } from '../store/schemas';
import { MemoryBook } from '../store/memory';
import { TodoList } from '../store/todo-list';
import type { WikiPort } from '../store/wiki-port';
import type { ImageData } from './images';
import type { Journal } from '../store/turn-journal';
import type { WebFetcher } from './web-fetcher';
import { WriteGate } from './write-gate';

export type ToolAccess = 'read' | 'write' | 'control';

export interface ToolContext {
  /** The wiki as the agent sees it: chats, messages, `$:/ai/*` and secrets do not exist here. */
  wiki: WikiPort;
  /** The only way a tool changes the wiki. */
  gate: WriteGate;
  chat: string;
  agent: AgentDefinition;
  /** This call's own signal: aborted by Stop and by the call's timeout. */
  signal: AbortSignal;
  /** The user message that started this turn: the key of its journal (rollback). */
  turn: string;
  /**
   * The version (fingerprint) of each tiddler the agent last read in this chat, up to the reply
   * that made this call (store/read-ledger.ts): a write lands only on that version.
   */
  reads: ReadonlyMap<string, string>;
  /** This chat's todo list (manage-todo); no other chat's. */
  todo: TodoList;
  /** The wiki's schedules; the schedule tools use it for this chat only. */
  schedules: ScheduleBook;
  /** Memory proposals (remember): it writes proposals only, never an accepted memory. */
  memories: MemoryBook;
  /** Now (ms): injected, so tests drive time. */
  now(): number;
  /** Sub-agents, where the runner can run them (spawn-agent). */
  subAgents?: SubAgentPort;
  /** Outside pages (web-fetch), where the runner lends a fetcher. */
  web?: WebFetcher;
  /** Search by meaning (wiki-search's semantic and hybrid modes), where the runner keeps a vector index. */
  semantic?: SemanticPort;
  /**
   * The user's own version of the text, when they edited the call's proposal on the approval
   * card before allowing it: a tool with `editableText` writes it instead of its own.
   */
  userText?: string;
}

/** What the runner lends a turn's tools besides the wiki. */
export interface ToolServices {
  now(): number;
  subAgents?: SubAgentPort;
  web?: WebFetcher;
  semantic?: SemanticPort;
}

/** Runs a task in a hidden child chat and waits for its final answer (runner/services/sub-agents.ts). */
export interface SubAgentPort {
  spawn(request: SpawnRequest): Promise<SpawnResult>;
}

export interface SpawnRequest {
  parent: string;
  /** The parent's agent definition (the child's, when none is named). */
  parentAgent: string;
  task: string;
  context?: string;
  agent?: string;
  /** Aborted by the parent's Stop or the call's time limit: the child is stopped. */
  signal: AbortSignal;
}

export interface SpawnResult {
  chat: string;
  status: ChatStatus;
  answer: string;
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
  /** spawn-agent: the sub-agent's chat (its card links to it). */
  child?: string;
  /**
   * Image tiddlers the result shows (wiki-read): recorded on the tool message by title and
   * read again through the agent's view for every prompt, so a later deletion or hiding holds.
   */
  attachments?: string[];
  /** Images that have no tiddler (an MCP server's): the engine keeps them with the chat (ChatStore.saveImage). */
  images?: ImageData[];
  /** The versions of tiddlers this result showed (read) or wrote: recorded on its message as `agent-read`. */
  read?: Reads;
  /**
   * The tiddlers a result lists (wiki-search, wiki-list, …), in its order: recorded on its
   * message as `tool-titles`, so the chat's line for the call links them. Only what the result
   * itself shows the agent, so never a hidden tiddler.
   */
  titles?: string[];
  /** How many the call found in all (more than `titles` when paged): recorded as `tool-found`. */
  found?: number;
}

export interface ToolDefinition<S extends z.ZodMiniType = z.ZodMiniType> {
  name: string;
  description: string;
  parameters: S;
  access: ToolAccess;
  /** Approval mode when the agent's `agent-approval` says nothing; default: writes confirm. */
  defaultMode?: 'auto' | 'confirm';
  /**
   * Every call needs the user's confirmation, whatever `agent-approval` says (mode auto, allow
   * patterns) and whatever the user allowed before: "in this chat" and "always" do not apply
   * to it, only "once" or "deny". Deny patterns still deny.
   */
  confirmOnly?: boolean;
  /**
   * Rounds a bulky result of this tool stays in the prompt before a one-line stub takes its
   * place (the message's `agent-duration`; engine/result-expiry.ts); the agent's
   * `agent-result-rounds` overrides it. Undefined: its results stay.
   */
  resultRounds?: number;
  /** Milliseconds a call may run (a function: it depends on the calling agent); default: the agent's `agent-tool-timeout`. */
  timeoutMs?: number | ((context: ToolContext) => number);
  execute(args: z.output<S>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
  /** A short human-readable preview of what a call will change, for the approval card. */
  preview?(args: z.output<S>, context: ToolContext): string;
  /**
   * Exactly what a call would change, before and after, tiddler by tiddler, for the approval
   * card (it shows every field and flags active content). Throws WriteRefused when the call
   * would be refused anyway.
   */
  plan?(args: z.output<S>, context: ToolContext): Journal;
  /**
   * The tiddler whose text the user may change on the approval card before allowing the call
   * (Edit before allowing); the call then writes their version (ToolContext.userText) through
   * the same checks and journal as its own.
   */
  editableText?(args: z.output<S>): string;
  /**
   * The titles a call reads or writes, which approval allow/deny patterns are tested against
   * (engine/approval.ts). Without it the patterns test the call's arguments.
   */
  targets?(args: z.output<S>, context: ToolContext): string[];
}

/** Keeps the schema's type for `execute` while storing tools in one list. */
export function defineTool<S extends z.ZodMiniType>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/**
 * The context of one call: the agent's view of `wiki`, and a gate that writes into `wiki`.
 * Without `reads` the agent has read nothing, so no existing tiddler can be written.
 */
export function createToolContext(
  wiki: WikiPort,
  call: { chat: string; agent: AgentDefinition; turn: string; signal: AbortSignal; reads?: ReadonlyMap<string, string>; userText?: string },
  services: ToolServices = { now: Date.now },
): ToolContext {
  return {
    ...call,
    reads: call.reads ?? new Map(),
    wiki: wiki.agentView(),
    gate: new WriteGate(wiki, call),
    todo: new TodoList(wiki, call.chat),
    schedules: new ScheduleBook(wiki),
    memories: new MemoryBook(wiki),
    now: services.now,
    subAgents: services.subAgents,
    web: services.web,
    semantic: services.semantic,
  };
}
