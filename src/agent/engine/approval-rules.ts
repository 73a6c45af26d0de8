/*\
The rules "Always allow" writes into an agent's `agent-approval`, and their revocation. A
scope says what the rule covers: the exact titles the call touches ("tiddler"), titles that
start with a prefix the user saw and edited ("prefix"), or every call of the tool ("tool",
mode auto). Titles become anchored, escaped regular expressions, so a rule allows nothing
but what its words say (engine/approval.ts tests them case-insensitively). Pure functions
over the parsed JSON: the runner writes the result, the chat describes a rule with them.
\*/
import type { AllowingRule } from './approval';

export type ApprovalScope = { kind: 'tool' } | { kind: 'tiddler' } | { kind: 'prefix'; prefix: string };

/** `agent-approval` as stored: per tool (or "*") a mode and allow / deny pattern lists. */
export type RawApprovalConfig = Record<string, { mode?: string; allow?: string[]; deny?: string[] }>;

/** The longest prefix a scope may name (a title can be long; a prefix is what it starts with). */
export const MAX_PREFIX = 200;

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What a pattern says, in the terms a person uses: one title, titles with a prefix, or a regular expression. */
export type PatternMeaning = { kind: 'title'; title: string } | { kind: 'prefix'; prefix: string } | { kind: 'regex'; source: string };

export function patternMeaning(source: string): PatternMeaning {
  const literal = (body: string) => {
    const text = body.replace(/\\(.)/g, '$1');
    return escapeRegExp(text) === body ? text : undefined;
  };
  const exact = /^\^(.*)\$$/s.exec(source);
  const title = exact ? literal(exact[1]!) : undefined;
  if (title !== undefined) return { kind: 'title', title };
  const prefix = source.startsWith('^') ? literal(source.slice(1)) : undefined;
  if (prefix) return { kind: 'prefix', prefix };
  return { kind: 'regex', source };
}

/** A prefix for "tiddlers like it": what every title shares, up to its last "/" when it has one. */
export function suggestPrefix(titles: string[]): string {
  if (!titles.length) return '';
  let common = titles[0]!;
  for (const title of titles.slice(1)) {
    let i = 0;
    while (i < common.length && i < title.length && common[i]!.toLowerCase() === title[i]!.toLowerCase()) i++;
    common = common.slice(0, i);
  }
  const slash = common.lastIndexOf('/');
  return slash > 0 ? common.slice(0, slash + 1) : common;
}

/** Why a prefix cannot make a rule for these titles (blank, too long, a line break, not what they start with), if it cannot. */
export function prefixProblem(prefix: unknown, titles: string[]): 'blank' | 'long' | 'not-matching' | undefined {
  if (typeof prefix !== 'string' || !prefix.trim()) return 'blank';
  if (prefix.length > MAX_PREFIX || /[\r\n]/.test(prefix)) return 'long';
  const lower = prefix.toLowerCase();
  return titles.every((t) => t.toLowerCase().startsWith(lower)) ? undefined : 'not-matching';
}

/** The rule a scope adds, as the JSON fragment it merges into `agent-approval`. */
export function scopedRule(tool: string, scope: ApprovalScope, titles: string[]): RawApprovalConfig {
  if (scope.kind === 'tool') return { [tool]: { mode: 'auto' } };
  const patterns = scope.kind === 'tiddler' ? [...new Set(titles)].map((t) => `^${escapeRegExp(t)}$`) : [`^${escapeRegExp(scope.prefix)}`];
  return { [tool]: { allow: patterns } };
}

/**
 * `config` with the scope's rule added, its other rules kept. A tool's own allow list replaces
 * the "*" one (engine/approval.ts), so the first own list starts with the "*" patterns: what
 * they allowed before stays allowed.
 */
export function addScopedRule(config: RawApprovalConfig, tool: string, scope: ApprovalScope, titles: string[]): RawApprovalConfig {
  const out: RawApprovalConfig = { ...config };
  const own = { ...out[tool] };
  const rule = scopedRule(tool, scope, titles)[tool]!;
  if (rule.mode) own.mode = rule.mode;
  else {
    const allow = own.allow ?? [...(config['*']?.allow ?? [])];
    own.allow = [...allow, ...rule.allow!.filter((p) => !allow.includes(p))];
  }
  out[tool] = own;
  return out;
}

/** Whether the agent's rule that allowed a call is still there (every pattern of it, or its mode auto). */
export function ruleInForce(config: RawApprovalConfig, rule: Exclude<AllowingRule, { kind: 'chat' }>): boolean {
  const entry = config[rule.tool];
  return rule.kind === 'mode' ? entry?.mode === 'auto' : !!entry?.allow && rule.patterns.every((p) => entry.allow!.includes(p));
}

/** `config` without the rule (its patterns, or its mode auto); an entry left empty goes, so "*" applies again. */
export function removeRule(config: RawApprovalConfig, rule: Exclude<AllowingRule, { kind: 'chat' }>): RawApprovalConfig {
  const out: RawApprovalConfig = { ...config };
  const entry = { ...out[rule.tool] };
  if (rule.kind === 'mode') delete entry.mode;
  else {
    entry.allow = (entry.allow ?? []).filter((p) => !rule.patterns.includes(p));
    if (!entry.allow.length) delete entry.allow;
  }
  if (Object.keys(entry).length) out[rule.tool] = entry;
  else delete out[rule.tool];
  return out;
}

/** A message's `approval-rule`, or undefined when it holds none (or not one of these shapes). */
export function parseAllowingRule(json: unknown): AllowingRule | undefined {
  if (typeof json !== 'string' || !json) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  if (!r || typeof r !== 'object' || typeof r.tool !== 'string' || !r.tool) return undefined;
  const agent = typeof r.agent === 'string' && r.agent ? { agent: r.agent } : {};
  if (r.kind === 'chat') return { kind: 'chat', tool: r.tool };
  if (r.kind === 'mode') return { kind: 'mode', tool: r.tool, ...agent };
  if (r.kind === 'allow' && Array.isArray(r.patterns) && r.patterns.length && r.patterns.every((p) => typeof p === 'string')) {
    return { kind: 'allow', tool: r.tool, patterns: r.patterns as string[], on: r.on === 'arguments' ? 'arguments' : 'titles', ...agent };
  }
  return undefined;
}

/** `agent-approval` as stored, or undefined when it is not a JSON object (a broken config is the turn's to report). */
export function readRawConfig(json: string | undefined): RawApprovalConfig | undefined {
  if (!json?.trim()) return {};
  try {
    const raw = JSON.parse(json) as unknown;
    return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as RawApprovalConfig) : undefined;
  } catch {
    return undefined;
  }
}
