/*\
What became of a tool call that did not run to its end. A tool message's text is what the
model was sent ("The user denied it.") and stays English; the line the user reads
(tool-step.ts) comes from the message's fields (`tool-outcome`, `tool-status`, `approval`),
never from that text, in the UI's language: keys `ToolOutcome/<outcome>`.
\*/
import { TOOL_OUTCOMES, type ToolOutcome } from '../store/tool-outcomes';

/** Every outcome a line is shown for: the stored ones, and a call that took too long. */
export type ShownOutcome = ToolOutcome | 'timeout';

/** The outcome of a tool message from its fields, or undefined when it ran (or failed) normally. */
export function toolOutcome(fields: Record<string, unknown>): ShownOutcome | undefined {
  const stored = String(fields['tool-outcome'] ?? '');
  if ((TOOL_OUTCOMES as readonly string[]).includes(stored)) return stored as ToolOutcome;
  if (fields['tool-status'] === 'timeout') return 'timeout';
  // Messages written before `tool-outcome` existed: the user's Deny is on the message itself.
  if (fields['tool-status'] === 'denied' && fields.approval === 'deny') return 'user-denied';
  return undefined;
}
