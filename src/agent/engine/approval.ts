/*\
Tool-call approval, enforced in code: deny patterns, then allow patterns, then what the user
allowed for this chat, then the tool's mode ("Always" sets the mode to auto in the agent). Patterns are regular
expressions tested case-insensitively against the serialized call `{"tool":…,"args":…}`.
`agent-approval` holds the rules as JSON: {"wiki-edit": {"mode": "confirm", "deny": ["\\$:/"]}, "*": {…}}.
A tool's own allow list and mode win over "*"; the deny patterns of "*" apply to every tool.
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
  allow: RegExp[];
  deny: RegExp[];
}
export type ApprovalConfig = Record<string, ApprovalRule>;

export type ApprovalDecision = { decision: 'allow' | 'deny' | 'confirm'; reason: string };

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
    out[tool] = { mode: rule.mode, allow: (rule.allow ?? []).map(compile), deny: (rule.deny ?? []).map(compile) };
  }
  return out;
}

export function serializeCall(tool: string, args: unknown): string {
  return JSON.stringify({ tool, args });
}

export function evaluateApproval(
  config: ApprovalConfig,
  tool: Pick<ToolDefinition, 'name' | 'access' | 'defaultMode'>,
  args: unknown,
  allowedInChat = false,
): ApprovalDecision {
  const own = config[tool.name];
  const any = config['*'];
  const call = serializeCall(tool.name, args);
  // The '*' deny patterns apply to every tool, even one with its own rule.
  const deny = [...(own?.deny ?? []), ...(any?.deny ?? [])].find((re) => re.test(call));
  if (deny) return { decision: 'deny', reason: `denied by the rule /${deny.source}/` };
  const allow = (own?.allow ?? any?.allow ?? []).find((re) => re.test(call));
  if (allow) return { decision: 'allow', reason: `allowed by the rule /${allow.source}/` };
  if (allowedInChat) return { decision: 'allow', reason: 'allowed in this chat by the user' };
  const mode = own?.mode ?? any?.mode ?? tool.defaultMode ?? (tool.access === 'write' ? 'confirm' : 'auto');
  return mode === 'auto' ? { decision: 'allow', reason: 'the tool runs without confirmation' } : { decision: 'confirm', reason: 'the tool needs confirmation' };
}
