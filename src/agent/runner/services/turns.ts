/*\
Turns: the messages a user message started (that message, the replies and tool results up
to the next user message), and what the user can do with a finished turn: delete it, or
roll back what its tools changed (through the write gate's rule for what may be restored:
a journal never plants code). Answering it again is a fork (runner/services/branches.ts).
\*/
import type { ChatStore } from '../../store/chat-store';
import type { Message } from '../../store/schemas';
import type { WikiPort } from '../../store/wiki-port';
import { isPart, journalTitle } from '../../store/chat-parts';
import { JOURNAL_ROLLED_BACK } from '../../store/turn-journal';
import { planRollback, readJournal } from '../../tools/journal';
import { restoreJournal } from '../../tools/write-gate';
import type { RollbackResult } from '../chat-runner';
import { refuse } from '../refusals';

export class Turns {
  constructor(
    private readonly store: ChatStore,
    private readonly wiki: WikiPort,
  ) {}

  /** The messages of the turn a user message started, that message included. */
  messages(chat: string, userMessage: string): Message[] {
    const messages = this.store.listMessages(chat);
    const start = messages.findIndex((m) => m.title === userMessage);
    if (start < 0) return [];
    const next = messages.findIndex((m, i) => i > start && m.role === 'user');
    return messages.slice(start, next < 0 ? undefined : next);
  }

  /** The turn's messages, or a RunnerError when `userMessage` is not a user message of the chat. */
  require(chat: string, userMessage: string): Message[] {
    const turn = this.messages(chat, userMessage);
    if (!turn.length || turn[0]!.role !== 'user') throw refuse('not-found', 'not-a-user-message', { message: userMessage, chat });
    return turn;
  }

  isLast(chat: string, userMessage: string): boolean {
    const turn = this.messages(chat, userMessage);
    return turn.length > 0 && turn.at(-1)?.title === this.store.listMessages(chat).at(-1)?.title;
  }

  /**
   * The tiddlers the turn changed whose changes stand (its journal, not rolled back): deleting
   * the turn would remove the only way to roll them back.
   */
  standingChanges(chat: string, userMessage: string): string[] {
    const title = this.journal(chat, userMessage);
    if (!title || this.wiki.getFields(title)?.[JOURNAL_ROLLED_BACK]) return [];
    return Object.keys(readJournal(this.wiki, title));
  }

  /** Remove a turn's messages and journal (not what its tools changed in the wiki). */
  delete(chat: string, userMessage: string): void {
    this.store.deleteMessages(
      chat,
      this.require(chat, userMessage).map((m) => m.title),
    );
    const journal = this.journal(chat, userMessage);
    if (journal) this.wiki.deleteTiddler(journal);
  }

  /** The title of the turn's journal, if the chat has one for it. */
  private journal(chat: string, userMessage: string): string | undefined {
    const title = journalTitle(chat, userMessage);
    const fields = this.wiki.getFields(title);
    return fields && isPart('journals', chat, title, fields) ? title : undefined;
  }

  /**
   * Restore every tiddler the turn's tools changed. When any of them changed again since
   * (the user edited it), nothing happens unless `force`, and the titles are returned.
   */
  rollback(chat: string, userMessage: string, force: boolean): RollbackResult {
    const title = this.journal(chat, typeof userMessage === 'string' ? userMessage : '');
    if (!title) throw refuse('not-found', 'nothing-to-roll-back');
    const journal = readJournal(this.wiki, title);
    const plan = planRollback(this.wiki, journal);
    if (plan.conflicts.length && !force) return { conflicts: plan.conflicts, restored: [] };
    const { restored } = restoreJournal(this.wiki, journal, this.wiki.getFields(chat)?.agent);
    const fields = this.wiki.getFields(title);
    if (fields) this.wiki.putTiddler({ ...fields, [JOURNAL_ROLLED_BACK]: this.wiki.now() });
    return { conflicts: plan.conflicts, restored };
  }
}
