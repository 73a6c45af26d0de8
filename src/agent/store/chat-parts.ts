/*\
What belongs to a chat: the one answer to "which tiddlers are chat X's", for export, import,
rename, delete turn, delete forever, the server's push and resync (after a reconnect or a
restart), branches and the chat view. A chat's title may hold `/`, so a title prefix cannot
tell `Proj`'s tiddlers from `Proj/Private`'s: a part is found by the field that names its chat,
matched exactly, through TiddlyWiki's field index (never a walk over the wiki).

| kind         | owning field                  | title scheme                                  |
|--------------|-------------------------------|-----------------------------------------------|
| `messages`   | `agent-chat`, with `agent-seq`| `$:/ai/messages/<chat>/<seq>`                 |
| `journals`   | `agent-chat-journal`          | `$:/ai/journal/<chat>/<seq of the turn's user message>` |
| `images`     | `agent-image-chat`            | `$:/ai/images/<chat>/<n>`                     |
| `todo`       | `agent-chat-todo`             | `$:/ai/todo/<chat>`                           |
| `branches`   | `agent-branch-chat`           | `$:/ai/branches/<chat>/<id>/<seq>`, `…/<id>/journal/<seq>` |
| `schedules`  | `agent-chat`, no `agent-seq`  | `$:/ai/schedules/<chat>/<id>` (made by its agent) |
| `wakers`     | `agent-chat`, no `agent-seq`  | any other title: the user's own schedules; not the chat's, they only follow a rename |
| `sub-agents` | `agent-parent`, with `agent`  | `$:/ai/sub-agents/<chat>/<n>` (chats with parts of their own) |

The title scheme names new parts and moves them in a rename. A name never holds `/` (a
branch's id is a number), so `$:/ai/journal/Proj/Private/000003` has the scheme of
`Proj/Private` only. A field, when present, decides (a parked version must also have its
chat's title scheme: a copy elsewhere is no version). Every kind has carried its field since it
was introduced, so a listing goes by the field; a journal, image or todo list without its field
(made by hand, or by a plugin) still counts, for the one chat whose exact scheme it has, when
that chat names it: the journal of one of its messages, an image one attaches, its todo title.
A rename gives such a tiddler its field.
\*/
import type { WikiPort } from './wiki-port';

export const MESSAGE_PREFIX = '$:/ai/messages/';
export const JOURNAL_PREFIX = '$:/ai/journal/';
export const IMAGE_PREFIX = '$:/ai/images/';
export const TODO_PREFIX = '$:/ai/todo/';
export const BRANCH_PREFIX = '$:/ai/branches/';
export const SCHEDULE_PREFIX = '$:/ai/schedules/';
export const SUB_AGENT_PREFIX = '$:/ai/sub-agents/';
/** The field naming the chat of a kept image (not `agent-chat`, which marks messages). */
export const IMAGE_CHAT_FIELD = 'agent-image-chat';
/** The field naming the chat of a todo list. */
export const TODO_CHAT_FIELD = 'agent-chat-todo';
export const JOURNAL_CHAT_FIELD = 'agent-chat-journal';
export const BRANCH_CHAT_FIELD = 'agent-branch-chat';

export type PartKind = 'messages' | 'journals' | 'images' | 'todo' | 'branches' | 'schedules' | 'wakers' | 'sub-agents';
export const PART_KINDS: readonly PartKind[] = ['messages', 'journals', 'images', 'todo', 'branches', 'schedules', 'wakers', 'sub-agents'];
/**
 * A chat's own parts (not the user's schedules that wake it, nor its sub-agents' chats, which
 * have parts of their own): what Delete forever deletes with the chat, and each of its
 * sub-agents' chats with theirs.
 */
export const OWN_PARTS: readonly PartKind[] = ['messages', 'journals', 'images', 'todo', 'branches', 'schedules'];
/**
 * What the server pushes to a page showing the chat, and sends again after a restart: its own
 * parts, hidden ones which TiddlyWiki's syncer does not carry (the user's own schedules it does;
 * sub-agents' chats are shown on their own).
 */
