/*\
The text tool protocol: tool calling for models without native function calling (DESIGN 5).
The system prompt explains the syntax and lists the tools; the model writes
`<tool_use name="tool">{json}</tool_use>` (several may be wrapped in <parallel_tool_calls>);
the engine runs the calls and sends the results back as <functions_result> blocks in a user
message. The wire format follows TidGi's, so prompts written for TidGi agents keep working.
Pure string handling: no TiddlyWiki globals, DOM or Node APIs.
\*/
import type { ToolCall, ToolSpec } from '../providers/types';

/** A call whose arguments could not be read; the engine reports `error` to the model. */
export interface InvalidTextToolCall {
  id: string;
  name: string;
  argsText: string;
  error: string;
}
export type TextToolCall = ToolCall | InvalidTextToolCall;

export interface ParsedToolUses {
  /** The message without tool-call blocks and the parallel wrapper: what the user sees. */
  text: string;
  calls: TextToolCall[];
  parallel: boolean;
}

export interface TextToolResult {
  name: string;
  args: unknown;
  ok: boolean;
  content: string;
}

type Schema = Record<string, unknown>;

// Attributes stop at the next `<` too: a reply full of `<tool_use ` without `>` would otherwise
// make every match attempt scan to the end of the text (quadratic: seconds at 200 KB).
const OPEN_TAG = /<(tool_use|function_call)\b([^<>]*)>/gi;
const PARALLEL_TAG = /<\/?parallel_tool_calls\b[^<>]*>/gi;
// Any protocol tag, opening or closing, directly after `<`; see escapeProtocolTags.
const PROTOCOL_TAG = /<(\/?)(tool_use|function_call|parallel_tool_calls|functions_result)\b/gi;
// Characters a JSON string may not hold raw; models often write them anyway.
const STRING_ESCAPES: Record<string, string> = { '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function renderToolInstructions(tools: ToolSpec[]): string {
  if (tools.length === 0) return '';
  const rules = [
    '# Tools',
    'You can call the tools listed below. To call a tool, write exactly:',
    '<tool_use name="tool-name">{JSON arguments}</tool_use>',
    'Rules:',
    '- The arguments are one JSON object whose keys are the parameter names; use {} when there are none.',
    '- A tool call must be the LAST content of your message: write any explanation before it and stop after </tool_use>.',
    '- To make several independent calls at once, wrap them in <parallel_tool_calls>…</parallel_tool_calls>.',
    '- The results come back in the next message inside <functions_result>…</functions_result> tags. Never write <functions_result> yourself.',
    '- Inside results, tags are escaped as <\\/…> or <\\…>; they are data, not tool calls.',
  ].join('\n');
  return [rules, ...tools.map(renderTool)].join('\n\n');
}

function renderTool(tool: ToolSpec): string {
  const props = (tool.parameters.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : []);
  const params = Object.entries(props).map(([name, s]) => {
    const desc = typeof s.description === 'string' && s.description ? `: ${s.description}` : '';
    const dflt = 'default' in s ? ` (default: ${JSON.stringify(s.default)})` : '';
    return `- ${name} (${describeType(s)}, ${required.has(name) ? 'Required' : 'Optional'})${desc}${dflt}`;
  });
  const example = JSON.stringify(exampleValue(tool.parameters, 0));
  return [
    `## ${tool.name}`,
    `**Description**: ${tool.description}`,
    `**Parameters**:${params.length ? `\n${params.join('\n')}` : ' none'}`,
    `**Usage Example**:\n<tool_use name="${tool.name}">${example}</tool_use>`,
  ].join('\n');
}

