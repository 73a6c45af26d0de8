/*\
Plugins that describe themselves to agents (TiddlyWiki issues 9378 and 9838): the tools a
wiki's plugins offer, read afresh at the start of every turn from the agent's view (a hidden
tiddler defines nothing; drafts are left out; shadow tiddlers count, as plugins ship them).

- `$:/tags/AI/Prompt/DataSource`: the text says what the data is, the `filter` field selects
  it. It becomes a read tool: without `title` it lists the tiddlers the filter selects, a page
  at a time; with `title` it reads one of them (and nothing else). The filter runs in the
  agent's view, so hidden tiddlers are never listed or read, and results are bounded.
- `$:/tags/AI/Prompt/Actions`: action wikitext with typed variables as issue 9838 proposes:
  `action-variables` lists them, `<name>/type` (text, string, number, integer, boolean),
  `<name>/description` (or `<name>/caption`) and `<name>/default` describe each (one without a
  default is required). Without `action-variables`, a `\parameters (book, status:"to-read")`
  pragma at the start of the text names them (action-parameters.ts). It becomes a tool run
  like a user tool (user-tools.ts): arguments are data, the actions run in a sandbox that
  refuses messages, and the write gate checks every change as it would land. It always asks first unless the agent's own approval rules allow it.

Every tool is named `plugin-<name>`: `name` from the field `name`, else made from the title, so
it never collides with a built-in tool; a tiddler no plugin ships gets `plugin-wiki-<name>`, so
it cannot pose as a plugin's tool; a name two tiddlers claim is reported and neither offered. An agent
enables one by its name in `agent-tools`, or all of a plugin's with their common prefix
(`plugin-reading-list` enables `plugin-reading-list-books` and `plugin-reading-list-add`).
Descriptions are bounded: a plugin cannot fill the prompt through its tool list.
\*/
import * as z from 'zod/mini';
import { fingerprint } from '../store/fingerprint';
import { parseTitleList, type TiddlerFields, type WikiPort } from '../store/wiki-port';
import { filterError, oneLine, pageLine, runAgentFilter, showable, tiddlerBlock, tiddlerRef, UNTRUSTED_NOTE } from './format';
import { parametersPragma } from './action-parameters';
import { defineTool, type ToolDefinition } from './tool';
import { jsonSchemaParameters, type JsonSchema, planUserTool, runUserTool, toVariables, userToolTargets } from './user-tools';
import { errorText } from './write-gate';

export const DATA_SOURCE_TAG = '$:/tags/AI/Prompt/DataSource';
export const ACTIONS_TAG = '$:/tags/AI/Prompt/Actions';
export const PLUGIN_TOOL_PREFIX = 'plugin-';

/** Characters of a plugin's own words a tool description carries, and of each variable's. */
export const DESCRIPTION_LIMIT = 600;
const VARIABLE_DESCRIPTION_LIMIT = 200;
/** Titles a DataSource lists per page, and characters of a tiddler's text it shows per read. */
export const LIST_LIMIT = 50;
export const READ_LIMIT = 20_000;
const NAME = /^[a-z0-9-]{1,57}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const TYPES: Record<string, JsonSchema['type']> = { text: 'string', string: 'string', number: 'number', integer: 'integer', boolean: 'boolean' };

export interface PluginToolProblem {
  title: string;
  error: string;
}

/** The tools of the wiki's DataSource and Actions tiddlers; names in `reserved` (built-in and user tools) are never taken. */
export function scanPluginTools(wiki: WikiPort, reserved: ReadonlySet<string>): { tools: ToolDefinition[]; problems: PluginToolProblem[] } {
  const view = wiki.agentView();
  const tools: ToolDefinition[] = [];
  const problems: PluginToolProblem[] = [];
  const seen = new Map<string, string>();
  const clashed = new Set<string>();
  for (const [tag, make] of [
    [DATA_SOURCE_TAG, dataSourceTool],
    [ACTIONS_TAG, actionTool],
  ] as const) {
    for (const title of view.filter('[all[shadows+tiddlers]tag<tag>!has[draft.of]sort[title]]', { tag })) {
      const fields = view.getFields(title);
      if (!fields) continue;
      const name = pluginToolName(title, fields, shippedByPlugin(view, title, fields));
      const refuse = (error: string) => problems.push({ title, error: `Plugin tiddler "${oneLine(title)}": ${error}` });
      if (!name) refuse('no tool name can be made from its title; set the field "name" (a-z, 0-9 and "-").');
      else if (reserved.has(name)) refuse(`the tool name "${name}" is already taken; set another in the field "name".`);
      else if (seen.has(name)) {
        // Neither is offered: a tiddler must not take over another's tool (and the rules given to it).
        refuse(`the tool name "${name}" is also claimed by "${oneLine(seen.get(name)!)}"; neither is offered.`);
        clashed.add(name);
      } else {
        seen.set(name, title);
        try {
          tools.push(make(view, title, name, fields));
        } catch (e) {
          const error = `Plugin tiddler "${oneLine(title)}": ${errorText(e)}`;
          problems.push({ title, error });
          tools.push(unavailable(name, error));
        }
      }
    }
  }
  if (clashed.size) return { tools: tools.filter((t) => !clashed.has(t.name)), problems };
  return { tools, problems };
}

