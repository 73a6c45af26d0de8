/*\
What the agent's tools may never see: chats and their messages (the conversation itself),
`$:/temp/HttpRequest*` tiddlers (their JSON carries request headers, keys included) and
anything else that may hold a secret. Enforced in code for every read tool and every
filter the model supplies.
\*/
import type { TiddlerFields } from '../store/wiki-port';

export function isHiddenFromAgent(title: string, fields: TiddlerFields | undefined): boolean {
  if (title.startsWith('$:/ai/') || title.startsWith('$:/temp/HttpRequest') || title.startsWith('$:/temp/tiddlyagent/')) return true;
  if (title === '$:/isEncrypted' || title.startsWith('$:/state/password')) return true;
  if (!fields) return false;
  if (fields.agent !== undefined || fields['agent-chat'] !== undefined) return true;
  return /(^|\s)\$:\/tags\/HttpRequest(\s|$)/.test(fields.tags ?? '');
}
