/*\
What every importer builds before anything is written: the tiddlers to add and a report of
what could not be mapped. Importers are pure: they read a file's text and a view of the wiki
(which titles are taken), validate everything, and return a whole plan or throw an
ImportError; the runner writes the plan in one go, so a bad file leaves nothing behind.
\*/
import { AGENT_TAG } from '../schemas';
import { seqName, REPLY_TYPE } from '../chat-store';
import { messagePrefix } from '../chat-parts';
import { newChatFields } from '../new-chat';
import { parseTitleList, type TiddlerFields } from '../wiki-port';

/** Files above this size are refused before they are read or parsed. */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

export type ImportFormat = 'bundle' | 'chatgpt' | 'tidgi' | 'ai-tools';

/** Why a file cannot be imported, in a sentence the user can act on (English; the UI prefixes its own words). */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

/** What an importer knows of the wiki it imports into. */
export interface ImportTarget {
  /** Whether a tiddler (or shadow) with this title exists. */
  exists(title: string): boolean;
  /** Whether tiddlers of a chat by this title exist (store/chat-parts.ts), as a chat deleted by hand leaves its messages. */
  hasParts(chat: string): boolean;
  /** Now, in TiddlyWiki's date format. */
  now: string;
  /** The agent imported chats use when the file names none that exists here. */
  agent: string;
  /** Imported agent definitions: their provider, and the most tools they may get (the user's choice). */
  provider: string;
  toolCeiling: readonly string[];
}

export interface ImportPlan {
  format: ImportFormat;
  /** Every tiddler to write, complete. */
  tiddlers: TiddlerFields[];
  /** Titles of the chats and agents made, for the report and to open them. */
  created: string[];
  /** What could not be mapped, one line each. */
  notMapped: string[];
}

/**
 * A free title `prefix + base`, else `… (imported)`, `… (imported 2)`…; `used` holds the titles
 * this plan already took. A file's title never starts with `$:/` (it could name a config
 * tiddler): system titles come only from our prefixes.
 */
export function freeTitle(base: string, target: ImportTarget, used: Set<string>, prefix = ''): string {
  const clean = prefix + (plainWords(base.replace(/^(\$:\/)+/, '')).slice(0, 200) || 'Imported chat');
  const taken = (t: string) => used.has(t) || target.exists(t) || target.hasParts(t);
  let title = clean;
  for (let n = 1; taken(title); n++) title = n === 1 ? `${clean} (imported)` : `${clean} (imported ${n})`;
  used.add(title);
  return title;
}

/** Words from a file for a title or caption, which TiddlyWiki shows as wikitext: no link, transclusion, widget or macro syntax. */
export function plainWords(text: string): string {
  return text
    .replace(/[|[\]{}<>\\$`]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** One message of a chat being built: only the fields a chat store message may carry. */
export interface PlannedMessage {
  role: 'user' | 'assistant' | 'tool' | 'error';
  text: string;
  created?: string;
  extra?: TiddlerFields;
}

/** A chat tiddler and its message tiddlers, numbered in order, with the types the store gives them. */
export function chatTiddlers(title: string, agent: string, now: string, messages: PlannedMessage[], fields: TiddlerFields = {}): TiddlerFields[] {
  const chat = newChatFields(title, agent, { created: now, modified: now, ...fields });
  const out = [chat];
  messages.forEach((m, seq) => {
    out.push({
      ...m.extra,
      title: `${messagePrefix(title)}${seqName(seq)}`,
      text: m.text,
      // Imported words are untrusted: replies and errors render only through the safe rules.
      type: m.role === 'assistant' || m.role === 'error' ? REPLY_TYPE : 'text/plain',
      created: m.created ?? now,
      'agent-chat': title,
      'agent-seq': String(seq),
      role: m.role,
    });
  });
  return out;
}

/** Parse JSON or throw an ImportError that says so. */
export function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ImportError(`"${name}" is not JSON (${(e as Error).message}).`);
  }
}

/** A tiddler's tags as a list (TiddlyWiki's title list syntax). */
export function tagsOf(fields: Record<string, unknown>): string[] {
  const tags = fields.tags;
  if (Array.isArray(tags)) return tags.filter((t): t is string => typeof t === 'string');
  return typeof tags === 'string' ? parseTitleList(tags) : [];
}

/** A time (milliseconds since 1970) in TiddlyWiki's date format, UTC: YYYYMMDDhhmmssXXX. */
export function twDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:TZ.]/g, '');
}

export { AGENT_TAG };
