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
wiki-list and wiki-search, runner/tiddlywiki-port.ts) chats and messages do not exist, so
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
    for (const chat of about.get(title) ?? []) chats.add(chat);
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
  const add = (title: string, chat: string) => {
    if (!title || title === chat) return;
    let set = about.get(title);
    if (!set) about.set(title, (set = new Set()));
    set.add(chat);
  };
  wiki.each((tiddler, title) => {
    const f = tiddler.fields;
    if (f.agent !== undefined) {
      for (const t of titles(f['agent-draft-attachments'])) add(t, title);
      if (typeof f['agent-current-tiddler'] === 'string') add(f['agent-current-tiddler'], title);
      return;
    }
    const chat = f['agent-chat'];
    if (typeof chat !== 'string' || f['agent-seq'] === undefined || wiki.getTiddler(chat)?.fields.agent === undefined) return;
    for (const t of titles(f.attachments)) if (!t.startsWith('$:/ai/')) add(t, chat);
    if (typeof f['tool-args'] === 'string') add(argumentTitle(f['tool-args']), chat);
  });
  return about;
}

function argumentTitle(json: string): string {
  try {
    const args = JSON.parse(json) as { title?: unknown };
    return typeof args?.title === 'string' ? args.title : '';
  } catch {
    return '';
  }
}