export const SHOWN_PARTS: readonly PartKind[] = OWN_PARTS;
/** What a rename moves: the chat's own parts and the user's schedules that wake it (its sub-agents' chats move as chats of its family: chatFamily). */
export const MOVED_PARTS: readonly PartKind[] = [...OWN_PARTS, 'wakers'];
/** What an export holds: the messages and the images the chat keeps, and its turn journals when asked for. */
export function exportedParts(journals: boolean): readonly PartKind[] {
  return journals ? ['messages', 'images', 'journals'] : ['messages', 'images'];
}

/** The field that names a part's chat, by kind. */
export const PART_FIELDS: Readonly<Record<PartKind, string>> = {
  messages: 'agent-chat',
  journals: JOURNAL_CHAT_FIELD,
  images: IMAGE_CHAT_FIELD,
  todo: TODO_CHAT_FIELD,
  branches: BRANCH_CHAT_FIELD,
  schedules: 'agent-chat',
  wakers: 'agent-chat',
  'sub-agents': 'agent-parent',
};

/** Where a kind's titles live (todo: one title; wakers: anywhere). */
const PREFIXES: Partial<Record<PartKind, string>> = {
  messages: MESSAGE_PREFIX,
  journals: JOURNAL_PREFIX,
  images: IMAGE_PREFIX,
  branches: BRANCH_PREFIX,
  schedules: SCHEDULE_PREFIX,
  'sub-agents': SUB_AGENT_PREFIX,
};
const SCHEMED: readonly PartKind[] = ['messages', 'journals', 'images', 'todo', 'branches', 'schedules', 'sub-agents'];

/** The field-index look-up of each kind (the title and fallback rules are applied after). */
const LOOKUPS: Readonly<Record<PartKind, string>> = {
  messages: '[field:agent-chat<chat>has[agent-seq]]',
  journals: `[field:${JOURNAL_CHAT_FIELD}<chat>]`,
  images: `[field:${IMAGE_CHAT_FIELD}<chat>]`,
  todo: `[field:${TODO_CHAT_FIELD}<chat>]`,
  branches: `[field:${BRANCH_CHAT_FIELD}<chat>]`,
  schedules: '[field:agent-chat<chat>!has[agent-seq]]',
  wakers: '[field:agent-chat<chat>!has[agent-seq]]',
  'sub-agents': '[field:agent-parent<chat>has[agent]]',
};

/** The titles a chat's messages attach. */
const ATTACHED = '[field:agent-chat<chat>has[agent-seq]has[attachments]get[attachments]enlist-input[]]';

export function messagePrefix(chat: string): string {
  return `${MESSAGE_PREFIX}${chat}/`;
}

export function imagePrefix(chat: string): string {
  return `${IMAGE_PREFIX}${chat}/`;
}

export function branchPrefix(chat: string): string {
  return `${BRANCH_PREFIX}${chat}/`;
}

export function todoTitle(chat: string): string {
  return TODO_PREFIX + chat;
}

/** The journal of the turn that `userMessage` (its title) started. */
export function journalTitle(chat: string, userMessage: string): string {
  return `${JOURNAL_PREFIX}${chat}/${userMessage.slice(userMessage.lastIndexOf('/') + 1)}`;
}

/** Whether `title` has exactly `chat`'s title scheme for `kind` (wakers have none). */
export function hasScheme(kind: PartKind, chat: string, title: string): boolean {
  if (kind === 'todo') return title === todoTitle(chat);
  const prefix = PREFIXES[kind];
  if (!prefix || !title.startsWith(`${prefix}${chat}/`)) return false;
  const name = title.slice(prefix.length + chat.length + 1);
  return kind === 'branches' ? /^\d+\/(journal\/)?[^/]+$/.test(name) : name !== '' && !name.includes('/');
}