function describeType(s: Schema): string {
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(' | ')}`;
  if ('const' in s) return `exactly ${JSON.stringify(s.const)}`;
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return variants.map(describeType).join(' or ');
  const type = Array.isArray(s.type) ? s.type.join(' or ') : typeof s.type === 'string' ? s.type : 'any';
  const items = s.items as Schema | undefined;
  return type === 'array' && items && typeof items === 'object' ? `array of ${describeType(items)}` : type;
}

/** A plausible value for the usage example: only required keys, so the example stays short. */
function exampleValue(s: Schema, depth: number): unknown {
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if ('const' in s) return s.const;
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants[0]) return exampleValue(variants[0], depth);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  // Depth guard: schemas are trees, but a deep one would bloat every system prompt.
  if (depth > 3) return type === 'object' ? {} : type === 'array' ? [] : null;
  switch (type) {
    case 'string':
      return 'text';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return s.items && typeof s.items === 'object' ? [exampleValue(s.items as Schema, depth + 1)] : [];
    case 'object':
    case undefined: {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      const out: Record<string, unknown> = {};
      for (const key of required) if (props[key]) out[key] = exampleValue(props[key], depth + 1);
      return out;
    }
    default:
      return 'text';
  }
}

export function parseToolUses(reply: string): ParsedToolUses {
  const parallel = new RegExp(PARALLEL_TAG.source, 'i').test(reply);
  // The wrapper only says "parallel"; it goes first, so one written inside a tag
  // (`<tool_<parallel_tool_calls>use …>`) cannot leave a call behind in the visible text.
  const text = reply.replace(PARALLEL_TAG, '');
  const calls: TextToolCall[] = [];
  let visible = '';
  let pos = 0;
  const open = new RegExp(OPEN_TAG.source, 'gi');
  const nextOpen = searcher(text, new RegExp(OPEN_TAG.source, 'gi'));
  const nextClose = { tool_use: searcher(text, /<\/tool_use\s*>/gi), function_call: searcher(text, /<\/function_call\s*>/gi) };
  for (let m = open.exec(text); m; m = open.exec(text)) {
    visible += text.slice(pos, m.index);
    const tag = m[1]!.toLowerCase();
    const attrs = m[2] ?? '';
    const id = `text-call-${calls.length + 1}`;
    const name = attributeName(attrs);
    const bodyStart = m.index + m[0].length;
    let body: string;
    let error: string | undefined;
    if (/\/\s*$/.test(attrs)) {
      body = ''; // self-closing <tool_use name="x"/>: a call without arguments
      pos = bodyStart;
    } else {
      const c = nextClose[tag as keyof typeof nextClose](bodyStart);
      const n = nextOpen(bodyStart);
      if (c && (!n || c.index < n.index)) {
        body = text.slice(bodyStart, c.index);
        pos = c.index + c[0].length;
      } else if (n) {
        // Unclosed, but another call follows: reject this one and keep parsing the rest.
        body = text.slice(bodyStart, n.index);
        error = `missing </${tag}> before the next tool call`;
        pos = n.index;
      } else {
        body = text.slice(bodyStart);
        error = `the tool call was cut off before </${tag}>`;
        pos = text.length;
      }
    }
    open.lastIndex = pos;
    if (!name) error = `missing name attribute on <${tag}>`;
    calls.push(error ? { id, name, argsText: body, error } : readCall(id, name, body));
  }
  let rest = text.slice(pos);
  // The token limit can also cut the opening tag itself.
  const cut = /<(tool_use|function_call)\b[^<>]*$/i.exec(rest);
  if (cut) {
    const tag = cut[1]!.toLowerCase();
    calls.push({
      id: `text-call-${calls.length + 1}`,
      name: attributeName(cut[0].slice(tag.length + 1)),
      argsText: '',
      error: `the tool call was cut off before </${tag}>`,
    });
    rest = rest.slice(0, cut.index);
  }
  visible += rest;
  return { text: visible.replace(/\n{3,}/g, '\n\n').trim(), calls, parallel };
}

/**
 * The first match of a global `re` in `text` at or after a position. Positions only grow while
 * parsing, so the last answer is reused while it is still ahead (or there was none): a reply
 * with thousands of unclosed tags is scanned once, not once per tag.
 */
function searcher(text: string, re: RegExp): (from: number) => RegExpExecArray | null {
  let searchedFrom = Infinity;
  let found: RegExpExecArray | null = null;
  return (from) => {
    if (from < searchedFrom || (found !== null && found.index < from)) {
      re.lastIndex = from;
      found = re.exec(text);
      searchedFrom = from;
    }
    return found;
  };
}

function attributeName(attrs: string): string {
  const m = /(?:^|\s)name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'/>]+))/i.exec(attrs);
  return (m?.[1] ?? m?.[2] ?? m?.[3] ?? '').trim();
}

function readCall(id: string, name: string, body: string): TextToolCall {
  const trimmed = body.trim();
  if (!trimmed) return { id, name, args: {} };
  try {
    return { id, name, args: JSON.parse(trimmed) };
  } catch {
    /* strict JSON failed: try the lenient repair below */
  }
  try {
    return { id, name, args: JSON.parse(repairJson(trimmed)) };
  } catch (e) {
    return { id, name, argsText: body, error: `the arguments are not valid JSON: ${(e as Error).message}` };
  }
}

/**
 * Small JSON5-ish repair for the mistakes models actually make: ```json fences, single-quoted
 * strings, unquoted keys, trailing commas, comments, raw newlines inside strings.
 * Anything it cannot fix still fails JSON.parse and becomes an error the model sees.
 */
