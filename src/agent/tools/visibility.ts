/*\
What the agent's tools may never see: chats and their messages (the conversation itself),
`$:/temp/HttpRequest*` tiddlers (their JSON carries request headers, keys included) and
anything else that may hold a secret. Enforced in code for every read tool and every
filter the model supplies.
\*/
import type { TiddlerFields } from '../store/wiki-port';

/** Appended to every filter run for the agent; removes hidden tiddlers from its results. */
export const HIDDEN_FROM_AGENT_FILTER =
  '-[has[agent]] -[has[agent-chat]] -[prefix[$:/ai/]] -[prefix[$:/temp/HttpRequest]] -[tag[$:/tags/HttpRequest]] -[prefix[$:/temp/tiddlyagent/]] -[[$:/isEncrypted]] -[prefix[$:/state/password]]';

export function isHiddenFromAgent(title: string, fields: TiddlerFields | undefined): boolean {
  if (title.startsWith('$:/ai/') || title.startsWith('$:/temp/HttpRequest') || title.startsWith('$:/temp/tiddlyagent/')) return true;
  if (title === '$:/isEncrypted' || title.startsWith('$:/state/password')) return true;
  if (!fields) return false;
  if (fields.agent !== undefined || fields['agent-chat'] !== undefined) return true;
  return /(^|\s)\$:\/tags\/HttpRequest(\s|$)/.test(fields.tags ?? '');
}

/** Run the model's filter with hidden tiddlers removed from the result. */
export function agentFilter(filter: string): string {
  return `[subfilter<agent-filter>] ${HIDDEN_FROM_AGENT_FILTER}`;
}
