/*\
Writing the turn journal (its format: store/turn-journal.ts): for every tiddler a turn's
tools changed, its fields before the turn's first change and after the turn's last change,
so a turn can be shown as a diff and rolled back, and a rollback can tell when the user
edited since.
\*/
import { fingerprint } from '../store/fingerprint';
import type { TiddlerFields, WikiPort } from '../store/wiki-port';
import { JOURNAL_CHAT_FIELD, journalTitle } from '../store/chat-parts';
import { JOURNAL_TURN, parseJournal, type Journal } from '../store/turn-journal';

/** The journal `title` holds (store/turn-journal.ts: the format). */
export function readJournal(wiki: WikiPort, title: string): Journal {
  return parseJournal(wiki.getFields(title)?.text);
}

/**
 * Make a change to the wiki and journal it: `change` runs between taking the before-images
 * (first change in this turn only) and the after-images of `titles`.
 */
export function journaled(wiki: WikiPort, chat: string, turn: string, titles: string[], change: () => void): void {
  const title = journalTitle(chat, turn);
  const journal = readJournal(wiki, title);
  for (const t of titles) if (!(t in journal)) journal[t] = { before: wiki.getFields(t) ?? null, after: null };
  change();
  for (const t of titles) journal[t]!.after = wiki.getFields(t) ?? null;
  wiki.putTiddler({ title, type: 'application/json', [JOURNAL_CHAT_FIELD]: chat, [JOURNAL_TURN]: turn, text: JSON.stringify(journal) });
}

/**
 * Whether two images of a tiddler hold the same content, as far as a user can change it: the
 * same version (store/fingerprint.ts: the syncer's bookkeeping and a default type are none).
 */
export function sameFields(a: TiddlerFields | null | undefined, b: TiddlerFields | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return fingerprint(a) === fingerprint(b);
}

export interface RollbackPlan {
  /** Tiddlers the user (or anything else) changed after the turn: restoring overwrites that. */
  conflicts: string[];
  titles: string[];
}

export function planRollback(wiki: WikiPort, journal: Journal): RollbackPlan {
  const titles = Object.keys(journal);
  return { titles, conflicts: titles.filter((t) => !sameFields(wiki.getFields(t), journal[t]!.after)) };
}
