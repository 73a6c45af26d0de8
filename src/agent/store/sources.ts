/*\
A reply's sources (issue 27, DESIGN 4 "Reply sources"): the tiddlers its turn's tools read
and those the reply cites by title, each with the `modified` and the fingerprint
(fingerprint.ts) of the version the agent saw. A reply carries them in `agent-sources`, JSON
`[{"title", "modified", "fingerprint", "cited"}]`. A cited title the turn never read has no
fingerprint: the chat shows it as unverified. Pure code: the engine records sources, the
chat shows them and tells when they changed, the export lists them.
\*/

/** Message field: the reply's sources, JSON (see the header). */
export const SOURCES_FIELD = 'agent-sources';

/** At most this many sources are recorded on one reply (a search can show hundreds of tiddlers). */
export const MAX_SOURCES = 60;

export interface Source {
  title: string;
  /** The `modified` of the version read ('' when unknown or never read). */
  modified: string;
  /** The fingerprint of the version read; '' for a cited title the turn never read (unverified). */
  fingerprint: string;
  cited: boolean;
}

/** The sources a field records; a field that does not parse records none. */
export function parseSources(value: unknown): Source[] {
  if (typeof value !== 'string' || !value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null && typeof (s as { title?: unknown }).title === 'string')
      .map((s) => ({
        title: String(s.title),
        modified: typeof s.modified === 'string' ? s.modified : '',
        fingerprint: typeof s.fingerprint === 'string' ? s.fingerprint : '',
        cited: s.cited === true,
      }));
  } catch {
    return [];
  }
}

/** The field's value, or undefined when there is nothing to record. */
export function stringifySources(sources: readonly Source[] | undefined): string | undefined {
  return sources?.length ? JSON.stringify(sources.slice(0, MAX_SOURCES)) : undefined;
}

/** The titles a reply cites: its `[[Title]]` and `[[label|Title]]` links, in order, each once. */
export function citedTitles(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/\[\[([^\]\n]+?)\]\]/g)) {
    const inner = match[1]!;
    const bar = inner.lastIndexOf('|');
    const title = (bar >= 0 ? inner.slice(bar + 1) : inner).trim();
    if (title) out.add(title);
  }
  return [...out];
}

/**
 * The sources whose change marks the reply: the cited ones it read; when it cites none of
 * what it read, everything it read.
 */
export function watchedSources(sources: readonly Source[]): Source[] {
  const verified = sources.filter((s) => s.fingerprint);
  const cited = verified.filter((s) => s.cited);
  return cited.length ? cited : verified;
}
