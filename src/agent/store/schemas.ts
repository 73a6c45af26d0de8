/*\
zod schemas for the tiddlers of DESIGN 4: agent definitions, provider profiles, chats and
messages. Tiddler fields are strings, so each schema parses strings into typed values and
reports a bad field by name.
\*/
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { parseToolTimeouts } from './agent-limits';
import { APPROVAL_CHOICES } from './approval-choices';
import { parseModelFactsTable, type ModelFactsTable } from './model-facts';
import { parseResultRounds, type ResultRoundsTable } from './result-rounds';
import { parseTitleList } from './wiki-port';

// zod/mini carries no words for what is wrong: without its English locale a model's invalid
// arguments read "Invalid input", or, when the full zod was loaded first in the same process
// (the MCP SDK on a server), its words: one locale, the same everywhere.
z.config(en());

export { AGENT_TAG, MCP_SERVER_TAG, PROVIDER_TAG } from './tags';

export const CHAT_STATUSES = ['idle', 'working', 'input-required', 'completed', 'canceled', 'failed', 'interrupted'] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];

export const PROVIDER_APIS = ['openai-chat', 'openai-responses', 'anthropic', 'ollama', 'gemini'] as const;
export type ProviderApi = (typeof PROVIDER_APIS)[number];

export const MESSAGE_ROLES = ['user', 'assistant', 'tool', 'error'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** `pending`: waiting for the user (a confirmation or an answer to a question). */
export const TOOL_STATUSES = ['ok', 'error', 'denied', 'timeout', 'pending'] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];

// Why a tool call did not run to its end: its own zod-free module, which the chat's UI reads.
export { TOOL_OUTCOMES, type ToolOutcome } from './tool-outcomes';

/** How an assistant message ended, when not normally. */
export const MESSAGE_FINISHES = ['stop', 'length', 'canceled', 'error', 'interrupted'] as const;

const text = z.string();
const optionalText = z.optional(z.string());
const titleList = z.pipe(
  z.optional(z.string()),
  z.transform((s) => parseTitleList(s)),
);

function wholeNumber(min: number, max: number) {
  return z.pipe(
    z.string().check(z.trim(), z.regex(/^-?\d+$/, { error: 'must be a whole number' })),
    z.pipe(
      z.transform((s: string) => Number(s)),
      z.number().check(z.gte(min, { error: `must be at least ${min}` }), z.lte(max, { error: `must be at most ${max}` })),
    ),
  );
}

