/*\
Tool-call approval, enforced in code: deny patterns, then allow patterns, then what the user
allowed for this chat, then the tool's mode ("Always allow" adds an allow pattern or sets the
mode to auto in the agent: engine/approval-rules.ts).
Patterns are regular expressions, tested case-insensitively against what a call touches:
for wiki tools the titles it reads or writes (ToolDefinition.targets), for other tools its
arguments as JSON. A deny pattern that matches any target denies the call; allow patterns
approve it only when every target matches one of them (anchor them, e.g. "^Drafts/").
`agent-approval` holds the rules as JSON: {"wiki-edit": {"mode": "confirm", "allow": ["^Drafts/"]}, "*": {…}}.
A tool's own allow list and mode win over "*"; the deny patterns of "*" apply to every tool.
A confirm-only tool (ToolDefinition.confirmOnly, e.g. edit-agent-definition) always asks:
only deny patterns apply to it, never allow patterns, modes or "allowed in this chat".
\*/
import * as z from 'zod/mini';
import { ConfigError } from '../store/schemas';
import type { ToolDefinition } from '../tools/tool';

const RuleSchema = z.object({
  mode: z.optional(z.enum(['auto', 'confirm'])),
  allow: z.optional(z.array(z.string())),
  deny: z.optional(z.array(z.string())),
});
const ConfigSchema = z.record(z.string(), RuleSchema);

export interface ApprovalRule {
  mode?: 'auto' | 'confirm';
  /** Absent: the allow patterns of "*" apply. */
  allow?: RegExp[];
  /** The allow patterns as written (RegExp.source escapes "/"), to name the one that matched. */
  allowText?: string[];
  deny: RegExp[];
}
export type ApprovalConfig = Record<string, ApprovalRule>;

/**
 * The user's rule that let a call run without asking, when the call would have asked without
 * it: recorded on the call's tool message (`approval-rule`) so the chat can say so and revoke
 * it. `tool` is the rule's key in `agent-approval` (a tool's name or "*"); `patterns` are the
 * allow patterns that matched what the call touches (`on`: its titles or its arguments).
 */
export type AllowingRule =
  | { kind: 'allow'; tool: string; patterns: string[]; on: 'titles' | 'arguments'; agent?: string }
  | { kind: 'mode'; tool: string; agent?: string }
  | { kind: 'chat'; tool: string };

export type ApprovalDecision = { decision: 'allow' | 'deny' | 'confirm'; reason: string; rule?: AllowingRule };

export function parseApprovalConfig(json: string | undefined, agentTitle: string): ApprovalConfig {
  if (!json?.trim()) return {};
  const fail = (why: string) => new ConfigError(agentTitle, 'agent-approval', `Agent definition "${agentTitle}": the field "agent-approval" ${why}.`);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw fail(`is not valid JSON (${(e as Error).message})`);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) throw fail(`must map tool names to {"mode": "auto"|"confirm", "allow": [regex…], "deny": [regex…]}`);
  const out: ApprovalConfig = {};
  for (const [tool, rule] of Object.entries(parsed.data)) {
    const compile = (source: string) => {
      try {
        return new RegExp(source, 'i');
      } catch {
        throw fail(`has an invalid regular expression for "${tool}": ${source}`);
      }
    };
    out[tool] = { mode: rule.mode, allow: rule.allow?.map(compile), allowText: rule.allow, deny: (rule.deny ?? []).map(compile) };
  }
  return out;
}

/** Whether any allow or deny pattern applies to the tool (else its targets need not be worked out). */
export function hasPatterns(config: ApprovalConfig, tool: string): boolean {
  const own = config[tool];
  const any = config['*'];
  return !!(own?.deny.length || any?.deny.length || (own?.allow ?? any?.allow)?.length);
}

export function evaluateApproval(
  config: ApprovalConfig,
  tool: Pick<ToolDefinition, 'name' | 'access' | 'defaultMode' | 'confirmOnly'>,
  args: unknown,
  allowedInChat = false,
  /**
   * The titles the call reads or writes; undefined: the patterns test the arguments; null:
   * the tool could not tell, so deny patterns test the arguments, no allow pattern applies, and
   * with deny patterns the call needs confirmation.
   */
  targets?: string[] | null,
): ApprovalDecision {
  const own = config[tool.name];
  const any = config['*'];
  const subjects = targets ?? [JSON.stringify(args ?? {})];
  const what = (subject: string) => (targets ? `"${subject}"` : 'the arguments');
  // The '*' deny patterns apply to every tool, even one with its own rule.
  for (const re of [...(own?.deny ?? []), ...(any?.deny ?? [])]) {
    const hit = subjects.find((subject) => re.test(subject));
    if (hit !== undefined) return { decision: 'deny', reason: `denied by the rule /${re.source}/ (it matches ${what(hit)})` };
  }
  if (tool.confirmOnly) return { decision: 'confirm', reason: 'the tool always needs confirmation' };
  // Deny rules are about titles; a call whose titles cannot be known before it runs (a search
  // by meaning, a filter that fails to parse) could reach a denied one: the user decides.
  if (targets === null && (own?.deny?.length || any?.deny?.length))
    return { decision: 'confirm', reason: 'deny rules apply and the titles this call reaches cannot be known before it runs' };
  const from = own?.allow ? own : any;
  const allow = from?.allow ?? [];
  const builtIn = tool.defaultMode ?? (tool.access === 'write' ? 'confirm' : 'auto');
  const mode = own?.mode ?? any?.mode ?? builtIn;
  // A rule is named only where it made a difference: without it the call would have asked.
  const named = <R extends AllowingRule>(rule: R) => (mode === 'confirm' ? { rule } : {});
  if (targets !== null && allow.length && subjects.length && subjects.every((subject) => allow.some((re) => re.test(subject)))) {
    const matched = [...new Set(subjects.map((subject) => allow.findIndex((re) => re.test(subject))))];
    const key = own?.allow ? tool.name : '*';
    const patterns = matched.map((i) => from?.allowText?.[i] ?? allow[i]!.source);
    return {
      decision: 'allow',
      reason: `allowed by the rule${matched.length > 1 ? 's' : ''} ${matched.map((i) => `/${allow[i]!.source}/`).join(', ')}`,
      ...named({ kind: 'allow', tool: key, patterns, on: targets ? 'titles' : 'arguments' }),
    };
  }
  if (allowedInChat) return { decision: 'allow', reason: 'allowed in this chat by the user', ...named({ kind: 'chat', tool: tool.name }) };
  if (mode === 'confirm') return { decision: 'confirm', reason: 'the tool needs confirmation' };
  const key = own?.mode ? tool.name : '*';
  return { decision: 'allow', reason: 'the tool runs without confirmation', ...(builtIn === 'confirm' ? { rule: { kind: 'mode', tool: key } } : {}) };
}
