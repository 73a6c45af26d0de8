/*\
The one plain line a tool call shows in the chat, in the UI's language: what the call did
("Searched for “garden”: 3 tiddlers", "Changed Demo notes", "Could not change Demo notes: …"),
worked out from what its message stores: `tool-name`, `tool-args`, `tool-status`, the result,
and for the tools that list tiddlers `tool-titles` and `tool-found`. Pure: it returns parts
(words, a tiddler title to link, a name to show as code, a value the model chose) that
tool-step-view.ts renders, titles as TiddlyWiki links and never as wikitext.

The UI strings are `Step/<tool>` (what a call did) and `Step/<tool>/Do` (the same in the form
"Could not $do$", "Not allowed to $do$" take); tools without their own (user tools, plugins'
tools) say "Used the tool …", MCP tools "Called <tool> on <server>".
Also here: the result as plain text for the details fold (the markup the model reads around
tiddlers taken off), and the cut of a long text.
\*/
import { UNTRUSTED_NOTE } from '../tools/format';
import type { ShownOutcome } from './tool-outcome';

/** Words; a tiddler title (a link); a name (a tool, a filter: code); a value the model chose; why a call failed. */
export type StepPart = { text: string } | { title: string } | { code: string } | { value: string } | { reason: string };

export interface ToolStepInput {
  name: string;
  status: string;
  /** `tool-args`: the call's arguments as JSON. */
  args: string;
  /** The message's text: the result (or, while the call waits, its preview). */
  result: string;
  /** `tool-titles` and `tool-found`: what a listing tool found. */
  titles?: string[];
  found?: number;
  /** `approval`: the user's decision on a call that waited for it. */
  approval?: string;
  /** What became of a call that did not run to its end (tool-outcome.ts), said instead of its English result. */
  outcome?: ShownOutcome;
  /** The `name` of every MCP server of the wiki, to tell `mcp-<server>-<tool>` apart. */
  mcpServers?: readonly string[];
}

export interface ToolStep {
  line: StepPart[];
  /** The tiddlers the call listed, to link after the line (the first MAX_LINKED). */
  titles: string[];
  /** How many more it found than are linked. */
  more: number;
}

type Lingo = (key: string) => string;
type Vars = Record<string, StepPart>;

/** Titles linked after a line; the rest are counted. */
export const MAX_LINKED = 10;
/** Characters of a failure's reason on the line (the whole result is in the details). */
const REASON_CHARS = 300;
/** Characters of a question or task the model wrote, on the line. */
const VALUE_CHARS = 80;

/** Tools that list tiddlers: their line says how many they found. */
const LISTING = new Set(['wiki-search', 'wiki-list', 'wiki-backlinks', 'wiki-toc', 'wiki-recent']);
const BUILT_IN = new Set([
  ...LISTING,
  'wiki-read',
  'wiki-get-errors',
  'wiki-create',
  'wiki-update',
  'wiki-edit',
  'wiki-rename',
  'wiki-delete',
  'summary',
  'ask-question',
  'alarm-clock',
  'schedule-task',
  'list-schedules',
  'remove-schedule',
  'spawn-agent',
  'edit-agent-definition',
  'web-fetch',
]);

export function toolStep(input: ToolStepInput, lingo: Lingo): ToolStep {
  const args = parseArgs(input.args);
  const { key, vars } = describe(input.name, args, input.mcpServers ?? []);
  const phrase = (suffix: string) => fill(lingo(`Step/${key}${suffix}`), vars);
  const reason = (prefix?: RegExp): StepPart => ({ reason: shorten(input.result.replace(prefix ?? /^$/, '')) });
  const wrap = (template: string, extra: Vars = {}) => fill(lingo(template), { do: phrase('/Do'), ...extra });
  let line: StepPart[];
  let titles: string[] = [];
  let more = 0;
  const outcome = input.status === 'ok' ? undefined : input.outcome;
  if (outcome === 'user-denied') line = wrap('Step/DeniedByYou');
  else if (outcome === 'timeout') line = wrap('Step/Timeout');
  else if (outcome) line = wrap('Step/Denied', { reason: { reason: lingo(`ToolOutcome/${outcome}`) } });
  else
    switch (input.status) {
      case 'ok': {
        line = phrase('');
        if (LISTING.has(input.name) && (input.found !== undefined || input.titles)) {
          const found = input.found ?? input.titles!.length;
          const count = fill(lingo(found === 0 ? 'Step/Count/0' : found === 1 ? 'Step/Count/1' : 'Step/Count/n'), { count: { text: String(found) } });
          line = fill(lingo('Step/Found'), { step: line, count });
          titles = (input.titles ?? []).slice(0, MAX_LINKED);
          more = Math.max(0, found - titles.length);
        }
        break;
      }
      case 'pending':
        line = wrap('Step/Pending');
        break;
      case 'timeout':
        line = wrap('Step/Timeout');
        break;
      case 'denied':
        line = input.approval === 'deny' ? wrap('Step/DeniedByYou') : wrap('Step/Denied', { reason: reason(/^Not allowed:\s*/) });
        break;
      default:
        // The write gate's refusal: the call was not allowed, it did not fail.
        line = /^Refused:/.test(input.result) ? wrap('Step/Refused', { reason: reason(/^Refused:\s*/) }) : wrap('Step/Failed', { reason: reason() });
    }
  return { line, titles, more };
}

