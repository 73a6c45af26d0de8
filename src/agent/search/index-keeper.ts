/*\
Keeps a TextIndex in step with a wiki it cannot see: the host (runner/host/text-index-host.ts)
lends a source (what the index should hold for a title now) and says which titles changed.
The first build runs in slices, each until the host's deadline, so a big wiki is indexed in
idle time; changes only mark titles, and the marked ones are brought up to date when the index
is next asked, so every answer reflects every write before it and a burst of writes costs
nothing until then.
\*/
import { type IndexedTiddler, TextIndex } from './text-index';

export interface TextIndexSource<V> {
  /** Every title the index may hold (the wiki's own tiddlers, hidden ones included). */
  titles(): string[];
  /** The tiddler a title holds now, or undefined when the index must not hold it (gone, hidden). */
  current(title: string): V | undefined;
  /** What the index holds of it. */
  document(title: string, version: V): IndexedTiddler;
}

export interface BuildProgress {
  indexed: number;
  total: number;
}

/** Titles synced between two looks at the deadline. */
const SLICE = 64;

export class IndexKeeper<V> {
  readonly index = new TextIndex();
  /** The version (the tiddler object) each indexed title was indexed from. */
  private readonly versions = new Map<string, V>();
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
    if (version === undefined) {
      this.index.remove(title);
      this.versions.delete(title);
    } else {
      this.index.put(this.source.document(title, version));
      this.versions.set(title, version);
    }
  }
}
