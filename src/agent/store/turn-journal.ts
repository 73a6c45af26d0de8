/*\
The turn journal's format, the one definition: for every tiddler a turn's tools changed, its
fields before the turn's first change (null: it did not exist) and after the turn's last
change (null: deleted), as JSON. One tiddler per turn, `$:/ai/journal/<chat>/<seq of the user
message>` (chat-parts.ts), so a turn can be shown as a diff and rolled back. A call waiting for
approval keeps what it would change in the same format (its message's `tool-changes`).
tools/journal.ts writes journals and plans rollbacks; the change view (ui/change-view.ts) shows
them. Light and zod-free, for the UI too.
\*/
import type { TiddlerFields } from './wiki-port';

export interface JournalEntry {
  before: TiddlerFields | null;
  after: TiddlerFields | null;
}
export type Journal = Record<string, JournalEntry>;

/** Field of a journal: its turn's user message. */
export const JOURNAL_TURN = 'agent-turn';
/** Field of a journal: when its turn was rolled back (its changes no longer stand). */
export const JOURNAL_ROLLED_BACK = 'agent-rolled-back';

/** A journal's text (or a call's planned changes), parsed; anything but a JSON object is an empty journal. */
export function parseJournal(text: unknown): Journal {
  try {
    const parsed = JSON.parse(String(text ?? '{}')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Journal) : {};
  } catch {
    return {};
  }
}
