/*\
Filter operators over chats, for wikitext (a list of a chat's messages, a tiddler's "chats
about this" footer):
- `[<chat>aimessages[]]`: the messages of each input chat, in order (`agent-seq`); the operand
  keeps one role: `aimessages[user]`, `aimessages[assistant]`, `aimessages[tool]`.
- `[<tiddler>aichats[]]`: the chats about each input tiddler, newest first. A chat is about a
  tiddler when a message of it attached the tiddler, when the tiddler waits in its input as
  an attachment ("Talk with AI"), is its Current tiddler, or when one of its tool calls read
  or changed it (the call's `title` argument).
The chat of a message needs no operator: `[<message>get[agent-chat]]`.

Both read only through the wiki they are given: in the agent's view (the model's filters in
wiki-list and wiki-search, runner/host/tiddlywiki-port.ts) chats and messages do not exist, so
there they answer nothing.
\*/
type Fields = Record<string, unknown>;
type Each = ((callback: (tiddler: { fields: Fields }, title: string) => void) => void) & { byField?: (name: string, value: string) => string[] | null };

interface FilterWiki {
  each: Each;
  getTiddler(title: string): { fields: Fields } | undefined;
  getGlobalCache<T>(key: string, make: () => T): T;
}

type Source = (iterator: (tiddler: unknown, title: string) => void) => void;

const titles = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : ($tw.utils.parseStringArray(String(value ?? ''), true) ?? []));

export function aimessages(source: Source, operator: { operand: string }, options: { wiki: FilterWiki }): string[] {
  const wiki = options.wiki;
  const role = operator.operand.trim();
  const out: string[] = [];
  source((_tiddler, chat) => {
    const found: { title: string; seq: number }[] = [];
    const consider = (title: string, fields: Fields | undefined) => {
      if (!fields || fields['agent-chat'] !== chat || fields['agent-seq'] === undefined) return;
      if (role && fields.role !== role) return;
      found.push({ title, seq: Number(fields['agent-seq']) });
    };
    // The field index when the wiki has one (its answer passes the view's hiding); else every tiddler.
    const indexed = wiki.each.byField?.('agent-chat', chat);
    if (indexed) for (const title of indexed) consider(title, wiki.getTiddler(title)?.fields);
    else wiki.each((tiddler, title) => consider(title, tiddler.fields));
    found.sort((a, b) => a.seq - b.seq);
    for (const { title } of found) out.push(title);
  });
  return out;
}

export function aichats(source: Source, _operator: unknown, options: { wiki: FilterWiki }): string[] {
  const wiki = options.wiki;
  // One pass over the wiki per change, shared by every aichats in the page.
  const about = wiki.getGlobalCache('tiddlyagent-aichats', () => chatsAbout(wiki));
  const chats = new Set<string>();
  source((_tiddler, title) => {
    // A chat in the bin (`agent-deleted`) is not about anything any more, until it is restored.
    for (const chat of about.get(title) ?? []) if (!wiki.getTiddler(chat)?.fields['agent-deleted']) chats.add(chat);
  });
  const when = (chat: string) => {
    const fields = wiki.getTiddler(chat)?.fields;
    return String(($tw.utils.stringifyDate as (d: unknown) => string)(fields?.modified ?? fields?.created ?? new Date(0)));
  };
  return [...chats].sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : 0));
}

/** For each tiddler, the chats about it (see the header). */
function chatsAbout(wiki: FilterWiki): Map<string, Set<string>> {
  const about = new Map<string, Set<string>>();
  wiki.each((tiddler, title) => {
    const found = mentions(tiddler, title);
    if (!found) return;
    // A message counts only while its chat is one (in this wiki: in the agent's view, never).
    if (found.chat !== title && wiki.getTiddler(found.chat)?.fields.agent === undefined) return;
    for (const t of found.titles) {
      if (t === found.chat) continue;
      let set = about.get(t);
      if (!set) {
        set = new Set();
        about.set(t, set);
      }
      set.add(found.chat);
    }
  });
  return about;
}

/**
 * What one chat or message tiddler names, worked out once per tiddler object (they never change),
 * so after a change the pass over the wiki reads again only what changed.
 */
const mentioned = new WeakMap<object, { chat: string; titles: string[] } | null>();

function mentions(tiddler: { fields: Fields }, title: string): { chat: string; titles: string[] } | null {
  let found = mentioned.get(tiddler);
  if (found !== undefined) return found;
  const f = tiddler.fields;
  found = null;
  if (f.agent !== undefined) {
    const current = typeof f['agent-current-tiddler'] === 'string' ? [f['agent-current-tiddler']] : [];
    found = { chat: title, titles: [...titles(f['agent-draft-attachments']), ...current] };
  } else if (typeof f['agent-chat'] === 'string' && f['agent-seq'] !== undefined) {
    const named = titles(f.attachments).filter((t) => !t.startsWith('$:/ai/'));
    if (typeof f['tool-args'] === 'string') named.push(argumentTitle(f['tool-args']));
    found = { chat: f['agent-chat'], titles: named.filter(Boolean) };
  }
  mentioned.set(tiddler, found);
  return found;
}

function argumentTitle(json: string): string {
  try {
    const args = JSON.parse(json) as { title?: unknown };
    return typeof args?.title === 'string' ? args.title : '';
  } catch {
    return '';
  }
}
