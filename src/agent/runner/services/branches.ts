/*\
Branches: a chat keeps every version of itself. Sending an edited copy of an earlier user
message, or answering a turn again, forks the chat at one message: the messages from there
on (and the journals of their turns) are parked under $:/ai/branches/<chat>/<id>/ instead of
deleted, and the new version goes on in the chat as usual. Switching parks the current tail
and brings a parked one back. The active path is always what `agent-chat` holds, so the
engine, the prompt and the history never meet a parked message, and `$:/ai/` keeps parked
ones hidden from the model and out of its writes.

A parked message keeps its fields, without `agent-chat`, and gains:
- `agent-branch-chat`: the chat; `agent-branch`: the branch's id (a number, unique in the chat);
- `agent-branch-at`: the seq where the branch forks from the path it belongs to;
- `agent-branch-parent`: set when the branch forked inside another branch that is parked now
  (it comes back to the top when that one is switched back in).
The first message of each version (parked or active) carries `agent-version`, its number
among the versions at its seq ("2/3"); the newest version has none until it is parked.
A parked journal ($:/ai/branches/<chat>/<id>/journal/<seq>) keeps its fields without
`agent-chat-journal`, with `agent-branch-chat` and `agent-branch`.
\*/
import { seqName, type ChatStore } from '../../store/chat-store';
import type { TiddlerFields, WikiPort } from '../../store/wiki-port';
import { branchPrefix, chatPartTitles, isPart, JOURNAL_CHAT_FIELD, journalTitle, messagePrefix } from '../../store/chat-parts';
import { activeVersion, forkVersions, heads, whole, type ForkVersions } from '../../store/branch-versions';

const BRANCH_FIELDS = ['agent-branch-chat', 'agent-branch', 'agent-branch-at', 'agent-branch-parent'];

export class Branches {
  constructor(
    private readonly store: ChatStore,
    private readonly wiki: WikiPort,
  ) {}

  /** The versions at every fork of the chat's active path. */
  forks(chat: string): Map<number, ForkVersions> {
    const active = new Map(this.store.listMessages(chat).map((m) => [m['agent-seq'], m]));
    return forkVersions(
      chat,
      this.parkedTitles(chat),
      (t) => this.wiki.getFields(t),
      (seq) => (active.has(seq) ? this.wiki.getFields(active.get(seq)!.title) : undefined),
    );
  }

  /**
   * Park the active path from `at` on as a new branch (one synchronous step: on the server it
   * reaches the disk as one intent, so a crash leaves the chat whole or the branch whole).
   * Returns false when nothing is there to park.
   */
  park(chat: string, at: number): boolean {
    const tail = this.store.listMessages(chat).filter((m) => m['agent-seq'] >= at);
    if (!tail.length) return false;
    const parkedNow = this.parkedTitles(chat);
    const read = (t: string) => this.wiki.getFields(t);
    const all = heads(chat, parkedNow, read);
    const version = activeVersion(
      this.wiki.getFields(tail[0]!.title),
      all.filter((h) => h.at === at).map((h) => h.version),
    );
    const id = String(Math.max(0, ...parkedNow.map((t) => whole(this.wiki.getFields(t)?.['agent-branch']) ?? 0)) + 1);
    // Branches that fork inside the tail belong to it: they go with it.
    const nested = new Set(all.filter((h) => h.at > at).map((h) => h.id));
    for (const title of parkedNow) {
      const f = this.wiki.getFields(title);
      if (f && !f['agent-branch-parent'] && nested.has(f['agent-branch']!)) this.wiki.putTiddler({ ...f, 'agent-branch-parent': id });
    }
    const base = `${branchPrefix(chat)}${id}/`;
    for (const [i, m] of tail.entries()) {
      const { 'agent-chat': _chat, ...fields } = this.wiki.getFields(m.title)!;
      const seq = m['agent-seq'];
      const marks: TiddlerFields = { 'agent-branch-chat': chat, 'agent-branch': id, 'agent-branch-at': String(at) };
      if (i === 0) marks['agent-version'] = String(version);
      this.wiki.putTiddler({ ...fields, ...marks, title: `${base}${seqName(seq)}` });
      this.wiki.deleteTiddler(m.title);
      const journal = journalTitle(chat, m.title);
      const j = m.role === 'user' ? this.wiki.getFields(journal) : undefined;
      if (j && isPart('journals', chat, journal, j)) {
        const { [JOURNAL_CHAT_FIELD]: _journalChat, ...rest } = j;
        this.wiki.putTiddler({ ...rest, 'agent-branch-chat': chat, 'agent-branch': id, title: `${base}journal/${seqName(seq)}` });
        this.wiki.deleteTiddler(journal);
      }
    }
    return true;
  }

  /**
   * Bring back the version `version` at `at`, parking the active one (one synchronous step).
   * Returns false when there is no such version; true when it is active now.
   */
  switchTo(chat: string, at: number, version: number): boolean {
    const fork = this.forks(chat).get(at);
    if (!fork?.versions.includes(version)) return false;
    if (fork.active === version) return true;
    const read = (t: string) => this.wiki.getFields(t);
    const parkedNow = this.parkedTitles(chat);
    const id = heads(chat, parkedNow, read).find((h) => h.at === at && h.version === version)!.id;
    this.park(chat, at);
    const base = `${branchPrefix(chat)}${id}/`;
    for (const title of this.parkedTitles(chat)) {
      const f = this.wiki.getFields(title);
      if (!f) continue;
      if (f['agent-branch-parent'] === id) {
        // A branch that forked inside the one coming back is a fork of the active path again.
        const { 'agent-branch-parent': _parent, ...rest } = f;
        this.wiki.putTiddler(rest);
        continue;
      }
      if (!title.startsWith(base) || f['agent-branch'] !== id) continue;
      const rest: TiddlerFields = { ...f };
      for (const key of BRANCH_FIELDS) delete rest[key];
      const seq = title.slice(title.lastIndexOf('/') + 1);
      const message = `${messagePrefix(chat)}${seq}`;
      if (title.startsWith(`${base}journal/`)) this.wiki.putTiddler({ ...rest, [JOURNAL_CHAT_FIELD]: chat, title: journalTitle(chat, message) });
      else this.wiki.putTiddler({ ...rest, 'agent-chat': chat, title: message });
      this.wiki.deleteTiddler(title);
    }
    return true;
  }

  /**
   * Delete the versions parked at forks from seq `from` to `to` (the turn the user deleted),
   * with the branches parked inside them: without the turn there is no message left to show
   * their switch on, so they could never come back.
   */
  drop(chat: string, from: number, to: number): void {
    const parkedNow = this.parkedTitles(chat);
    const read = (t: string) => this.wiki.getFields(t);
    const gone = new Set(
      heads(chat, parkedNow, read)
        .filter((h) => h.at >= from && h.at <= to)
        .map((h) => h.id),
    );
    for (let grew = gone.size > 0; grew; ) {
      grew = false;
      for (const title of parkedNow) {
        const f = read(title);
        if (f?.['agent-branch-parent'] && gone.has(f['agent-branch-parent']) && !gone.has(f['agent-branch']!)) grew = !!gone.add(f['agent-branch']!);
      }
    }
    for (const title of parkedNow) if (gone.has(read(title)?.['agent-branch'] ?? '')) this.wiki.deleteTiddler(title);
  }

  /** Titles of the chat's parked messages and journals. */
  private parkedTitles(chat: string): string[] {
    return chatPartTitles(this.wiki, chat, ['branches']);
  }
}
