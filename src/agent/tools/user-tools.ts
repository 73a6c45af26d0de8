/*\
User-defined tools (DESIGN 7): tiddlers tagged `$:/tags/AI/Tool`, read afresh at the start of
every turn. Fields:

- `name`: the tool's name, [a-z0-9-]+ (at most 64), not a built-in tool's name nor `mcp-*`;
- `description`: what the model is told the tool does;
- `parameters`: a JSON Schema of an object, as text (empty: no parameters). A subset is
  supported and enforced: types string/number/integer/boolean/array/object, properties,
  required, enum, items, additionalProperties, min/max (Length, Items), pattern, plus the
  annotations description/title/default/examples/format. The model is sent the schema as written;
- `approval`: `confirm` (default: action wikitext can write anything) or `auto`;
- `result-tiddler`: optional title whose text, after the actions ran, is the tool's result.

The text is action wikitext, run with each declared parameter as a variable of the same name
(strings as they are, other values as JSON; a missing optional one is its `default` or "").
Without `result-tiddler` the result is the text rendered to plain text with the same
variables, so a tool can compute and return something without writing anything.

Sandboxed (DESIGN 8), because the arguments come from the model:
- arguments are data: `<<name>>` shows the value as text and attributes get it verbatim; it
  is never parsed as wikitext, so an argument cannot inject widgets;
- the actions run against the agent's view (hidden tiddlers do not exist) under a parent
  widget that refuses every message (tm-http-request could send a stored password anywhere);
  a tool that sends one fails and changes nothing;
- they write into a sandbox; the write gate then checks every change as it would land (the
  same rules as the built-in write tools) and applies and journals all of it, or none.

A tool whose definition is broken but whose name is usable stays listed, with the problem in
its description, and every call returns that problem; a bad or clashing name cannot be
offered at all, so such a tiddler is only reported by `scanUserTools`.
\*/
import * as z from 'zod/mini';
import type { Journal } from '../store/turn-journal';
import type { SandboxPort, TiddlerFields, WikiPort } from '../store/wiki-port';
import { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from './tool';
import { type Changes, errorText, WriteRefused } from './write-gate';

export const USER_TOOL_TAG = '$:/tags/AI/Tool';
const NAME = /^[a-z0-9-]{1,64}$/;
/** Parameters become wikitext variables (functions): names TiddlyWiki can declare. */
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export interface UserToolProblem {
  title: string;
  name: string;
  error: string;
}

/** Valid tools only, for the engine: built-in names in `reserved` always win. */
export function loadUserTools(wiki: WikiPort, reserved: ReadonlySet<string>): ToolDefinition[] {
  return scanUserTools(wiki, reserved).tools;
}

/** Every `$:/tags/AI/Tool` tiddler: the tools to offer, and what is wrong with the others. */
export function scanUserTools(wiki: WikiPort, reserved: ReadonlySet<string>): { tools: ToolDefinition[]; problems: UserToolProblem[] } {
  const tools: ToolDefinition[] = [];
  const problems: UserToolProblem[] = [];
  const seen = new Map<string, string>();
  for (const title of wiki.filter(`[all[shadows+tiddlers]tag[${USER_TOOL_TAG}]!has[draft.of]]`)) {
    const fields = wiki.getFields(title);
    if (!fields) continue;
    const name = (fields.name ?? '').trim();
    const refuse = (error: string) => problems.push({ title, name, error: `User tool "${title}": ${error}` });
    if (!name) refuse('the field "name" is empty; set it to the tool\'s name, e.g. word-count.');
    else if (!NAME.test(name)) refuse(`the name "${name}" (field "name") may only use a-z, 0-9 and "-", at most 64 characters.`);
    else if (reserved.has(name) || name.startsWith('mcp-')) refuse(`the name "${name}" (field "name") is taken by a built-in tool; choose another.`);
    else if (seen.has(name)) refuse(`the name "${name}" (field "name") is already used by the user tool "${seen.get(name)}".`);
    else {
      seen.set(name, title);
      try {
        tools.push(userTool(title, name, fields));
      } catch (e) {
        const error = `User tool "${title}": ${errorText(e)}`;
        problems.push({ title, name, error });
        tools.push(unavailableTool(name, error));
      }
    }
  }
  return { tools, problems };
}

// ---------------------------------------------------------------------------------------------
// The tool

function userTool(title: string, name: string, fields: TiddlerFields): ToolDefinition {
  const approval = (fields.approval ?? '').trim() || 'confirm';
  if (approval !== 'auto' && approval !== 'confirm') throw new Error(`the field "approval" must be "auto" or "confirm" (it is "${approval}").`);
  const schema = parseParameters(fields.parameters ?? '');
  const resultTiddler = (fields['result-tiddler'] ?? '').trim();
  const actions = fields.text ?? '';
  return defineTool({
    name,
    description: (fields.description ?? '').trim() || `The user-defined tool "${title}".`,
    parameters: jsonSchemaParameters(schema),
    access: 'write',
    defaultMode: approval,
    preview: (args) => {
      const lines = Object.entries(toVariables(schema, args)).map(([k, v]) => `${k}: ${v}`);
      return [`Run the user tool "${title}" (its action wikitext can change any tiddler the agent may write)`, ...lines].join('\n');
    },
    plan: (args, context) => planUserTool(name, actions, toVariables(schema, args), context),
    targets: (args, context) => userToolTargets(name, actions, toVariables(schema, args), context),
    execute: (args, context) => runUserTool(title, name, actions, resultTiddler, toVariables(schema, args), context),
  });
}

function unavailableTool(name: string, error: string): ToolDefinition {
  return defineTool({
    name,
    description: `Unavailable: ${error}`,
    parameters: jsonSchemaParameters({ type: 'object', properties: {} }),
    access: 'read',
    defaultMode: 'auto',
    execute: () => ({ ok: false, content: `${error} Fix the tiddler to use this tool.` }),
  });
}

export function runUserTool(
  title: string,
  name: string,
  actions: string,
  resultTiddler: string,
  variables: Record<string, string>,
  context: ToolContext,
): ToolOutput {
  // Run afresh, whatever the card showed: the wiki may have changed since it was asked.
  let sandbox: SandboxPort;
  try {
    sandbox = sandboxRun(name, actions, variables, context.wiki);
    gated(name, sandbox.changes(), (changes) => context.gate.apply(changes));
  } catch (e) {
    return { ok: false, content: errorText(e) };
  }
  const titles = Object.keys(sandbox.changes());
  if (resultTiddler) {
    const fields = sandbox.getFields(resultTiddler);
    if (!fields) return { ok: false, content: `${name} ran, but its result tiddler "${resultTiddler}" does not exist.` };
    return { content: fields.text ?? '' };
  }
  const text = sandbox.renderPlainText(title, variables).trim();
  return { content: text || (titles.length ? `Done; changed: ${titles.map((t) => `"${t}"`).join(', ')}.` : '(no output)') };
}

/**
 * What the approval card shows for a user tool or a plugin action: the actions run in a fresh
 * sandbox of the agent's view with the call's variables, and the write gate plans what they
 * would change. A message they send, or a change the gate refuses, is a WriteRefused: the call
 * is refused before anyone is asked (as a built-in write tool's is).
 */
export function planUserTool(name: string, actions: string, variables: Record<string, string>, context: ToolContext): Journal {
  return gated(name, sandboxRun(name, actions, variables, context.wiki).changes(), (changes) => context.gate.plan(changes));
}

/** The titles the actions would change (for approval patterns and the card). */
export function userToolTargets(name: string, actions: string, variables: Record<string, string>, context: ToolContext): string[] {
  return Object.keys(sandboxRun(name, actions, variables, context.wiki).changes());
}

/** The actions run in a sandbox of the agent's view: what they write is only a proposal until the write gate has checked all of it. */
function sandboxRun(name: string, actions: string, variables: Record<string, string>, wiki: WikiPort): SandboxPort {
  const sandbox = wiki.sandbox();
  const { refusedMessages } = sandbox.runActions(actions, variables);
  if (refusedMessages.length) {
    const sent = [...new Set(refusedMessages)].join(', ');
    throw new WriteRefused(
      `${name} tried to send ${sent}: user tools may not send messages (they could make HTTP requests, read stored passwords or leave the wiki). Nothing was changed.`,
    );
  }
  return sandbox;
}

/** `check` (the gate's plan or apply) over the changes; its refusal names the titles and says nothing was changed. */
function gated<T>(name: string, changes: Changes, check: (changes: Changes) => T): T {
  try {
    return check(changes);
  } catch (e) {
    const titles = Object.keys(changes).map((t) => `"${t}"`);
    throw new WriteRefused(`${name} tried to change ${titles.join(', ')}: ${errorText(e)} Nothing was changed.`);
  }
}

/** Declared parameters as variables: strings as they are, other values as JSON. */
export function toVariables(schema: JsonSchema, args: unknown): Record<string, string> {
  const given = (args ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const value = key in given ? given[key] : prop.default;
    out[key] = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The JSON Schema subset: checked when the tool is loaded, enforced on every call

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  [annotation: string]: unknown;
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
const ANNOTATIONS = ['description', 'title', 'default', 'examples', 'format', '$schema', '$comment'];
const KEYWORDS: Record<string, string[]> = {
  string: ['enum', 'minLength', 'maxLength', 'pattern'],
  number: ['enum', 'minimum', 'maximum'],
  integer: ['enum', 'minimum', 'maximum'],
  boolean: ['enum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
};

/** Parse and check the `parameters` field; the error says what is wrong and where. */
export function parseParameters(text: string): JsonSchema {
  if (!text.trim()) return { type: 'object', properties: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`the field "parameters" is not valid JSON (${(e as Error).message}).`);
  }
  const fail = (where: string, why: string) => new Error(`the field "parameters" ${where ? `at ${where} ` : ''}${why}.`);
  if (!isObject(raw) || raw.type !== 'object') throw fail('', 'must be a JSON Schema of an object: {"type": "object", "properties": {…}, "required": […]}');
  const check = (node: unknown, where: string) => {
    if (!isObject(node)) throw fail(where, 'must be a schema object');
    const type = node.type;
    if (typeof type !== 'string' || !TYPES.includes(type)) throw fail(where, `needs "type", one of ${TYPES.join(', ')}`);
    const allowed = new Set(['type', ...ANNOTATIONS, ...KEYWORDS[type]!]);
    for (const key of Object.keys(node))
      if (!allowed.has(key))
        throw fail(where, `uses "${key}", which is not supported for type ${type} (supported: ${[...KEYWORDS[type]!, ...ANNOTATIONS].join(', ')})`);
    for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']) {
      if (key in node && typeof node[key] !== 'number') throw fail(where, `has "${key}" that is not a number`);
    }
    if ('enum' in node && (!Array.isArray(node.enum) || !node.enum.length)) throw fail(where, 'has "enum" that is not a non-empty array');
    if ('pattern' in node) {
      try {
        new RegExp(String(node.pattern), 'u');
      } catch {
        throw fail(where, `has an invalid "pattern" ${JSON.stringify(node.pattern)}`);
      }
    }
    if (type === 'array' && 'items' in node) check(node.items, `${where}.items`);
    if (type === 'object') {
      const props = node.properties ?? {};
      if (!isObject(props)) throw fail(where, 'has "properties" that is not an object');
      for (const [key, prop] of Object.entries(props)) check(prop, `${where ? `${where}.` : ''}properties.${key}`);
      const required = node.required ?? [];
      if (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || !(r in props))) {
        throw fail(where, `has "required" that must list names from "properties" (it is ${JSON.stringify(node.required)})`);
      }
      const extra = node.additionalProperties;
      if (extra !== undefined && typeof extra !== 'boolean') check(extra, `${where ? `${where}.` : ''}additionalProperties`);
    }
  };
  check(raw, '');
  for (const key of Object.keys((raw.properties ?? {}) as object)) {
    if (!PARAMETER_NAME.test(key))
      throw fail(`properties.${key}`, 'is not a usable parameter name (letters, digits, "_" and "-", starting with a letter or "_")');
  }
  return raw as JsonSchema;
}

/**
 * A zod/mini schema that validates with `validate` and converts back to exactly the user's
 * schema: zod/mini has no `fromJSONSchema` (only zod's classic build does), so the check is
 * custom, and `_zod.toJSONSchema` (zod's documented override hook) hands the engine's
 * `z.toJSONSchema(…, {io: 'input'})` the schema as written. `problems` replaces the check
 * (MCP tools: the server validates against its own schema, which may use any JSON Schema).
 */
export function jsonSchemaParameters(
  schema: JsonSchema,
  problems: (value: unknown) => string[] = (value) => validate(schema, value, ''),
): z.ZodMiniType<Record<string, unknown>> {
  const parameters = z.custom<Record<string, unknown>>((value) => problems(value).length === 0, {
    error: (issue) => `${problems(issue.input).join('; ')}.`,
  });
  parameters._zod.toJSONSchema = () => JSON.parse(JSON.stringify(schema)) as JsonSchema;
  return parameters;
}

/** Problems of `value` against `schema`, each naming the parameter (path) it is about. */
export function validate(schema: JsonSchema, value: unknown, path: string): string[] {
  const at = path ? `parameter "${path}"` : 'the arguments';
  const type = schema.type;
  if (type === 'object') {
    if (!isObject(value)) return [`${at}: expected an object, got ${describe(value)}`];
    const out: string[] = [];
    const props = schema.properties ?? {};
    for (const key of schema.required ?? []) if (value[key] === undefined) out.push(`missing required parameter "${join(path, key)}"`);
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const prop = props[key];
      if (prop) out.push(...validate(prop, v, join(path, key)));
      else if (schema.additionalProperties === false) out.push(`unknown parameter "${join(path, key)}" (known: ${Object.keys(props).join(', ') || 'none'})`);
      else if (isObject(schema.additionalProperties)) out.push(...validate(schema.additionalProperties as JsonSchema, v, join(path, key)));
    }
    return out;
  }
  if (type === 'array') {
    if (!Array.isArray(value)) return [`${at}: expected an array, got ${describe(value)}`];
    const out: string[] = [];
    if (schema.minItems !== undefined && value.length < schema.minItems)
      out.push(`${at}: needs at least ${plural(schema.minItems, 'item')}, got ${value.length}`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      out.push(`${at}: allows at most ${plural(schema.maxItems, 'item')}, got ${value.length}`);
    if (schema.items) {
      const items = schema.items;
      value.forEach((item, i) => {
        out.push(...validate(items, item, `${path}[${i}]`));
      });
    }
    return out;
  }
  const ok =
    type === 'string'
      ? typeof value === 'string'
      : type === 'boolean'
        ? typeof value === 'boolean'
        : type === 'integer'
          ? Number.isInteger(value)
          : typeof value === 'number' && Number.isFinite(value);
  if (!ok) return [`${at}: expected ${type === 'integer' ? 'an integer' : `a ${type}`}, got ${describe(value)}`];
  if (schema.enum && !schema.enum.some((e) => e === value))
    return [`${at}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(value)}`];
  const out: string[] = [];
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) out.push(`${at}: needs at least ${plural(schema.minLength, 'character')}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) out.push(`${at}: allows at most ${plural(schema.maxLength, 'character')}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) out.push(`${at}: must match the pattern ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: must be at least ${schema.minimum}, got ${value}`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: must be at most ${schema.maximum}, got ${value}`);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value === 'object' ? 'an object' : String(typeof value);
}
