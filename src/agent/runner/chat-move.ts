/*\
Renaming a chat moves everything keyed by its title: the chat tiddler, its messages
(`$:/ai/messages/<chat>/…`, field `agent-chat`), turn journals (`$:/ai/journal/<chat>/…`,
`agent-chat-journal`, `agent-turn`), kept images (`$:/ai/images/<chat>/…`,
`agent-image-chat`, named in messages' `attachments`), its todo list, the schedules that wake
it (`agent-chat`; the ones its agent made live under `$:/ai/schedules/<chat>/`) and its
sub-agents' chats (`$:/ai/sub-agents/<chat>/…`, `agent-parent`, named in `agent-child`),
theirs in turn, and its parked branches (`$:/ai/branches/<chat>/…`, `agent-branch-chat`).
The move is planned first (every tiddler's new fields), then written in one
synchronous step: the server edition's durable store puts a step on disk whole or not at all,
so a crash mid-rename leaves either the old chat or the new one, never half of each.
New tiddlers are written before old ones are deleted. The chat keeps `agent-renamed-from`,
so a page showing the old title follows it (ui/follow-renames.ts).
\*/
import { IMAGE_CHAT_FIELD, MESSAGE_PREFIX, IMAGE_PREFIX, SUB_AGENT_PREFIX } from '../store/chat-store';
import { TODO_CHAT_FIELD, TODO_PREFIX } from '../store/todo-list';
import { parseTitleList, stringifyTitleList, type TiddlerFields, type WikiPort } from '../store/wiki-port';
import { JOURNAL_PREFIX } from '../tools/journal';
import { SCHEDULE_PREFIX } from '../schedules/schedule-book';
import { BRANCH_PREFIX } from '../store/branch-versions';

/** Where tiddlers keyed by a chat's title live: `<prefix><chat>/…`. */
const KEYED_PREFIXES = [MESSAGE_PREFIX, JOURNAL_PREFIX, IMAGE_PREFIX, SCHEDULE_PREFIX, BRANCH_PREFIX];

/** Field of a renamed chat: the title it had before. */
export const CHAT_RENAMED_FROM = 'agent-renamed-from';

export interface ChatMove {
  /** Tiddlers to write, whole (new titles and rewritten ones). */
  puts: TiddlerFields[];
  /** Old titles to delete once the new ones are written. */
  deletes: string[];
}

/** Every chat that moves with `chat`: itself and its sub-agents' chats, at any depth. */
function chatTree(wiki: WikiPort, chat: string): string[] {
  const out = [chat];
  for (let i = 0; i < out.length && out.length < 10_000; i++) {
    for (const child of wiki.filter('[field:agent-parent<chat>has[agent]]', { chat: out[i]! })) if (!out.includes(child)) out.push(child);
  }
  return out;
}

/** Plan moving `from` (and all it owns) to `to`; nothing is written. */
export function planChatMove(wiki: WikiPort, from: string, to: string): ChatMove {
  const chats = chatTree(wiki, from);
  const childPrefix = `${SUB_AGENT_PREFIX}${from}/`;
  const chatMap = new Map(chats.map((c) => [c, c === from ? to : c.startsWith(childPrefix) ? `${SUB_AGENT_PREFIX}${to}/${c.slice(childPrefix.length)}` : c]));
  const mapChat = (c: string | undefined) => (c !== undefined ? (chatMap.get(c) ?? c) : c);
  const titleMap = new Map<string, string>();
  const rewritten = new Map<string, TiddlerFields>();
  /** A tiddler keyed by `chat`: under `prefix + chat + '/'` it gets the new chat's prefix; its fields are changed by `edit`. */
  const keyed = (title: string, chat: string, prefix: string | undefined, edit: (fields: TiddlerFields) => void) => {
    const fields = wiki.getFields(title);
    if (!fields) return;
    const own = `${prefix}${chat}/`;
    const newTitle = prefix && title.startsWith(own) ? `${prefix}${mapChat(chat)}/${title.slice(own.length)}` : title;
    if (newTitle !== title) titleMap.set(title, newTitle);
    const copy = { ...fields };
    edit(copy);
    rewritten.set(title, copy);
  };
  for (const chat of chats) {
    const next = mapChat(chat)!;
    for (const title of wiki.filter('[field:agent-chat<chat>]', { chat })) {
      const isMessage = wiki.getFields(title)?.['agent-seq'] !== undefined;
      keyed(title, chat, isMessage ? MESSAGE_PREFIX : SCHEDULE_PREFIX, (f) => (f['agent-chat'] = next));
    }
    for (const title of wiki.filter('[field:agent-chat-journal<chat>]', { chat })) keyed(title, chat, JOURNAL_PREFIX, (f) => (f['agent-chat-journal'] = next));
    for (const title of wiki.filter(`[field:${IMAGE_CHAT_FIELD}<chat>]`, { chat })) keyed(title, chat, IMAGE_PREFIX, (f) => (f[IMAGE_CHAT_FIELD] = next));
    for (const title of wiki.filter('[field:agent-branch-chat<chat>]', { chat })) keyed(title, chat, BRANCH_PREFIX, (f) => (f['agent-branch-chat'] = next));
    for (const title of wiki.filter(`[field:${TODO_CHAT_FIELD}<chat>]`, { chat })) {
      keyed(title, chat, undefined, (f) => (f[TODO_CHAT_FIELD] = next));
      if (title === `${TODO_PREFIX}${chat}`) titleMap.set(title, `${TODO_PREFIX}${next}`);
    }
    keyed(chat, chat, undefined, (f) => {
      if (f['agent-parent']) f['agent-parent'] = mapChat(f['agent-parent'])!;
    });
    if (next !== chat) titleMap.set(chat, next);
  }
  /** A moved tiddler's new title; a title under a moved chat's prefix that is not one (a parked turn's message) follows the same rule. */
  const mapTitle = (t: string) => {
    const known = titleMap.get(t);
    if (known) return known;
    for (const chat of chats) for (const prefix of KEYED_PREFIXES) if (t.startsWith(`${prefix}${chat}/`)) return `${prefix}${mapChat(chat)}/${t.slice(prefix.length + chat.length + 1)}`;
    return t;
  };
  const puts: TiddlerFields[] = [];
  for (const [title, fields] of rewritten) {
    // Fields that name other moved tiddlers: images in `attachments`, sub-agent chats, the turn of a journal.
    if (fields.attachments) fields.attachments = stringifyTitleList(parseTitleList(fields.attachments).map(mapTitle));
    if (fields['agent-child']) fields['agent-child'] = mapChat(fields['agent-child'])!;
    if (fields['agent-turn']) fields['agent-turn'] = mapTitle(fields['agent-turn']);
    fields.title = mapTitle(title);
    puts.push(fields);
  }
  const root = puts.find((f) => f.title === to);
  if (root) root[CHAT_RENAMED_FROM] = from;
  return { puts, deletes: [...titleMap.keys()] };
}

/** Write a planned move: every new tiddler, then the old titles deleted (one synchronous step). */
export function applyChatMove(wiki: WikiPort, move: ChatMove): void {
  for (const fields of move.puts) wiki.putTiddler(fields);
  for (const title of move.deletes) wiki.deleteTiddler(title);
}