/** Where a tiddler with `from`'s title scheme goes when the chat becomes `to`; undefined for any other title. */
export function movedTitle(title: string, from: string, to: string): string | undefined {
  const kind = SCHEMED.find((k) => hasScheme(k, from, title));
  if (kind === 'todo') return todoTitle(to);
  return kind ? `${PREFIXES[kind]}${to}/${title.slice(PREFIXES[kind]!.length + from.length + 1)}` : undefined;
}

/** For the kinds that share a field with another (or take only their own titles): whether `title` is theirs. */
function titleFits(kind: PartKind, chat: string, title: string): boolean {
  if (kind === 'schedules' || kind === 'branches') return hasScheme(kind, chat, title);
  return kind !== 'wakers' || !hasScheme('schedules', chat, title);
}

/**
 * Whether the tiddler `title` with these fields is `chat`'s part of `kind`. Works on any
 * fields (a wiki's, an imported file's); for a tiddler that is gone, ask hasScheme.
 */
export function isPart(kind: PartKind, chat: string, title: string, fields: Readonly<Record<string, unknown>>): boolean {
  const owner = fields[PART_FIELDS[kind]];
  if (kind === 'journals' || kind === 'images' || kind === 'todo') {
    // Without its field, by exactly this chat's scheme (a parked journal is a branch's, not a journal).
    return owner ? owner === chat : !fields[BRANCH_CHAT_FIELD] && hasScheme(kind, chat, title);
  }
  if (owner !== chat || !titleFits(kind, chat, title)) return false;
  if (kind === 'messages') return fields['agent-seq'] !== undefined;
  if (kind === 'sub-agents') return fields.agent !== undefined;
  return kind === 'branches' || fields['agent-seq'] === undefined;
}

/** What chat-parts reads of a wiki. */
export type PartsReader = Pick<WikiPort, 'filter' | 'getFields'>;

/** The titles of `chat`'s parts of each kind asked for (the others are absent). */
export function chatParts(wiki: PartsReader, chat: string, kinds: readonly PartKind[] = PART_KINDS): Partial<Record<PartKind, string[]>> {
  const out: Partial<Record<PartKind, string[]>> = {};
  let messages: string[] | undefined;
  const lookup = (kind: PartKind) => {
    if (kind !== 'messages') return wiki.filter(LOOKUPS[kind], { chat });
    messages ??= wiki.filter(LOOKUPS.messages, { chat });
    return messages;
  };
  for (const kind of kinds) {
    // The look-up matched the fields; the title tells schedules from wakers, and a branch from a stray copy.
    const titles = lookup(kind).filter((t) => titleFits(kind, chat, t));
    // Field-less ones, only where the chat itself names them: its todo title, its turns' journals, the images its messages attach.
    const named =
      kind === 'todo'
        ? [todoTitle(chat)]
        : kind === 'journals'
          ? lookup('messages').map((m) => journalTitle(chat, m))
          : kind === 'images'
            ? wiki.filter(ATTACHED, { chat })
            : [];
    const seen = new Set(titles);
    for (const title of named) {
      const fields = seen.has(title) ? undefined : wiki.getFields(title);
      if (!fields || fields[PART_FIELDS[kind]] || !isPart(kind, chat, title, fields)) continue;
      titles.push(title);
      seen.add(title);
    }
    out[kind] = titles;
  }
  return out;
}

/** The titles of `chat`'s parts of these kinds, as one list. */
export function chatPartTitles(wiki: PartsReader, chat: string, kinds: readonly PartKind[] = PART_KINDS): string[] {
  return Object.values(chatParts(wiki, chat, kinds)).flat();
}

/** The chat and its sub-agents' chats at any depth, each parent before its children. */
export function chatFamily(wiki: PartsReader, chat: string): string[] {
  const out = new Set([chat]);
  for (const c of out) {
    if (out.size >= 10_000) break;
    for (const child of wiki.filter(LOOKUPS['sub-agents'], { chat: c })) out.add(child);
  }
  return [...out];
}