/** The phrase key of a call and the values its phrases name. */
function describe(name: string, args: Record<string, unknown>, mcpServers: readonly string[]): { key: string; vars: Vars } {
  const str = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : '');
  const title = { title: str('title') };
  switch (name) {
    case 'wiki-search':
      return str('query').trim()
        ? { key: name, vars: { query: { value: shorten(str('query').trim(), VALUE_CHARS) } } }
        : { key: `${name}/filter`, vars: { filter: { code: str('filter').trim() } } };
    case 'wiki-list':
      return { key: name, vars: { filter: { code: str('filter').trim() || '[!is[system]sort[title]]' } } };
    case 'wiki-toc':
      return { key: name, vars: { title: { title: str('root') } } };
    case 'wiki-rename':
      return { key: name, vars: { title, to: { title: str('newTitle') } } };
    case 'wiki-update':
      return { key: 'wiki-edit', vars: { title } };
    case 'ask-question':
      return { key: name, vars: { question: { value: shorten(str('question'), VALUE_CHARS) } } };
    case 'spawn-agent':
      return { key: name, vars: { task: { value: shorten(str('task'), VALUE_CHARS) } } };
    case 'manage-todo':
      return { key: `${name}/${str('operation') === 'read' ? 'read' : 'write'}`, vars: {} };
    case 'web-fetch':
      return { key: name, vars: { host: { value: hostOf(str('url')) } } };
  }
  if (BUILT_IN.has(name)) return { key: name, vars: { title } };
  if (name.startsWith('mcp-')) {
    const rest = name.slice(4);
    // Server names may hold "-": the longest server of the wiki the name starts with; else up to the first "-".
    const server = [...mcpServers].sort((a, b) => b.length - a.length).find((s) => rest === s || rest.startsWith(`${s}-`)) ?? rest.split('-')[0]!;
    const tool = rest.slice(server.length + 1);
    // `mcp-<server>` alone: the server could not be reached (mcp-tools.ts, unavailableServerTool).
    return tool ? { key: 'mcp', vars: { tool: { code: tool }, server: { code: server } } } : { key: 'mcp-server', vars: { server: { code: server } } };
  }
  return { key: 'tool', vars: { tool: { code: name } } };
}

/** A template with `$name$` placeholders as parts; a placeholder may stand for several parts. */
export function fill(template: string, vars: Record<string, StepPart | StepPart[]>): StepPart[] {
  const parts: StepPart[] = [];
  for (const [i, piece] of template.split(/\$([a-z]+)\$/).entries()) {
    if (i % 2 === 0) {
      if (piece) parts.push({ text: piece });
      continue;
    }
    const value = vars[piece];
    if (value) parts.push(...(Array.isArray(value) ? value : [value]));
    else parts.push({ text: `$${piece}$` });
  }
  return parts;
}

function parseArgs(json: string): Record<string, unknown> {
  try {
    const args = JSON.parse(json) as unknown;
    return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url.trim()).host || url.trim();
  } catch {
    return shorten(url.trim(), VALUE_CHARS);
  }
}

/** One line of at most `max` characters. */
function shorten(text: string, max = REASON_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&lt;': '<', '&gt;': '>', '&#10;': '\n', '&amp;': '&' };
const decode = (value: string) => value.replace(/&(quot|lt|gt|#10|amp);/g, (m) => ENTITIES[m]!);
/** The attribute `name` of a tag's attribute text. */
const attribute = (attrs: string, name: string) => decode(new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? '');

/**
 * A result as a person reads it: the markup the model gets around each tiddler
 * (`<tiddler-data title="…" modified="…">…</tiddler-data>`, tools/format.ts) and a web page
 * (`<web-content url="…">`) becomes a line with the title or address, and the note that tells
 * the model the content is data goes.
 */
export function readableResult(text: string): string {
  return text
    .split('\n')
    .filter((line) => line !== UNTRUSTED_NOTE)
    .map((line) =>
      line
        .replace(/^<tiddler-data\b([^>]*?)\/>$/, (_m, attrs: string) => `• ${attribute(attrs, 'title')}`)
        .replace(
          /^<tiddler-data\b([^>]*)>$/,
          (_m, attrs: string) => `▸ ${attribute(attrs, 'title')}${attribute(attrs, 'view') ? ` (${attribute(attrs, 'view')})` : ''}`,
        )
        .replace(/^<web-content\b([^>]*)>$/, (_m, attrs: string) => `▸ ${attribute(attrs, 'url')}`)
        .replace(/^<\/(tiddler-data|web-content)>$/, '')
        .replace(/<\\\/(tiddler-data|web-content)/gi, '</$1'),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The start of a long text (at most `chars` characters and `lines` lines), and whether it was cut. */
export function cutText(text: string, chars = 1500, lines = 24): { text: string; cut: boolean } {
  let end = Math.min(text.length, chars);
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0 || at >= end) break;
    if (n === lines - 1) end = at;
  }
  return end < text.length ? { text: text.slice(0, end).trimEnd(), cut: true } : { text, cut: false };
}
