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
import { encodeTextIndex } from './saved-text-index';
import { fingerprint, type IndexedTiddler, TextIndex } from './text-index';

export interface TextIndexSource<V> {
  /** Every title the index may hold (the wiki's own tiddlers, hidden ones included). */
  titles(): string[];
  /** The tiddler a title holds now, or undefined when the index must not hold it (gone, hidden). */
  current(title: string): V | undefined;
  /** What the index holds of it. */
  document(title: string, version: V): IndexedTiddler;
}

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
  /** While a restored index is checked: the titles it holds not looked at yet. */
  private unchecked: Set<string> | undefined;
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

  /** True while a restored index is being checked. */
  get checking(): boolean {
    return this.unchecked !== undefined;
  }

  /** Start from a saved index (before the first build, which then checks it instead). */
  restore(index: TextIndex): void {
    if (this.started) throw new Error('The text index is already being built.');
    this.index = index;
    this.unchecked = new Set(index.titleList());
  }

  /** What to keep on disk (search/saved-text-index.ts), or undefined while the first build runs. */
  save(): Uint8Array | undefined {
    const index = this.current();
    return index && encodeTextIndex(index);
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
    for (const title of this.unchecked ?? []) this.drop(title, true);
    this.unchecked = undefined;
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
    const wasSaved = this.unchecked?.delete(title) ?? false;
    if (version === undefined) {
      this.drop(title, wasSaved);
      return;
    }
    const entry = this.source.document(title, version);
    const print = fingerprint(entry);
    this.versions.set(title, version);
    if (this.index.fingerprintOf(title) === print) return;
    if (wasSaved) this.restored.reindexed++;
    else if (this.unchecked) this.restored.added++;
    this.index.put(entry, print);
    this.revision++;
  }

  private drop(title: string, wasSaved: boolean): void {
    this.versions.delete(title);
    if (!this.index.has(title)) return;
    this.index.remove(title);
    this.revision++;
    if (wasSaved) this.restored.removed++;
  }
}
