/*\
Keeps a TextIndex in step with a wiki it cannot see: the host (runner/host/text-index-host.ts)
lends a source (what the index should hold for a title now) and says which titles changed.
The first build runs in slices, each until the host's deadline, so a big wiki is indexed in
idle time; changes only mark titles, and the marked ones are brought up to date when the index
is next asked, so every answer reflects every write before it and a burst of writes costs
nothing until then.

A saved index (kept beside the wiki by the server edition) is restored before the first build
and checked instead of built: each title's fingerprint (a hash of what the index holds of it) is
compared with the one it was saved with; a title whose tiddler changed is indexed again, a new
one added, and one the index holds that is gone (or hidden) removed.
\*/
import { type IndexedTiddler, type SavedIndex, TextIndex } from './text-index';

export interface TextIndexSource<V> {
  /** Every title the index may hold (the wiki's own tiddlers, hidden ones included). */
  titles(): string[];
  /** The tiddler a title holds now, or undefined when the index must not hold it (gone, hidden). */
  current(title: string): V | undefined;
  /** What the index holds of it. */
  document(title: string, version: V): IndexedTiddler;
}

/** What is kept on disk: the index and, per title, the fingerprint of what it holds of it. */
export interface SavedTextIndex {
  format: typeof SAVED_FORMAT;
  fingerprints: Record<string, string>;
  index: SavedIndex;
}
export const SAVED_FORMAT = 1;

/** How a restored index differed from the wiki it was checked against. */
export interface RestoreReport {
  reindexed: number;
  added: number;
  removed: number;
}

export interface BuildProgress {
  indexed: number;
  total: number;
}

/** Titles synced between two looks at the deadline. */
const SLICE = 64;

export class IndexKeeper<V> {
  index = new TextIndex();
  /** The version (the tiddler object) each indexed title was indexed from. */
  private readonly versions = new Map<string, V>();
  /** The fingerprint of what the index holds of each title. */
  private readonly fingerprints = new Map<string, string>();
  /** While a restored index is checked: the saved fingerprints of the titles not looked at yet. */
  private saved: Map<string, string> | undefined;
  readonly restored: RestoreReport = { reindexed: 0, added: 0, removed: 0 };
  /** Moves on whenever what the index holds changes. */
  revision = 0;
  private readonly pending = new Set<string>();
  private queue: string[] | undefined;
  private done = 0;
  private built = false;

  constructor(private readonly source: TextIndexSource<V>) {}

  get ready(): boolean {
    return this.built;
  }

  get started(): boolean {
    return this.built || this.queue !== undefined;
  }

  progress(): BuildProgress {
    return { indexed: this.built ? this.index.size : this.done, total: this.built ? this.index.size : (this.queue?.length ?? 0) };
  }

  /** Start from a saved index (before the first build, which then checks it instead). */
  restore(index: TextIndex, fingerprints: Record<string, string>): void {
    if (this.started) throw new Error('The text index is already being built.');
    this.index = index;
    this.saved = new Map(Object.entries(fingerprints));
  }

  /** What to keep on disk, or undefined while the first build runs. */
  save(): SavedTextIndex | undefined {
    const index = this.current();
    return index && { format: SAVED_FORMAT, fingerprints: Object.fromEntries(this.fingerprints), index: index.save() };
  }

  /** A title was created, changed, renamed or deleted (or its visibility changed). */
  changed(title: string): void {
    this.pending.add(title);
  }

  /** Anything may have changed: every title is looked at again when the index is next asked. */
  changedAll(): void {
    for (const title of this.source.titles()) this.pending.add(title);
    for (const title of this.versions.keys()) this.pending.add(title);
  }

  /** Build for as long as `timeUp` says no; true once the index is complete. */
  step(timeUp: () => boolean = () => false): boolean {
    if (this.built) return true;
    this.queue ??= this.source.titles();
    const queue = this.queue;
    while (this.done < queue.length) {
      const end = Math.min(queue.length, this.done + SLICE);
      for (; this.done < end; this.done++) this.sync(queue[this.done]!);
      if (this.done < queue.length && timeUp()) return false;
    }
    this.queue = undefined;
    // What the saved index holds that the wiki no longer has.
    for (const title of this.saved?.keys() ?? []) this.drop(title, true);
    this.saved = undefined;
    this.built = true;
    this.flush();
    return true;
  }

  /** The index with every change so far applied, or undefined while the first build runs. */
  current(): TextIndex | undefined {
    if (!this.built) return undefined;
    this.flush();
    return this.index;
  }

  private flush(): void {
    for (const title of this.pending) this.sync(title);
    this.pending.clear();
  }

  private sync(title: string): void {
    const version = this.source.current(title);
    if (version !== undefined && version === this.versions.get(title)) return;
    const saved = this.saved?.get(title);
    if (saved !== undefined) {
      this.saved!.delete(title);
      this.fingerprints.set(title, saved);
    }
    if (version === undefined) {
      this.drop(title, saved !== undefined);
      return;
    }
    const entry = this.source.document(title, version);
    const print = fingerprint(entry);
    this.versions.set(title, version);
    if (this.fingerprints.get(title) === print && this.index.has(title)) return;
    if (this.saved && saved !== undefined) this.restored.reindexed++;
    else if (this.saved) this.restored.added++;
    this.index.put(entry);
    this.fingerprints.set(title, print);
    this.revision++;
  }

  private drop(title: string, wasSaved: boolean): void {
    this.versions.delete(title);
    this.fingerprints.delete(title);
    if (!this.index.has(title)) return;
    this.index.remove(title);
    this.revision++;
    if (wasSaved) this.restored.removed++;
  }
}

/** FNV-1a of what the index holds of a tiddler, with its length: equal when the title, tags and text are. */
export function fingerprint(entry: IndexedTiddler): string {
  let hash = 0x811c9dc5;
  const mix = (s: string) => {
    for (let i = 0; i < s.length; i++) hash = Math.imul(hash ^ s.charCodeAt(i), 16777619);
    hash = Math.imul(hash ^ 0xffff, 16777619);
  };
  mix(entry.title);
  for (const tag of entry.tags) mix(tag);
  mix(entry.text);
  return `${(hash >>> 0).toString(36)}.${(entry.title.length + entry.text.length).toString(36)}`;
}
