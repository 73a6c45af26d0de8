/*\
The versions of a chat at its forks, read from its parked messages (runner/services/branches.ts
writes them; the fields are documented there): which seqs fork, how many versions each has
and which one the chat shows. Pure, so the chat UI counts "2/3" the way the runner does.
\*/
import { isPart } from './chat-parts';

/** The versions at one fork: their numbers in order, and the active one's (absent when the active path has no message there). */
export interface ForkVersions {
  versions: number[];
  active?: number;
}

export interface Head {
  id: string;
  at: number;
  version: number;
}

export function whole(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** The first message of each top-level parked version: a parked message that starts its branch (its seq is the fork's). */
export function heads(chat: string, titles: readonly string[], read: (title: string) => Record<string, unknown> | undefined): Head[] {
  const out: Head[] = [];
  for (const title of titles) {
    const f = read(title);
    // Only under the chat's own title scheme: a tiddler elsewhere with these fields is no branch.
    if (!f || !isPart('branches', chat, title, f) || f['agent-branch-parent']) continue;
    const at = whole(f['agent-branch-at'] as string | undefined);
    if (at === undefined || whole(f['agent-seq'] as string | undefined) !== at) continue;
    out.push({ id: String(f['agent-branch']), at, version: whole(f['agent-version'] as string | undefined) ?? 0 });
  }
  return out;
}

/** The active version's number at a fork: its own, or one past the parked ones when it is the newest. */
export function activeVersion(fields: Record<string, unknown> | undefined, parked: number[]): number {
  const own = whole(fields?.['agent-version'] as string | undefined);
  return own !== undefined && !parked.includes(own) ? own : Math.max(0, ...parked) + 1;
}

/**
 * Every fork of the chat's active path, by seq: `titles` are the tiddlers with
 * `agent-branch-chat` = chat, `activeAt(seq)` the active message at a seq (the UI and the
 * runner read the wiki their own way).
 */
export function forkVersions(
  chat: string,
  titles: readonly string[],
  read: (title: string) => Record<string, unknown> | undefined,
  activeAt: (seq: number) => Record<string, unknown> | undefined,
): Map<number, ForkVersions> {
  const byAt = new Map<number, number[]>();
  for (const head of heads(chat, titles, read)) byAt.set(head.at, [...(byAt.get(head.at) ?? []), head.version]);
  const forks = new Map<number, ForkVersions>();
  for (const [at, parked] of byAt) {
    const active = activeAt(at);
    const versions = active ? [...parked, activeVersion(active, parked)] : parked;
    forks.set(at, { versions: versions.sort((a, b) => a - b), active: active ? activeVersion(active, parked) : undefined });
  }
  return forks;
}
