/*\
What the approval step asks a tool about one call, and what it records: the titles the call
touches, the changes it plans, its preview, the text the user may edit on the card, the
message that puts it to the user, the rule that let it run and the user's version of its
text. A tool's own error never escapes here: it becomes "no targets", a refusal or a note.

Shared by a turn's calls (tool-phase.ts) and calls from outside a turn
(runner/services/external-session.ts), so both are judged and shown alike.
\*/
import { CONFIRM_ONLY_CHOICES } from '../store/approval-choices';
import type { NewMessage } from '../store/chat-store';
import { userVersion } from '../store/user-version';
import type { ToolContext, ToolDefinition } from '../tools/tool';
import { errorText } from '../tools/write-gate';
import type { AllowingRule } from './approval';
import type { ToolCallRequest } from './tool-executor';

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;
/** Chat field: tools the user allowed "in this chat". */
export const CHAT_ALLOWED_TOOLS = 'agent-allowed-tools';

/** The rule that let a call run without asking, as its message records it: an agent's rule names the agent. */
export function recordedRule(rule: AllowingRule | undefined, agent: string): AllowingRule | undefined {
  return rule && rule.kind !== 'chat' ? { ...rule, agent } : rule;
}

/**
 * The titles a call touches, for the approval patterns (undefined: the tool has no targets,
 * patterns test its arguments; null: it failed to tell, see evaluateApproval).
 */
export function callTargets(tool: ToolDefinition, args: unknown, context: () => ToolContext): string[] | null | undefined {
  if (!tool.targets) return undefined;
  try {
    const parsed = tool.parameters.safeParse(args);
    return parsed.success ? tool.targets(parsed.data, context()) : null;
  } catch {
    return null;
  }
}

/** The call's planned changes as JSON, when the tool can tell them, or why it would be refused. */
export function plannedChanges(tool: ToolDefinition, args: unknown, context: () => ToolContext): { changes?: string } | { refused: string } {
  const parsed = tool.parameters.safeParse(args);
  if (!tool.plan || !parsed.success) return {};
  try {
    return { changes: JSON.stringify(tool.plan(parsed.data, context())) };
  } catch (e) {
    return { refused: errorText(e) };
  }
}

/** The tiddler whose text the user may edit on the card before allowing the call, if the tool allows it. */
export function editableTitle(tool: ToolDefinition, args: unknown): string | undefined {
  const parsed = tool.parameters.safeParse(args);
  return parsed.success ? tool.editableText?.(parsed.data) : undefined;
}

/** A decided call, carrying the user's version of its text when they edited it on the card. */
export function withUserVersion(call: ToolCallRequest, decided: { 'approval-text'?: unknown }): ToolCallRequest {
  const text = userVersion(decided);
  return text === undefined ? call : { ...call, userText: text };
}

export function safePreview(tool: ToolDefinition, args: unknown, context: () => ToolContext): string {
  try {
    const parsed = tool.parameters.safeParse(args);
    return parsed.success && tool.preview ? tool.preview(parsed.data, context()) : '';
  } catch (e) {
    return `(no preview: ${e instanceof Error ? e.message : String(e)})`;
  }
}

/**
 * The pending tool message that puts a call to the user: what the card shows (preview, planned
 * changes, targets, the editable text), the choices it offers and when it expires. `targets`
 * are those the approval rules already asked for, if they did.
 */
export function approvalMessage(
  tool: ToolDefinition,
  call: ToolCallRequest,
  context: () => ToolContext,
  planned: { changes?: string },
  targets: string[] | null | undefined,
  expires: number,
): NewMessage {
  return {
    role: 'tool',
    text: tool.preview ? safePreview(tool, call.args, context) : '',
    toolName: call.name,
    toolCallId: call.id,
    toolArgs: call.args,
    toolStatus: 'pending',
    approvalExpires: String(expires),
    toolChanges: planned.changes,
    approvalChoices: tool.confirmOnly ? [...CONFIRM_ONLY_CHOICES] : undefined,
    approvalTargets: targets ?? callTargets(tool, call.args, context) ?? undefined,
    approvalEdit: editableTitle(tool, call.args),
  };
}