export function loadPluginTools(wiki: WikiPort, reserved: ReadonlySet<string>): ToolDefinition[] {
  return scanPluginTools(wiki, reserved).tools;
}

/**
 * `plugin-<name>`: the field `name` (without a `plugin-` of its own), else the title made into a
 * name. A tiddler no plugin ships as it is (an ordinary one, or a plugin's edited in the wiki)
 * gets `plugin-wiki-<name>`: an imported tiddler can never take a plugin's tool name, nor be
 * enabled by a plugin's prefix.
 */
export function pluginToolName(title: string, fields: TiddlerFields, shipped = true): string | undefined {
  const own = (fields.name ?? '').trim().replace(/^plugin-/, '');
  const base = own
    ? own
    : title
        .replace(/^\$:\/(plugins\/)?/, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 52)
        .replace(/-+$/, '');
  const name = shipped ? base : `wiki-${base}`;
  return NAME.test(name) ? `${PLUGIN_TOOL_PREFIX}${name}` : undefined;
}

/** Whether a plugin ships this tiddler, unedited. */
export function shippedByPlugin(view: WikiPort, title: string, fields: TiddlerFields): boolean {
  const shadow = view.shadowFields(title);
  return shadow !== undefined && shadow.text === fields.text && shadow.name === fields.name && shadow.filter === fields.filter;
}

/** The plugin that ships a shadow tiddler (the plugin whose title begins its title), or undefined for an ordinary tiddler. */
export function pluginOf(wiki: WikiPort, title: string): string | undefined {
  if (!wiki.shadowFields(title)) return undefined;
  // The longest title before a "/" that is a plugin: a lookup per "/", whatever the wiki's size.
  for (let end = title.lastIndexOf('/'); end > 0; end = title.lastIndexOf('/', end - 1)) {
    const prefix = title.slice(0, end);
    if (wiki.getFields(prefix)?.['plugin-type']) return prefix;
  }
  return 'a plugin';
}

/** Who a tiddler comes from, for the model and the approval card. */
export function sourceLine(wiki: WikiPort, title: string): string {
  const plugin = pluginOf(wiki, title);
  return plugin ? `the plugin "${oneLine(plugin)}" (its tiddler "${oneLine(title)}")` : `the tiddler "${oneLine(title)}" in this wiki`;
}

