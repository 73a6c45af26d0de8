/*\
What the agent's tools may never see: chats and their messages (the conversation itself),
`$:/ai/*` (journals and the engine's own state), `$:/temp/HttpRequest*` tiddlers (their JSON
carries request headers, keys included), memories (tagged `$:/tags/AI/Memory`: an agent gets
those in scope in its prompt, never another agent's through a read), an editor's draft of
any of these, and anything else that may hold a secret. The
runner's agent view of the wiki (WikiPort.agentView) applies this to every read path, so
for the model these tiddlers do not exist at all.
\*/
import { parseTitleList } from '../store/wiki-port';

/** Field values as strings (WikiPort) or as TiddlyWiki stores them (tags as an array). */
type AnyFields = Record<string, unknown>;

const HIDDEN_PREFIXES = ['$:/ai/', '$:/temp/HttpRequest', '$:/temp/tiddlyagent/', '$:/state/password'];
const HTTP_REQUEST_TAG = '$:/tags/HttpRequest';
/** store/memory.ts's MEMORY_TAG (not imported: this module is on every read path and stays leaf). */
const MEMORY_TAG = '$:/tags/AI/Memory';
const HIDING_TAGS = [HTTP_REQUEST_TAG, MEMORY_TAG];

export function isHiddenTitle(title: string): boolean {
  return title === '$:/isEncrypted' || HIDDEN_PREFIXES.some((p) => title.startsWith(p));
}

export function isHiddenFromAgent(title: string, fields: AnyFields | undefined): boolean {
  // Called for every tiddler a view iterates or looks up (millions of times for a sort of a
  // big wiki): titles that cannot be hidden are told apart by their first character.
  if (title.charCodeAt(0) === 36 /* $ */ && isHiddenTitle(title)) return true;
  if (!fields) return false;
  if (fields.agent !== undefined || fields['agent-chat'] !== undefined) return true;
  // A draft is titled "Draft of '<title>'": while the editor is open it holds what its original does.
  const draftOf = fields['draft.of'];
  if (typeof draftOf === 'string' && isHiddenTitle(draftOf)) return true;
  const tags = fields.tags;
  if (Array.isArray(tags)) return HIDING_TAGS.some((tag) => tags.includes(tag));
  return typeof tags === 'string' && HIDING_TAGS.some((tag) => tags.includes(tag) && parseTitleList(tags).includes(tag));
}
