/*\
ChatRunner: the one interface the chat UI talks to, wherever a turn runs: in this page or
process (LocalRunner) or on the Node.js server (RemoteRunner, over HTTP and server-sent
events). Live state comes only from `subscribe`: a snapshot first, then the events, folded
by the one reducer (engine/live-state.ts). A request that cannot be carried out rejects with
a RunnerError whose `code` says why (the server maps it to an HTTP status).
\*/
import type { AgentEventListener } from '../engine/events';
import type { EditRequest } from '../engine/edit-request';
import type { ApprovalScope } from '../engine/approval-rules';
import type { ProviderTestRequest, ProviderTestResult } from './provider-test';

export type ApprovalChoice = 'once' | 'chat' | 'always' | 'deny';
export type { ApprovalScope };

export interface DeleteTurnOptions {
  /**
   * Delete a turn that changed tiddlers (and was not rolled back) although that removes the
   * only way to roll the changes back: without it such a delete is refused (conflict).
   */
  keepChanges?: boolean;
}

export interface RollbackResult {
  /** Tiddlers changed since the turn changed them; nothing was restored unless forced. */
  conflicts: string[];
  restored: string[];
}

export interface ChatRunner {
  /** `local`: turns run in this page or process; `server`: on the Node.js server. */
  readonly where: 'local' | 'server';
  /** Send a user message; a send during a turn waits in the chat's queue. */
  send(chat: string, text: string, attachments?: string[]): Promise<unknown>;
  /** Abort the running turn (or end a waiting one) and drop what is queued behind it. */
  stop(chat: string): Promise<unknown>;
  /**
   * The user's choice on a call waiting for approval; "always" needs the scope of the rule it
   * adds; `text`: they allow their own version of the call's text (Edit before allowing),
   * refused here, with the write gate's reason, when it would not land.
   */
  decide(chat: string, message: string, choice: ApprovalChoice, scope?: ApprovalScope, text?: string): Promise<unknown>;
  /** Remove the rule that let a call run without asking (its message's `approval-rule`); `revoked` is false when it was gone already. */
  revokeRule(chat: string, message: string): Promise<{ revoked: boolean }>;
  /** The user's answers to a question; `null` dismisses it and ends the turn. */
  answer(chat: string, message: string, answers: string[] | null): Promise<unknown>;
  /** Answer the last turn again: the user's message stays, its replies are kept as an earlier version (runner/branches.ts). */
  retry(chat: string, userMessage: string): Promise<unknown>;
  /** Send an edited copy of an earlier user message: the chat forks there, the old branch is kept. */
  edit(chat: string, userMessage: string, text: string): Promise<unknown>;
  /** Bring back version `version` of the chat at the fork at seq `at`, keeping the one shown now. */
  switchBranch(chat: string, at: number, version: number): Promise<unknown>;
  /** Remove a turn's messages (not what its tools changed); a turn whose changes stand needs `keepChanges`. */
  deleteTurn(chat: string, userMessage: string, options?: DeleteTurnOptions): Promise<unknown>;
  /** Restore what a turn's tools changed. */
  rollback(chat: string, userMessage: string, force?: boolean): Promise<RollbackResult>;
  /**
   * Rename a chat and everything keyed by its title (messages, journals, images, todo list,
   * schedules, sub-agents' chats), after a running turn; refuses a blank, system or existing title.
   */
  rename(chat: string, newTitle: string): Promise<unknown>;
  /** Delete a chat in the bin (field `agent-deleted`) forever, with everything it owns. */
  deleteChat(chat: string): Promise<unknown>;
  /** Live events of a chat, a snapshot first; returns the unsubscribe function. */
  subscribe(chat: string, listener: AgentEventListener): () => void;
  /** Summarize the chat's older turns into one compaction message now ("Compact now"); rejects with why it could not. */
  compact(chat: string): Promise<unknown>;
  /** What the chat's next request would send, with tokens per section ("Show prompt"); writes nothing. */
  previewPrompt(chat: string): Promise<PromptPreview>;
  /** Connect to an MCP server (by its `name`) where turns run, and list its tools: the settings tab's "Test". */
  testMcpServer(name: string): Promise<McpTestResult>;
  /** Test a provider profile with the values typed in the settings (runner/provider-test.ts): list its models, check the model. */
  testProvider(request: ProviderTestRequest): Promise<ProviderTestResult>;
  /** "Ask AI" in the editor: an agent's proposed new text for a selection (engine/edit-request.ts); writes nothing. */
  proposeEdit(request: EditRequest, signal?: AbortSignal): Promise<{ text: string }>;
}

/** A prompt as the next request would carry it, as plain data (no key or header is part of it). */
export interface PromptPreview {
  model: string;
  /** Tokens the prompt may use (the context window) and the estimate of this one, tools included. */
  window: number;
  total: number;
  /** Messages left out to fit the window. */
  trimmed: number;
  sections: { id: string; tokens: number; messages: { role: string; content: string; toolCalls?: string; images?: number }[] }[];
  tools: { name: string; description: string; parameters: string }[];
}

export interface McpTestResult {
  ok: boolean;
  tools: string[];
  error?: string;
}

export type RunnerErrorCode = 'bad-request' | 'not-found' | 'conflict' | 'forbidden' | 'unavailable';

export class RunnerError extends Error {
  constructor(
    readonly code: RunnerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunnerError';
  }
}

export const HTTP_STATUS: Record<RunnerErrorCode, number> = {
  'bad-request': 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unavailable: 503,
};
