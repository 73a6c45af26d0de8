/*\
Chat commands as data. Everything a page, the HTTP API, an MCP client, the headless command, a
schedule or a sub-agent asks of the runner is one of these kinds, with one schema each. A
command is validated once, where it enters the runner (LocalRunner.submit and .receive), is
persisted as the durable operation when it waits in the chat's queue (runner/operations.ts),
and is carried out by its handler (runner/services/). RemoteRunner and the server's route are
generic over this table: a new command is one schema here and one handler there.
Queries (Show prompt, the settings' tests, Ask AI) change no chat; they share the table, the
validation and the route.
This module is zod's; the page imports only its types (erased), so its bundle carries no zod.
\*/
import * as z from 'zod/mini';
import '../store/schemas'; // zod's English words (z.config), for the messages no schema names
import { APPROVAL_CHOICES } from '../store/approval-choices';
import { IN_PROCESS_ONLY } from './command-wire';

const named = (key: string) => {
  const error = `"${key}" must be a non-empty string.`;
  return z.string({ error }).check(z.minLength(1, { error }));
};
const words = (key: string) => z.string({ error: `"${key}" must be a string.` });
/** A string, or left out (null counts as left out, as JSON clients send it). */
const optionalWords = (key: string, what = '') => z.optional(z.nullable(z.string({ error: `"${key}" must be a string${what}.` })));
const whole = (key: string) => z.int({ error: `"${key}" must be a whole number.` });
const flag = (key: string) => z.optional(z.boolean({ error: `"${key}" must be true or false.` }));

const chat = named('chat');
const message = named('message');

export const COMMAND_SCHEMAS = {
  /** A user message; `source`: what sent it when the user did not type it (a schedule, a heartbeat), set only in process. */
  send: z.object({
    text: words('text'),
    chat,
    attachments: z.optional(z.array(z.string(), { error: '"attachments" must be a list of titles.' })),
    source: z.optional(z.string()),
  }),
  /** Abort the running turn (or end a waiting one) and drop what is queued behind it. */
  stop: z.object({ chat }),
  /** The user's choice on a call waiting for approval; "always" carries the scope of its rule; `text`: their own version of the call's text. */
  decide: z.object({
    chat,
    message,
    choice: z.enum(APPROVAL_CHOICES, { error: `"choice" must be one of: ${APPROVAL_CHOICES.join(', ')}.` }),
    scope: z.optional(z.unknown()),
    text: optionalWords('text', ' (your version of the text), or left out'),
  }),
  /** Remove the rule that let a call (its message's `approval-rule`) run without asking. */
  'revoke-rule': z.object({ chat, message }),
  /** The answers to a question; null dismisses it and ends the turn. */
  answer: z.object({
    chat,
    message,
    answers: z.nullable(z.array(z.string(), { error: '"answers" must be a list of strings, or null to dismiss the question.' })),
  }),
  /** Answer the last turn (`message`: its user message) again; its replies are kept as an earlier version. */
  retry: z.object({ chat, message }),
  /** Send an edited copy of an earlier user message: the chat forks there, the old branch is kept. */
  edit: z.object({ chat, message, text: words('text') }),
  /** Bring back version `version` of the chat at the fork at seq `at`. */
  'switch-branch': z.object({ chat, at: whole('at'), version: whole('version') }),
  /** Remove a turn's messages; a turn whose changes stand needs `keepChanges` (its journal is the only way back). */
  'delete-turn': z.object({ chat, message, keepChanges: flag('keepChanges') }),
  /** Restore what a turn's tools changed; with conflicts only when `force`. */
  rollback: z.object({ chat, message, force: flag('force') }),
  /** Rename a chat and everything keyed by its title, after a running turn. */
  rename: z.object({ chat, to: words('to') }),
  /** Delete a chat in the bin forever, with everything it owns. */
  'delete-chat': z.object({ chat }),
  /** Summarize the chat's older turns into one compaction message now. */
  compact: z.object({ chat }),
} as const;

export const QUERY_SCHEMAS = {
  /** What the chat's next request would send, with tokens per section (Show prompt). */
  preview: z.object({ chat }),
  /** Connect to an MCP server where turns run and list its tools (the settings' Test). */
  'mcp-test': z.object({ server: named('server') }),
  /** Test a provider profile with the values typed in the settings; `apiKey` is set only in process (runner/services/provider-test.ts). */
  'provider-test': z.object({
    profile: named('profile'),
    api: optionalWords('api'),
    baseUrl: optionalWords('baseUrl'),
    model: optionalWords('model'),
    keyName: optionalWords('keyName'),
    apiKey: optionalWords('apiKey'),
  }),
  /** Ask AI in the editor: an agent's proposed new text for a selection (engine/edit-request.ts). */
  'propose-edit': z.object({
    instruction: named('instruction'),
    text: words('text'),
    agent: optionalWords('agent'),
    custom: optionalWords('custom'),
    title: optionalWords('title'),
    context: optionalWords('context'),
  }),
} as const;

type CommandSchemas = typeof COMMAND_SCHEMAS;
type QuerySchemas = typeof QUERY_SCHEMAS;
export type CommandKind = keyof CommandSchemas;
export type QueryKind = keyof QuerySchemas;

/** A command as a caller writes it. */
export type Command<K extends CommandKind = CommandKind> = { [P in K]: { kind: P } & z.input<CommandSchemas[P]> }[K];
/** A command as the handlers get it: validated. */
export type ValidCommand<K extends CommandKind = CommandKind> = { [P in K]: { kind: P } & z.output<CommandSchemas[P]> }[K];
export type Query<K extends QueryKind = QueryKind> = { [P in K]: { kind: P } & z.input<QuerySchemas[P]> }[K];
export type ValidQuery<K extends QueryKind = QueryKind> = { [P in K]: { kind: P } & z.output<QuerySchemas[P]> }[K];

export const COMMAND_KINDS = Object.keys(COMMAND_SCHEMAS) as CommandKind[];
export const QUERY_KINDS = Object.keys(QUERY_SCHEMAS) as QueryKind[];

/** The first problem of a parse, as one sentence for the user. */
function problemOf(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'The request is not valid.';
  return issue.message.endsWith('.') ? issue.message : `${issue.path.length ? `"${issue.path.join('.')}": ` : ''}${issue.message}.`;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string; unknownKind?: true };

function parseWith<T>(schemas: Record<string, z.ZodMiniType>, kind: string, body: unknown, inProcess: boolean): Parsed<T> {
  if (!Object.hasOwn(schemas, kind)) return { ok: false, error: `There is no action "${kind}".`, unknownKind: true };
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { ok: false, error: 'The request must be a JSON object.' };
  let fields = body as Record<string, unknown>;
  if (!inProcess && IN_PROCESS_ONLY[kind]) fields = Object.fromEntries(Object.entries(fields).filter(([key]) => !IN_PROCESS_ONLY[kind]!.includes(key)));
  const parsed = z.safeParse(schemas[kind]!, fields);
  if (!parsed.success) return { ok: false, error: problemOf(parsed.error) };
  return { ok: true, value: { ...(parsed.data as object), kind } as T };
}

/** Validate a command of kind `kind` (its fields in `body`); `inProcess`: the caller runs in this process (see IN_PROCESS_ONLY). */
export function parseCommand(kind: string, body: unknown, inProcess: boolean): Parsed<ValidCommand> {
  return parseWith(COMMAND_SCHEMAS, kind, body, inProcess);
}

export function parseQuery(kind: string, body: unknown, inProcess: boolean): Parsed<ValidQuery> {
  return parseWith(QUERY_SCHEMAS, kind, body, inProcess);
}