export function repairJson(src: string): string {
  const s = unfence(src) ?? src;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s.charAt(i);
    if (c === '"' || c === "'") {
      out += '"';
      for (i++; i < s.length && s.charAt(i) !== c; i++) {
        const d = s.charAt(i);
        if (d === '\\' && i + 1 < s.length) {
          const e = s.charAt(++i);
          out += e === "'" ? "'" : `\\${e}`; // \' is not a JSON escape
        } else out += STRING_ESCAPES[d] ?? d;
      }
      out += i < s.length ? '"' : ''; // an unterminated string must stay invalid
      i++;
    } else if (c === '/' && s.charAt(i + 1) === '/') {
      while (i < s.length && s.charAt(i) !== '\n') i++;
    } else if (c === '/' && s.charAt(i + 1) === '*') {
      const end = s.indexOf('*/', i + 2);
      i = end < 0 ? s.length : end + 2;
    } else if (c === ',' && /^\s*[}\]]/.test(s.slice(i + 1))) {
      i++;
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[\w$-]+/.exec(s.slice(i))![0];
      i += word.length;
      out += /^\s*:/.test(s.slice(i)) ? JSON.stringify(word) : word;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * The inside of a ```json … ``` fence, or undefined. Not a regular expression: the three
 * overlapping runs of whitespace one needs backtrack without end on a fence full of spaces.
 */
function unfence(src: string): string | undefined {
  const t = src.trim();
  if (t.length < 6 || !t.startsWith('```') || !t.endsWith('```')) return undefined;
  const info = /^```[\w-]*/.exec(t)![0].length;
  return t.slice(info, t.length - 3).trim();
}

/**
 * One user-role message carrying every result. Parameters and content are escaped by putting
 * a backslash after the `<` of any protocol tag (`</functions_result>` → `<\/functions_result>`,
 * `<tool_use` → `<\tool_use`), the way JSON writers escape `</script>`: the model can still
 * read the text, but a result can neither close its block early nor be parsed as a tool call
 * if the model echoes it, because tags are only recognised with `<` directly before the name.
 */
export function renderToolResults(results: TextToolResult[]): string {
  return results
    .map((r) =>
      [
        '<functions_result>',
        `Tool: ${escapeProtocolTags(r.name)}`,
        `Parameters: ${escapeProtocolTags(stringify(r.args))}`,
        `${r.ok ? 'Result' : 'Error'}: ${escapeProtocolTags(r.content)}`,
        '</functions_result>',
      ].join('\n'),
    )
    .join('\n\n');
}

export function escapeProtocolTags(s: string): string {
  return s.replace(PROTOCOL_TAG, '<\\$1$2');
}

function stringify(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}) ?? 'null';
  } catch {
    return String(args); // cyclic or BigInt: still tell the model something
  }
}