function decimal(min: number, max: number) {
  return z.pipe(
    z.string().check(z.trim(), z.regex(/^-?\d+(\.\d+)?$/, { error: 'must be a number' })),
    z.pipe(
      z.transform((s: string) => Number(s)),
      z.number().check(z.gte(min, { error: `must be at least ${min}` }), z.lte(max, { error: `must be at most ${max}` })),
    ),
  );
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of: ${values.join(', ')}` });
}

/** An empty field counts as absent, as TiddlyWiki users expect. */
function blankable<T extends z.core.$ZodType>(schema: T) {
  return z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)),
    z.optional(schema),
  );
}

/** The shortest heartbeat interval, in seconds. */
export const MIN_HEARTBEAT_SECONDS = 60;
export const MAX_HEARTBEAT_SECONDS = 366 * 24 * 3600;

/** Seconds between heartbeats: 0 (off) or MIN_HEARTBEAT_SECONDS and more. */
function heartbeatInterval() {
  return z.pipe(
    wholeNumber(0, MAX_HEARTBEAT_SECONDS),
    z.number().check(z.refine((n) => n === 0 || n >= MIN_HEARTBEAT_SECONDS, { error: `must be 0 (off) or at least ${MIN_HEARTBEAT_SECONDS} seconds` })),
  );
}

/**
 * Active hours `HH:MM-HH:MM` as minutes since midnight, or undefined when they do not parse.
 * `end` may be before `start`: the hours span midnight (22:00-06:00). Equal ends are refused.
 */
export function parseActiveHours(value: string): { start: number; end: number } | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  if (!m) return undefined;
  const start = Number(m[1]) * 60 + Number(m[2]);
  const end = Number(m[3]) * 60 + Number(m[4]);
  return start === end ? undefined : { start, end };
}

const httpUrl = z.string().check(z.trim(), z.regex(/^https?:\/\/[^\s/]+/i, { error: 'must be an http(s) URL such as https://api.openai.com/v1' }));

export const AgentDefinitionSchema = z.object({
  title: text,
  text: z._default(z.string(), ''),
  caption: optionalText,
  description: optionalText,
  'agent-provider': z.string().check(z.trim(), z.minLength(1, { error: 'must name a provider profile tiddler' })),
  'agent-model': optionalText,
  'agent-tools': titleList,
  'agent-max-rounds': blankable(wholeNumber(1, 1000)),
  'agent-write-filter': optionalText,
  'agent-approval': optionalText,
  'agent-context-window': blankable(wholeNumber(256, 10_000_000)),
  'agent-temperature': blankable(decimal(0, 2)),
  /** `native` function calling (default) or the `text` protocol for models without it. */
  'agent-tool-protocol': z._default(blankable(oneOf(['native', 'text'] as const)), 'native'),
  /** Seconds a tool call may run before it is given up. */
  'agent-tool-timeout': blankable(wholeNumber(1, 3600)),
  /** Seconds per tool, as JSON `{"web-fetch": 60}`; a tool named here is not held to `agent-tool-timeout` (store/agent-limits.ts). */
  'agent-tool-timeouts': z.pipe(
    blankable(z.string()),
    z.transform((s, ctx): Record<string, number> | undefined => {
      const read = parseToolTimeouts(s);
      if (read.ok) return read.timeouts;
      ctx.issues.push({ code: 'custom', input: s, message: read.error });
      return undefined;
    }),
  ),
  /** Retries of a failed model request (default 2), the first wait and the longest wait in seconds (engine/retry.ts). */
  'agent-retries': blankable(wholeNumber(0, 10)),
  'agent-retry-delay': blankable(decimal(0, 60)),
  'agent-retry-max-delay': blankable(decimal(0, 600)),
  /** Seconds a confirmation may wait before the call is denied. */
  'agent-approval-timeout': blankable(wholeNumber(1, 30 * 24 * 3600)),
  /** Seconds a question or confirmation in a turn no user started may wait before the turn ends (default 600; 0: no limit). */
  'agent-unattended-timeout': blankable(wholeNumber(0, 30 * 24 * 3600)),
  /** Token budgets (input + output, summed over model calls) per turn and per chat. */
  'agent-turn-budget': blankable(wholeNumber(1, Number.MAX_SAFE_INTEGER)),
  'agent-chat-budget': blankable(wholeNumber(1, Number.MAX_SAFE_INTEGER)),
  /** Money budgets in US dollars (replies priced by store/cost.ts) per turn and per chat. */
  'agent-turn-cost-budget': blankable(decimal(0, 1_000_000)),
  'agent-chat-cost-budget': blankable(decimal(0, 1_000_000)),
  /** Spending caps (store/spend.ts): what all its chats may cost per calendar day and month before its unattended runs pause. */
  'agent-day-cost-budget': blankable(decimal(0, 1_000_000)),
  'agent-month-cost-budget': blankable(decimal(0, 1_000_000)),
  /** The same caps in tokens (in + out): for models without prices, or a cap that should not follow them. */
  'agent-day-token-budget': blankable(wholeNumber(1, Number.MAX_SAFE_INTEGER)),
  'agent-month-token-budget': blankable(wholeNumber(1, Number.MAX_SAFE_INTEGER)),
  /** Sub-agents (spawn-agent): how deep children may nest, how many run at once per turn, seconds each may take. */
  'agent-spawn-depth': blankable(wholeNumber(1, 5)),
  'agent-spawn-concurrency': blankable(wholeNumber(1, 10)),
  'agent-spawn-timeout': blankable(wholeNumber(1, 24 * 3600)),
  /** Other agent definitions its sub-agents may use (the user's choice: another definition may allow more). */
  'agent-spawn-agents': titleList,
  /** Extra engine plugins (module-type tiddlyagent-engine-plugin) by name. */
  'agent-plugins': titleList,
  /**
   * The heartbeat: a message the scheduler sends to the agent's chat every so many seconds
   * (at least 60; 0 or empty: off), only within the active hours (`HH:MM-HH:MM`, local time;
   * `22:00-06:00` spans midnight). The agent may change these itself (edit-agent-definition).
   */
  'agent-heartbeat-interval': blankable(heartbeatInterval()),
  'agent-heartbeat-message': optionalText,
  /** Compact older turns when a prompt would fill more than this share of the window (percent; 0: never). */
  'agent-compact-at': blankable(wholeNumber(0, 100)),
  /** The model (of the agent's provider) for titles, compaction and summaries; empty: the chat's model. */
  'agent-side-model': blankable(z.string().check(z.trim())),
  /** How many rounds a bulky tool result stays in the prompt, per tool (store/result-rounds.ts). */
  'agent-result-rounds': z.pipe(
    blankable(z.string()),
    z.transform((s, ctx): ResultRoundsTable | undefined => {
      if (s === undefined) return undefined;
      try {
        return parseResultRounds(s);
      } catch (e) {
        ctx.issues.push({ code: 'custom', input: s, message: (e as Error).message });
        return undefined;
      }
    }),
  ),
  'agent-heartbeat-active-hours': blankable(
    z.string().check(
      z.trim(),
      z.refine((s) => parseActiveHours(s) !== undefined, { error: 'must be HH:MM-HH:MM, e.g. 08:00-22:00 (22:00-06:00 spans midnight)' }),
    ),
  ),
});
export type AgentDefinition = z.output<typeof AgentDefinitionSchema>;

export const ProviderProfileSchema = z.object({
  title: text,
  caption: optionalText,
  api: oneOf(PROVIDER_APIS),
  'base-url': httpUrl,
  models: titleList,
  'default-model': optionalText,
  'context-window': blankable(wholeNumber(256, 10_000_000)),
  'max-output': blankable(wholeNumber(1, 1_000_000)),
  'api-key-name': optionalText,
  /** Per-model facts over the presets (store/model-facts.ts): JSON keyed by model id or `*`. */
  'model-facts': z.pipe(
    blankable(z.string()),
    z.transform((s, ctx): ModelFactsTable | undefined => {
      if (s === undefined) return undefined;
      try {
        return parseModelFactsTable(s);
      } catch (e) {
        ctx.issues.push({ code: 'custom', input: s, message: (e as Error).message });
        return undefined;
      }
    }),
  ),
  /** Seconds without any data from the server before a request is given up. */
  timeout: blankable(wholeNumber(1, 3600)),
  /** The model that embeds tiddlers for semantic search (runner/host/semantic-indexer.ts); blank: none. */
  'embedding-model': optionalText,
});
export type ProviderProfile = z.output<typeof ProviderProfileSchema>;

/** An MCP server the agent calls (DESIGN 4): exactly one of `mcp-command` (stdio) and `mcp-url` (Streamable HTTP). */
export const McpServerSchema = z.pipe(
  z.object({
    title: text,
    caption: optionalText,
    name: z.string().check(z.trim(), z.regex(/^[a-z0-9-]+$/, { error: 'must be lower-case letters, digits and "-" (its tools are named mcp-<name>-<tool>)' })),
    'mcp-command': blankable(z.string().check(z.trim(), z.minLength(1))),
    'mcp-args': z.pipe(
      blankable(z.string()),
      z.transform((s, ctx) => {
        if (s === undefined) return [] as string[];
        try {
          const args = JSON.parse(s) as unknown;
          if (Array.isArray(args) && args.every((a) => typeof a === 'string')) return args as string[];
        } catch {
          // reported below
        }
        ctx.issues.push({ code: 'custom', input: s, message: 'must be a JSON array of strings, e.g. ["server.js", "--stdio"]' });
        return [] as string[];
      }),
    ),
    'mcp-url': blankable(httpUrl),
    /** How `mcp-url` is spoken: `streamable-http`, `sse` (the older HTTP+SSE), or empty: Streamable HTTP, then SSE if the server does not take it. */
    'mcp-transport': blankable(oneOf(['streamable-http', 'sse'] as const)),
    'mcp-env': titleList,
    'mcp-key-name': optionalText,
    /** Seconds a connection or a call may take. */
    'mcp-timeout': blankable(wholeNumber(1, 3600)),
  }),
  z.transform((server, ctx) => {
    if (!server['mcp-command'] === !server['mcp-url'])
      ctx.issues.push({
        code: 'custom',
        input: server,
        message: 'set exactly one of "mcp-command" (a command, for stdio) and "mcp-url" (an http(s) URL, for Streamable HTTP)',
      });
    return server;
  }),
);
export type McpServer = z.output<typeof McpServerSchema>;

/**
 * The fields a chat tiddler carries besides its own (title, text, tags, …): the store writes
 * only these, so no code path can put an undeclared field on a user's tiddler.
 */
export const CHAT_FIELDS = [
  'agent',
  'agent-status',
  'agent-parent',
  'agent-hidden',
  /** Tools the user allowed "in this chat". */
  'agent-allowed-tools',
  /** The last prompt's context usage (JSON), for the usage meter. */
  'agent-context-usage',
  /** The "Current tiddler" section of the prompt. */
  'agent-current-tiddler',
  /** Messages sent during a browser turn and not started (JSON), so a reload keeps their words. */
  'agent-queued',
  /** Tiddlers "Talk with AI" attached to the next message. */
  'agent-draft-attachments',
  /** `yes`: the agent's heartbeat wakes this chat (schedules/heartbeat.ts). */
  'agent-heartbeat',
  /** When the heartbeat wakes it next (ISO 8601), kept by the scheduler. */
  'agent-heartbeat-next',
  /** An MCP session's chat (the client's name): its calls come from outside, no model turn runs in it. */
  'agent-mcp-session',
] as const;
export type ChatField = (typeof CHAT_FIELDS)[number];

export const ChatSchema = z.object({
  title: text,
  agent: z.string().check(z.trim(), z.minLength(1, { error: 'must name an agent definition tiddler' })),
  'agent-status': z._default(blankable(oneOf(CHAT_STATUSES)), 'idle'),
  'agent-parent': optionalText,
  'agent-hidden': optionalText,
});
export type Chat = z.output<typeof ChatSchema>;

export const MessageSchema = z.object({
  title: text,
  text: z._default(z.string(), ''),
  'agent-chat': text,
  'agent-seq': wholeNumber(0, Number.MAX_SAFE_INTEGER),
  role: oneOf(MESSAGE_ROLES),
  type: optionalText,
  created: optionalText,
  'agent-round': blankable(wholeNumber(0, 1_000_000)),
  'agent-duration': blankable(wholeNumber(0, 1_000_000)),
  'agent-finish': blankable(oneOf(MESSAGE_FINISHES)),
  'tool-name': optionalText,
  'tool-call-id': optionalText,
  'tool-args': optionalText,
  'tool-status': blankable(oneOf(TOOL_STATUSES)),
  /** Why the call did not run to its end (TOOL_OUTCOMES); unknown values are ignored. */
  'tool-outcome': optionalText,
  /** Assistant messages: the tool calls of the reply, JSON [{id, name, args}]. */
  'tool-calls': optionalText,
  /** Pending tool messages: when an unanswered confirmation is denied (milliseconds since 1970). */
  'approval-expires': optionalText,
  /** Pending tool messages of a turn no user started: when the turn ends unanswered (milliseconds since 1970; runner/services/turn-unattended.ts). */
  'unattended-expires': optionalText,
  'tool-changes': optionalText,
  /** Pending tool messages of a confirm-only tool: the only choices that decide it (once deny). */
  'approval-choices': titleList,
  /** Pending tool messages: the titles the call touches, which an "Always allow" rule may name (engine/approval-rules.ts). */
  'approval-targets': titleList,
  /** A call that ran without asking because of the user's rule: which rule, JSON (engine/approval.ts AllowingRule). */
  'approval-rule': optionalText,
  /** Pending tool messages: the tiddler whose text the user may edit before allowing (store/user-version.ts). */
  'approval-edit': optionalText,
  /** Pending tool messages: the user's version of that text, a JSON string (store/user-version.ts). */
  'approval-text': optionalText,
  /** User messages: the operation that carried them. */
  'agent-operation': optionalText,
  /** spawn-agent results: the sub-agent's chat. */
  'agent-child': optionalText,
  /** User messages sent by a schedule or heartbeat rather than typed: `schedule:<title>` or `heartbeat:<agent>`. */
  'agent-source': optionalText,
  /** Compaction summaries (engine/compaction.ts): `yes`. */
  'agent-compaction': optionalText,
  /** Messages a compaction replaced in the prompt: the summary's title. */
  'agent-compacted': optionalText,
  /** The user's decision on a pending call: once | chat | always | deny. */
  approval: blankable(oneOf(APPROVAL_CHOICES)),
  attachments: titleList,
  model: optionalText,
  'tokens-in': blankable(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
  'tokens-out': blankable(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
  reasoning: optionalText,
  /** The versions of tiddlers the message showed the agent, JSON {title: fingerprint} (store/read-ledger.ts). */
  'agent-read': optionalText,
  /** Replies: the tiddlers the turn read and the reply cites, JSON (store/sources.ts). */
  'agent-sources': optionalText,
  /** Replies: the memories their prompt carried (store/memory.ts). */
  'agent-memories': titleList,
  /** Tool results: the tiddlers the result listed, and how many the call found in all (the chat's line about the call). */
  'tool-titles': titleList,
  'tool-found': blankable(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
});
export type Message = z.output<typeof MessageSchema>;

/** A definition or profile that cannot be used, with the tiddler and field to fix. */
export class ConfigError extends Error {
  constructor(
    readonly tiddler: string,
    readonly field: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parse tiddler fields, or throw a ConfigError naming the tiddler and the first bad field. */
export function parseTiddler<S extends z.core.$ZodType>(schema: S, kind: string, fields: Record<string, string>): z.output<S> {
  const result = z.safeParse(schema, fields);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? String(issue.path[0]) : undefined;
  const got = field !== undefined ? fields[field] : undefined;
  const shown = got !== undefined && got.length > 80 ? `${got.slice(0, 77)}…` : got;
  const what =
    field === undefined ? issue.message : got === undefined ? `the field "${field}" is missing` : `the field "${field}" ${issue.message} (it is "${shown}")`;
  throw new ConfigError(fields.title ?? '', field, `${kind} "${fields.title}": ${what}.`);
}
