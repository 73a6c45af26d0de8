/*\
The user's choices on a call that waits for approval, the one list: once, in this chat,
always (with a scope), deny. The choice is written into the waiting tool message's `approval`
field; a message may name, in `approval-choices`, the only choices its card offers (a
confirm-only tool's: once and deny), and any other choice then counts as "once"
(runner/services/decisions.ts). Light and zod-free: the schema (schemas.ts), the engine, the runner and
the cards (ui/cards.ts) all read it.
\*/
import { parseTitleList } from './wiki-port';

export const APPROVAL_CHOICES = ['once', 'chat', 'always', 'deny'] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];

/** The choices that decide a call of a confirm-only tool: each call asks again. */
export const CONFIRM_ONLY_CHOICES = ['once', 'deny'] as const satisfies readonly ApprovalChoice[];

/** The choices a waiting call's message names (its `approval-choices` field); none: it offers every choice. */
export function offeredChoices(fields: Readonly<Record<string, unknown>>): string[] {
  return parseTitleList(String(fields['approval-choices'] ?? ''));
}

/** Whether the card offers `choice`, given the choices its message names. */
export function isOffered(choice: string, offered: readonly string[] | undefined): boolean {
  return !offered?.length || offered.includes(choice);
}
