/*\
What the agent's tools may never see: chats and their messages (the conversation itself),
`$:/ai/*` (journals and the engine's own state), `$:/temp/HttpRequest*` tiddlers (their JSON
carries request headers, keys included) and anything else that may hold a secret. The
runner's agent view of the wiki (WikiPort.agentView) applies this to every read path, so
for the model these tiddlers do not exist at all.
\*/
import { parseTitleList } from '../store/wiki-port';

/** Field values as strings (WikiPort) or as TiddlyWiki stores them (tags as an array). */
type AnyFields = Record<string, unknown>;

const HIDDEN_PREFIXES = ['$:/ai/', '$:/temp/HttpRequest', '$:/temp/tiddlyagent/', '$:/state/password'];
const HTTP_REQUEST_TAG = '$:/tags/HttpRequest';

export function isHiddenTitle(title: string): boolean {
  return title === '$:/isEncrypted' || HIDDEN_PREFIXES.some((p) => title.startsWith(p));
}

export function isHiddenFromAgent(title: string, fields: AnyFields | undefined): boolean {
  // Called for every tiddler a view iterates or looks up (millions of times for a sort of a
  // big wiki): titles that cannot be hidden are told apart by their first character.
  if (title.charCodeAt(0) === 36 /* $ */ && isHiddenTitle(title)) return true;
  if (!fields) return false;
  if (fields.agent !== undefined || fields['agent-chat'] !== undefined) return true;
  const tags = fields.tags;
  if (Array.isArray(tags)) return tags.includes(HTTP_REQUEST_TAG);
  return typeof tags === 'string' && tags.includes(HTTP_REQUEST_TAG) && parseTitleList(tags).includes(HTTP_REQUEST_TAG);
}
