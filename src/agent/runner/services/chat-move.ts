/*\
Renaming a chat moves everything keyed by its title: the chat tiddler and its parts
(store/chat-parts.ts: messages, turn journals, kept images, todo list, parked branches, the
schedules that wake it) and its sub-agents' chats, theirs in turn, with their parts. Each part
gets the new chat in its owning field, and a new title when it has the old chat's exact title
scheme (a user's schedule keeps its title); references to moved tiddlers (`attachments`,
`agent-child`, `agent-turn`) follow them. The move is planned first (every tiddler's new fields),
then written in one synchronous step: the server edition's durable store puts a step on disk
whole or not at all, so a crash mid-rename leaves either the old chat or the new one, never half
of each. New tiddlers are written before old ones are deleted. The chat keeps
`agent-renamed-from`, so a page showing the old title follows it (ui/follow-renames.ts).
\*/
import { chatFamily, chatParts, MOVED_PARTS, movedTitle, PART_FIELDS } from '../../store/chat-parts';
import { JOURNAL_TURN } from '../../store/turn-journal';
import { parseTitleList, stringifyTitleList, type TiddlerFields, type WikiPort } from '../../store/wiki-port';

/** Field of a renamed chat: the title it had before. */
export const CHAT_RENAMED_FROM = 'agent-renamed-from';

export interface ChatMove {
  /** Tiddlers to write, whole (new titles and rewritten ones). */
  puts: TiddlerFields[];
  /** Old titles to delete once the new ones are written. */
  deletes: string[];
  /** Each moved tiddler's new title by its old one (what a command queued behind the rename names). */
  renamed: ReadonlyMap<string, string>;
}

/** Plan moving `from` (and all it owns) to `to`; nothing is written. */
export function planChatMove(wiki: WikiPort, from: string, to: string): ChatMove {
  const chats = chatFamily(wiki, from);
  // Parents come first, so a sub-agent's chat under its parent's title scheme follows its parent's new title.
  const chatMap = new Map<string, string>();
  for (const c of chats) {
    const parent = wiki.getFields(c)?.['agent-parent'] ?? '';
    const moved = chatMap.has(parent) ? movedTitle(c, parent, chatMap.get(parent)!) : undefined;
    chatMap.set(c, c === from ? to : (moved ?? c));
  }
  const mapChat = (c: string) => chatMap.get(c) ?? c;
  const titleMap = new Map<string, string>();
  const rewritten = new Map<string, TiddlerFields>();
  for (const chat of chats) {
    const next = mapChat(chat);
    const parts = chatParts(wiki, chat, MOVED_PARTS);
    for (const kind of MOVED_PARTS) {
      for (const title of parts[kind] ?? []) {
        const fields = wiki.getFields(title);
        if (!fields) continue;
        // A part without its owning field (see chat-parts.ts) gets it now.
        rewritten.set(title, { ...fields, [PART_FIELDS[kind]]: next });
        const moved = movedTitle(title, chat, next);
        if (moved && moved !== title) titleMap.set(title, moved);
      }
    }
    const fields = wiki.getFields(chat);
    if (fields) rewritten.set(chat, fields['agent-parent'] ? { ...fields, 'agent-parent': mapChat(fields['agent-parent']) } : { ...fields });
    if (next !== chat) titleMap.set(chat, next);
  }
  /** A moved tiddler's new title; a title with a moved chat's exact scheme that is not one (a parked turn's message) follows the same rule. */
  const mapTitle = (t: string) => titleMap.get(t) ?? chats.map((c) => movedTitle(t, c, mapChat(c))).find((m) => m !== undefined) ?? t;
  const puts: TiddlerFields[] = [];
  for (const [title, fields] of rewritten) {
    // Fields that name other moved tiddlers: images in `attachments`, sub-agent chats, the turn of a journal.
    if (fields.attachments) fields.attachments = stringifyTitleList(parseTitleList(fields.attachments).map(mapTitle));
    if (fields['agent-child']) fields['agent-child'] = mapChat(fields['agent-child']);
    if (fields[JOURNAL_TURN]) fields[JOURNAL_TURN] = mapTitle(fields[JOURNAL_TURN]);
    fields.title = mapTitle(title);
    puts.push(fields);
  }
  const root = puts.find((f) => f.title === to);
  if (root) root[CHAT_RENAMED_FROM] = from;
  return { puts, deletes: [...titleMap.keys()], renamed: titleMap };
}

/** Write a planned move: every new tiddler, then the old titles deleted (one synchronous step). */
export function applyChatMove(wiki: WikiPort, move: ChatMove): void {
  for (const fields of move.puts) wiki.putTiddler(fields);
  for (const title of move.deletes) wiki.deleteTiddler(title);
}