/** A plugin's words, bounded, on one paragraph. */
export function bounded(text: string, limit: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

function renderedText(wiki: WikiPort, title: string): string {
  try {
    return wiki.renderPlainText(title);
  } catch {
    return '';
  }
}

function unavailable(name: string, error: string): ToolDefinition {
  return defineTool({
    name,
    description: bounded(`Unavailable: ${error}`, DESCRIPTION_LIMIT),
    parameters: jsonSchemaParameters({ type: 'object', properties: {} }),
    access: 'read',
    defaultMode: 'auto',
    execute: () => ({ ok: false, content: `${error} Fix the tiddler to use this tool.` }),
  });
}

// ---------------------------------------------------------------------------------------------
// DataSource: a read tool over what its filter selects

function dataSourceTool(view: WikiPort, title: string, name: string, fields: TiddlerFields): ToolDefinition {
  const filter = (fields.filter ?? '').trim();
  if (!filter) throw new Error('the field "filter" is empty; set it to the filter that selects the data.');
  const about = bounded(renderedText(view, title), DESCRIPTION_LIMIT);
  const select = (wiki: WikiPort) => {
    const titles = runAgentFilter(wiki, filter);
    const error = filterError(wiki, titles);
    return error ? { error, titles: [] as string[] } : { titles: titles.filter((t) => showable(wiki, t, wiki.getFields(t)) && wiki.getFields(t)) };
  };
  return defineTool({
    name,
    description: `Data from ${sourceLine(view, title)}: ${about || '(no description)'} Without title: list its tiddlers (${LIST_LIMIT} a page, from offset). With title: read one of them (fields and text, from character offset).`,
    access: 'read',
    defaultMode: 'auto',
    parameters: z.object({
      title: z.optional(z.string().check(z.minLength(1), z.describe('A title from the list, to read that tiddler'))),
      offset: z._default(z.number().check(z.int(), z.minimum(0), z.describe('Listing: titles to skip. Reading: the character to start from')), 0),
    }),
    targets: ({ title: read, offset }, { wiki }) => (read ? [read] : select(wiki).titles.slice(offset, offset + LIST_LIMIT)),
    execute({ title: read, offset }, { wiki }) {
      const { titles, error } = select(wiki);
      if (error) return { ok: false, content: `The data source "${oneLine(title)}" has a broken filter (${error}); its plugin needs fixing.` };
      if (!read) {
        const shown = titles.slice(offset, offset + LIST_LIMIT);
        const head = `Data source "${oneLine(title)}": ${pageLine(titles.length, offset, shown.length, 'tiddlers')}`;
        return {
          content: [head, ...(shown.length ? [UNTRUSTED_NOTE] : []), ...shown.map((t) => tiddlerRef(t, wiki.getFields(t)))].join('\n'),
          titles: shown,
          found: titles.length,
        };
      }
      const data = titles.includes(read) ? wiki.getFields(read) : undefined;
      if (!data)
        return {
          ok: false,
          content: `"${oneLine(read)}" is not one of the tiddlers of the data source "${oneLine(title)}". List them: call ${name} without title.`,
        };
      const text = data.text ?? '';
      const part = text.slice(offset, offset + READ_LIMIT);
      const rest = text.length - offset - part.length;
      const more = rest > 0 ? `\n(${rest} characters follow: call again with offset=${offset + part.length})` : '';
      return { content: `${UNTRUSTED_NOTE}\n${tiddlerBlock(data, { full: true, text: part })}${more}`, read: { [read]: fingerprint(data) }, titles: [read] };
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Actions: action wikitext with typed variables (issue 9838)

function actionTool(view: WikiPort, title: string, name: string, fields: TiddlerFields): ToolDefinition {
  const schema = actionSchema(fields);
  const about = bounded(fields.description || fields.caption || '', DESCRIPTION_LIMIT);
  const source = sourceLine(view, title);
  const actions = actionText(fields);
  const variables = (args: unknown) => toVariables(schema, args);
  return defineTool({
    name,
    description: `An action of ${source}: ${about || '(no description)'}`,
    parameters: jsonSchemaParameters(schema),
    access: 'write',
    defaultMode: 'confirm',
    preview: (args) =>
      [
        `Run the action of ${source} (its wikitext can change any tiddler the agent may write)`,
        ...Object.entries(variables(args)).map(([k, v]) => `${k}: ${v}`),
      ].join('\n'),
    plan: (args, context) => planUserTool(name, actions, variables(args), context),
    targets: (args, context) => userToolTargets(name, actions, variables(args), context),
    execute: (args, context) => runUserTool(title, name, actions, '', variables(args), context),
  });
}

/**
 * The JSON Schema of an action's variables: named by `action-variables`, else by a `\parameters`
 * pragma at the start of the text (action-parameters.ts); `<name>/type|description|caption|default`
 * describe each, and a non-empty default in the pragma counts as one.
 */
export function actionSchema(fields: TiddlerFields): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const pragma = parametersPragma(fields.text ?? '');
  const defaults = new Map((pragma?.parameters ?? []).map((p) => [p.name, p.default]));
  const listed = fields['action-variables'] !== undefined && fields['action-variables'].trim() !== '';
  const names = listed ? parseTitleList(fields['action-variables']) : [...defaults.keys()];
  const where = listed ? 'field "action-variables"' : 'the \\parameters pragma';
  for (const variable of names) {
    if (!VARIABLE.test(variable)) throw new Error(`the variable "${variable}" (${where}) is not a usable name (letters, digits, "_" and "-").`);
    const kind = (fields[`${variable}/type`] ?? 'text').trim() || 'text';
    const type = TYPES[kind];
    if (!type) throw new Error(`the field "${variable}/type" must be one of ${Object.keys(TYPES).join(', ')} (it is "${kind}").`);
    const prop: JsonSchema = { type };
    const description = fields[`${variable}/description`] || fields[`${variable}/caption`];
    if (description) prop.description = bounded(description, VARIABLE_DESCRIPTION_LIMIT);
    const own = fields[`${variable}/default`];
    const fallback = own ?? defaults.get(variable);
    const from = own === undefined ? `the default of "${variable}" in the \\parameters pragma` : `the field "${variable}/default"`;
    if (fallback !== undefined) prop.default = typedDefault(from, type, fallback);
    else required.push(variable);
    properties[variable] = prop;
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The actions to run: the text without its `\parameters` pragma (the arguments come as variables of their own). */
export function actionText(fields: TiddlerFields): string {
  const text = fields.text ?? '';
  return parametersPragma(text)?.actions ?? text;
}

function typedDefault(from: string, type: JsonSchema['type'], value: string): unknown {
  if (type === 'string') return value;
  if (type === 'boolean' && (value === 'yes' || value === 'true' || value === 'no' || value === 'false')) return value === 'yes' || value === 'true';
  const n = Number(value);
  if (type !== 'boolean' && value.trim() && Number.isFinite(n) && (type === 'number' || Number.isInteger(n))) return n;
  throw new Error(`${from} is not a ${type} (it is "${value}").`);
}
