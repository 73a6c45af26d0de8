/*\
The checks every write tool makes before it touches a tiddler, enforced in code whatever
the prompt says: the tiddler must be visible to the agent and match the agent's
`agent-write-filter`, must not be open in an editor (a draft), and must not have changed
since the agent read it (optimistic concurrency on `modified`).
\*/
import type { WikiPort } from '../store/wiki-port';
import type { ToolContext, ToolOutput } from './tool';
import { isHiddenFromAgent } from './visibility';

/** Non-system tiddlers; chats and messages are excluded separately (visibility.ts). */
export const DEFAULT_WRITE_FILTER = '[!is[system]]';

export class WriteRefused extends Error {}

export function checkWritable(context: ToolContext, title: string): void {
  const { wiki } = context;
  if (!title.trim()) throw new WriteRefused('The title is empty.');
  if (isHiddenFromAgent(title, wiki.getFields(title))) throw new WriteRefused(`"${title}" is not accessible to the agent.`);
  const filter = context.agent['agent-write-filter']?.trim() || DEFAULT_WRITE_FILTER;
  if (!wiki.filter('[<title>] +[subfilter<write-filter>]', { title, 'write-filter': filter }).length) {
    throw new WriteRefused(`"${title}" is outside what this agent may write (agent-write-filter: ${filter}).`);
  }
  if (wiki.filter('[all[tiddlers]field:draft.of<title>]', { title }).length) {
    throw new WriteRefused(`"${title}" is open in an editor right now; the user's draft must be saved or cancelled first.`);
  }
}

/** Refuse when the tiddler changed since the agent read it. */
export function checkUnchanged(wiki: WikiPort, title: string, modified: string): void {
  const fields = wiki.getFields(title);
  if (!fields) throw new WriteRefused(`"${title}" does not exist.`);
  const current = fields.modified ?? '';
  if (current !== modified.trim()) {
    throw new WriteRefused(`"${title}" changed since you read it (modified ${current || 'never'}, you sent ${modified || 'nothing'}). Its current text is in the "Current tiddler" section; use it and its modified value.`);
  }
}

/** Run a write; a refusal or error becomes an error result that refreshes the Current tiddler. */
export function guardedWrite(title: string, write: () => string): ToolOutput {
  try {
    return { content: write(), currentTiddler: title };
  } catch (e) {
    return { ok: false, content: e instanceof Error ? e.message : String(e), currentTiddler: title };
  }
}

export function modificationFields(wiki: WikiPort): { modified: string } {
  return { modified: wiki.now() };
}
