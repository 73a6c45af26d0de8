/*\
The user's approval rules as the chat's shortcuts change them: "Always allow" adds the rule
its scope says to the chat's agent (`agent-approval`), "Allow in this chat" lists the tool
in the chat's `agent-allowed-tools`, and a revoke removes exactly the rule a call's message
names (`approval-rule`) from where it lives. A scope is checked against the call before any
of this runs (`scopeProblem`), so a request that names a rule wider or other than it says
is refused and changes nothing.
\*/
import { CHAT_ALLOWED_TOOLS } from '../../engine/loop';
import { addScopedRule, parseAllowingRule, prefixProblem, readRawConfig, removeRule, ruleInForce, type ApprovalScope } from '../../engine/approval-rules';
import type { ChatStore } from '../../store/chat-store';
import { AGENT_TAG } from '../../store/schemas';
import { parseTitleList, stringifyTitleList, type WikiPort } from '../../store/wiki-port';
import { RunnerError } from '../chat-runner';
import { refuse } from '../refusals';

const PREFIX_PROBLEMS = {
  blank: 'The prefix is empty: to allow every call of the tool, choose the whole tool.',
  long: 'The prefix must be one line of at most 200 characters.',
  'not-matching': 'Every title this call touches must start with the prefix (else the rule would not cover this call).',
} as const;

/** A scope as the request gave it, checked for shape only: `{kind: "tiddler"}`, `{kind: "prefix", prefix}` or `{kind: "tool"}`. */
export function parseScope(value: unknown): ApprovalScope {
  const v = value as Record<string, unknown> | null;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if (v.kind === 'tool' || v.kind === 'tiddler') return { kind: v.kind };
    if (v.kind === 'prefix' && typeof v.prefix === 'string') return { kind: 'prefix', prefix: v.prefix };
  }
  throw refuse('bad-request', 'scope-invalid');
}

/** Why a scope cannot make a rule for a call that touches `titles` (none: it can). */
export function scopeProblem(scope: ApprovalScope, titles: string[]): string | undefined {
  if (scope.kind === 'tool') return undefined;
  if (!titles.length) return 'This call touches no titles that a rule could name: choose the whole tool.';
  if (scope.kind === 'prefix') {
    const problem = prefixProblem(scope.prefix, titles);
    return problem && PREFIX_PROBLEMS[problem];
  }
  return undefined;
}

export class RuleBook {
  constructor(
    private readonly store: ChatStore,
    private readonly wiki: WikiPort,
  ) {}

  /** "Allow in this chat": the chat lists the tool. */
  allowInChat(chat: string, tool: string): void {
    const allowed = parseTitleList(this.wiki.getFields(chat)?.[CHAT_ALLOWED_TOOLS]);
    if (!allowed.includes(tool)) this.store.updateChat(chat, { [CHAT_ALLOWED_TOOLS]: stringifyTitleList([...allowed, tool]) });
  }

  /** "Always allow": the scope's rule joins the chat's agent's `agent-approval`, its other rules kept. */
  allowAlways(chat: string, tool: string, scope: ApprovalScope, titles: string[]): void {
    const agent = this.agentFields(this.wiki.getFields(chat)?.agent);
    const config = agent && readRawConfig(agent['agent-approval']);
    if (!agent || !config) return; // a broken config is reported by the turn itself
    this.wiki.putTiddler({ ...agent, 'agent-approval': JSON.stringify(addScopedRule(config, tool, scope, titles)) });
  }

  /** Remove the rule that let `message` run without asking; `revoked` is false when it was not there any more. */
  revoke(chat: string, message: string): { revoked: boolean } {
    if (typeof message !== 'string' || !message) throw new RunnerError('bad-request', 'No message was named.');
    const fields = this.wiki.getFields(message);
    if (!fields || fields['agent-chat'] !== chat) throw refuse('not-found', 'not-a-message', { message, chat });
    const rule = parseAllowingRule(fields['approval-rule']);
    if (!rule) throw refuse('conflict', 'no-rule');
    if (rule.kind === 'chat') {
      const allowed = parseTitleList(this.wiki.getFields(chat)?.[CHAT_ALLOWED_TOOLS]);
      if (!allowed.includes(rule.tool)) return { revoked: false };
      this.store.updateChat(chat, { [CHAT_ALLOWED_TOOLS]: allowed.length > 1 ? stringifyTitleList(allowed.filter((t) => t !== rule.tool)) : undefined });
      return { revoked: true };
    }
    // The rule lives in the agent that made the call; only an agent definition is ever written.
    const agent = this.agentFields(rule.agent ?? this.wiki.getFields(chat)?.agent);
    if (!agent) throw refuse('conflict', 'rule-agent-gone', { agent: rule.agent ?? '' });
    const config = readRawConfig(agent['agent-approval']);
    if (!config) throw refuse('conflict', 'rules-invalid', { agent: agent.title ?? '' });
    if (!ruleInForce(config, rule)) return { revoked: false };
    this.wiki.putTiddler({ ...agent, 'agent-approval': JSON.stringify(removeRule(config, rule)) });
    return { revoked: true };
  }

  private agentFields(title: string | undefined) {
    const fields = title ? this.wiki.getFields(title) : undefined;
    return fields && parseTitleList(fields.tags).includes(AGENT_TAG) ? fields : undefined;
  }
}
