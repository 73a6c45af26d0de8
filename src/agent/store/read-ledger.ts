/*\
What the agent read: the versions (fingerprint.ts) of the tiddlers a chat's messages showed
it, so a write lands only on the version the agent last read. Messages are the source of
truth (DESIGN 5): a message that showed tiddlers carries `agent-read`, JSON
`{"<title>": "<fingerprint>"}` (a tool result of a read; a write's result, for the version it
wrote; a reply, for the Current tiddler section of the prompt it answered). The ledger of a
call is folded from the chat's active messages up to the reply that made the call, later
messages winning, so it is the same after a reload or a server restart, and a parked branch
or a deleted turn reads nothing.
\*/
import type { Message } from './schemas';

/** Message field: the versions the message showed the agent, JSON {title: fingerprint}. */
export const READ_FIELD = 'agent-read';

/** Title -> fingerprint of the version read. */
export type Reads = Record<string, string>;

/** The versions a message recorded; a field that does not parse records nothing. */
export function parseReads(value: string | undefined): Reads {
  if (!value) return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** The field's value for `reads`, or undefined when there is nothing to record. */
export function stringifyReads(reads: Reads | undefined): string | undefined {
  return reads && Object.keys(reads).length ? JSON.stringify(reads) : undefined;
}

/** The version of each tiddler the agent last read, through the message numbered `throughSeq`. */
export function readLedger(messages: readonly Message[], throughSeq: number): Map<string, string> {
  const ledger = new Map<string, string>();
  const ordered = messages.filter((m) => m['agent-seq'] <= throughSeq && m[READ_FIELD]).sort((a, b) => a['agent-seq'] - b['agent-seq']);
  for (const m of ordered) for (const [title, version] of Object.entries(parseReads(m[READ_FIELD]))) ledger.set(title, version);
  return ledger;
}
