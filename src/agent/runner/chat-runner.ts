/*\
ChatRunner: the one interface the chat UI talks to, wherever a turn runs: in this page or
process (LocalRunner) or on the Node.js server (RemoteRunner, over HTTP and server-sent
events). Live state comes only from `subscribe`: a snapshot first, then the events, folded
by the one reducer (engine/live-state.ts). Requests are data (runner/commands.ts): `submit` for
what changes a chat, `query` for what only reads. A request that cannot be carried out rejects with
a RunnerError whose `code` says why (the server maps it to an HTTP status).
\*/
import type { AgentEventListener } from '../engine/events';
import type { ApprovalScope } from '../engine/approval-rules';
import type { ProviderTestResult } from './services/provider-test';
import type { Command, CommandKind, Query, QueryKind } from './commands';

import type { ApprovalChoice } from '../store/approval-choices';

export type { ApprovalChoice };
export type { ApprovalScope };

export interface RollbackResult {
  /** Tiddlers changed since the turn changed them; nothing was restored unless forced. */
  conflicts: string[];
  restored: string[];
}

/** What a query answers (Show prompt, the settings' tests, Ask AI). */
export interface QueryResults {
  preview: PromptPreview;
  'mcp-test': McpTestResult;
  'provider-test': ProviderTestResult;
  'propose-edit': { text: string };
}

/**
 * What a command resolves with. A command that waits in the chat's queue (a turn, a rename, a
 * compaction) resolves in this process once it has run; from the server edition at once, with
 * the receipt of its operation (the page follows it by its events and synced tiddlers).
 */
export interface CommandResults {
  send: unknown;
  stop: unknown;
  decide: unknown;
  'revoke-rule': { revoked: boolean };
  answer: unknown;
  retry: unknown;
  edit: unknown;
  'switch-branch': unknown;
  'delete-turn': unknown;
  rollback: RollbackResult;
  rename: unknown;
  'delete-chat': unknown;
  compact: unknown;
}

export interface ChatRunner {
  /** `local`: turns run in this page or process; `server`: on the Node.js server. */
  readonly where: 'local' | 'server';
  /**
   * Carry out a command (runner/commands.ts lists them); rejects with a RunnerError saying why
   * it was refused (an invalid field, a chat that does not exist, a turn that is running...).
   */
  submit<K extends CommandKind>(command: Command<K>): Promise<CommandResults[K]>;
  /** Ask something that changes no chat; `signal` stops it (Ask AI's Stop). */
  query<K extends QueryKind>(query: Query<K>, signal?: AbortSignal): Promise<QueryResults[K]>;
  /** Live events of a chat, a snapshot first; returns the unsubscribe function. */
  subscribe(chat: string, listener: AgentEventListener): () => void;
}

/** A prompt as the next request would carry it, as plain data (no key or header is part of it). */
export interface PromptPreview {
  model: string;
  /** Tokens the prompt may use (the context window) and the estimate of this one, tools included. */
  window: number;
  total: number;
  /** Messages left out to fit the window. */
  trimmed: number;
  /** `expired`: the message holds the stub of a tool result that left the prompt after its rounds. */
  sections: { id: string; tokens: number; messages: { role: string; content: string; toolCalls?: string; images?: number; expired?: boolean }[] }[];
  tools: { name: string; description: string; parameters: string }[];
}

export interface McpTestResult {
  ok: boolean;
  tools: string[];
  error?: string;
}

export type RunnerErrorCode = 'bad-request' | 'not-found' | 'conflict' | 'forbidden' | 'unavailable';

/** The language key (and its `$param$` values) a refusal is said with in the UI (runner/refusals.ts). */
export interface RefusalReason {
  key: string;
  params: Record<string, string>;
}

export class RunnerError extends Error {
  /** Set for the refusals a user meets: the UI says them in its language (ui/runner-error.ts). */
  reason?: RefusalReason;

  constructor(
    readonly code: RunnerErrorCode,
    message: string,
    reason?: RefusalReason,
  ) {
    super(message);
    this.name = 'RunnerError';
    if (reason) this.reason = reason;
  }
}

export const HTTP_STATUS: Record<RunnerErrorCode, number> = {
  'bad-request': 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unavailable: 503,
};
