/*\
Memory (issue 27, DESIGN 4 "Memory"): facts the agent proposes with the `remember` tool and the
user reviews. A memory is a tiddler tagged `$:/tags/AI/Memory` whose text is the fact, with
`memory-status` (proposed | accepted), `memory-source` (the message it came from),
`memory-agent` (the agent it is scoped to; empty = every agent) and `memory-expires` (a
TiddlyWiki date or YYYY-MM-DD; empty = never). Proposals are written under `$:/ai/memory/`, so
they are hidden from the agent's view of the wiki (tools/visibility.ts) and the write gate
refuses them: the model reaches memories only through `remember` (which only ever proposes)
and the prompt's memory section (engine/plugins/memory.ts), which carries the accepted,
unexpired ones in scope as quoted data. Accepting, editing, scoping and expiring are the
user's, on ordinary tiddler fields.
\*/
import { parseTitleList, type TiddlerFields, type WikiPort } from './wiki-port';

export const MEMORY_TAG = '$:/tags/AI/Memory';
export const MEMORY_PREFIX = '$:/ai/memory/';
export const MEMORY_STATUS = 'memory-status';
export const MEMORY_SOURCE = 'memory-source';
export const MEMORY_AGENT = 'memory-agent';
export const MEMORY_EXPIRES = 'memory-expires';
/** A reply's field: the memories its prompt carried (a title list). */
export const REPLY_MEMORIES = 'agent-memories';
/** The longest fact `remember` proposes (characters). */
export const MAX_FACT_CHARS = 300;
/** Proposals of one chat that may wait for review at once: a model cannot flood the review list. */
export const MAX_PROPOSED = 20;

export class MemoryError extends Error {}

export interface Memory {
  title: string;
  text: string;
  agent: string;
  modified: string;
}

/**
 * When a memory stops reaching prompts (ms), undefined for never, NaN when the value is not a
 * date (such a memory is left out: an expiry the user set but mistyped is not "never").
 */
export function expiryTime(value: string | undefined): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  const tw = /^(\d{4})(\d{2})(\d{2})(\d{2})?(\d{2})?(\d{2})?(\d{3})?$/.exec(v);
  if (tw) {
    const [, y, mo, d, h, mi, s, ms] = tw;
    return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), Number(ms ?? 0));
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(v)) return Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
  return Number.NaN;
}

/** Whether `fields` are an accepted memory that reaches a prompt of `agent` at `now` (ms). */
export function inScope(fields: TiddlerFields | undefined, agent: string, now: number): boolean {
  if (!fields || !parseTitleList(fields.tags).includes(MEMORY_TAG) || fields['draft.of'] !== undefined) return false;
  if (fields[MEMORY_STATUS] !== 'accepted' || !fields.text?.trim()) return false;
  const scope = fields[MEMORY_AGENT]?.trim();
  if (scope && scope !== agent) return false;
  const expires = expiryTime(fields[MEMORY_EXPIRES]);
  return expires === undefined || expires > now;
}

/** The accepted, unexpired memories in scope for `agent`, newest first. `wiki`: the whole wiki (they are hidden from the agent's view). */
export function memoriesInScope(wiki: WikiPort, agent: string, now: number): Memory[] {
  return wiki.filter('[all[tiddlers]tag<tag>field:memory-status[accepted]!has[draft.of]!sort[modified]]', { tag: MEMORY_TAG }).flatMap((title) => {
    const fields = wiki.getFields(title);
    if (!inScope(fields, agent, now)) return [];
    return [{ title, text: fields!.text!.trim(), agent: fields![MEMORY_AGENT] ?? '', modified: fields!.modified ?? '' }];
  });
}

/** One memory as a line of data: a JSON string with no angle brackets, so it cannot close or open a tag. */
export function quotedFact(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

/** The proposals waiting for review, in the whole wiki. */
export function proposedMemories(wiki: WikiPort): string[] {
  return wiki.filter('[all[tiddlers]tag<tag>field:memory-status[proposed]!has[draft.of]]', { tag: MEMORY_TAG });
}

/**
 * Writes proposals and nothing else: the `remember` tool's only way into the wiki. `wiki`: the
 * whole wiki (a tool gets a MemoryBook, never the wiki itself).
 */
export class MemoryBook {
  constructor(private readonly wiki: WikiPort) {}

  /**
   * Propose `fact` (from message `source` of `chat`, scoped to `agent`); the title of the
   * proposal. "Already there" is said only of what this chat can know: an accepted memory its
   * prompt may carry (in scope, unexpired) or this chat's own proposal; never of an expired
   * memory, another chat's proposal or an editor's draft (a model could probe for them). The
   * cap on waiting proposals is per chat, so one chat cannot block `remember` in the others.
   */
  propose(fact: string, source: string, agent: string, chat: string, nowMs: number): { title: string; existing: boolean } {
    const text = fact.replace(/\s+/g, ' ').trim();
    if (!text) throw new MemoryError('The fact is empty.');
    if (text.length > MAX_FACT_CHARS)
      throw new MemoryError(`The fact has ${text.length} characters; at most ${MAX_FACT_CHARS}: keep it to one short sentence.`);
    const own = proposedMemories(this.wiki).filter((title) => this.chatOf(this.wiki.getFields(title)?.[MEMORY_SOURCE]) === chat);
    const same =
      memoriesInScope(this.wiki, agent, nowMs).find((m) => m.text === text)?.title ?? own.find((title) => this.wiki.getFields(title)?.text?.trim() === text);
    if (same) return { title: same, existing: true };
    if (own.length >= MAX_PROPOSED)
      throw new MemoryError(
        `${MAX_PROPOSED} proposed memories of this chat already wait for the user's review; no more can be proposed until they review them.`,
      );
    const now = this.wiki.now();
    let title = `${MEMORY_PREFIX}${now}`;
    for (let n = 2; this.wiki.getFields(title); n++) title = `${MEMORY_PREFIX}${now}-${n}`;
    this.wiki.putTiddler({
      title,
      tags: `[[${MEMORY_TAG}]]`,
      type: 'text/plain',
      text,
      created: now,
      modified: now,
      [MEMORY_STATUS]: 'proposed',
      [MEMORY_SOURCE]: source,
      [MEMORY_AGENT]: agent,
    });
    return { title, existing: false };
  }

  /** The chat a proposal came from: its source message's chat, or the chat itself. */
  private chatOf(source: string | undefined): string | undefined {
    return source ? (this.wiki.getFields(source)?.['agent-chat'] ?? source) : undefined;
  }
}
