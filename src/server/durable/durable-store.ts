/*\
DurableStore: what the server's runner writes (messages, chat status, journals, the notes
its tools change) is on disk before anyone is told about it, all of one step or none of it.

The runner's WikiPort marks each title it writes; at the end of the synchronous step (a
microtask, or earlier when the push channel is about to announce the change) `flush` writes
an intent record (every tiddler of the step, whole) to `intent.json`, then the tiddler
files (atomically, through the filesystem adaptor's own naming rules), then removes the
record. A kill before the record is complete changes nothing on disk; a kill after it is
redone at the next start (`recover`), so a tool's write and its journal land together and a
body + .meta pair is never half-new. The syncer is told the tiddlers are saved, so it does
not write them again (and no slower write can land over a newer one).
\*/
import fs from 'node:fs';
import type { Wiki } from 'tiddlywiki';
import path from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { deleteTiddlerFiles, saveTiddlerFileAtomic, type FileInfo } from './tiddler-files';

type Fields = Record<string, string>;
type Entry = { put: Fields } | { delete: string };

interface Adaptor {
  name?: string;
  getTiddlerFileInfo(tiddler: unknown, callback: (err: unknown, info: FileInfo) => void): void;
  getTiddlerInfo(tiddler: unknown): unknown;
}

interface Syncer {
  tiddlerInfo: Record<string, { changeCount: number; adaptorInfo: unknown; revision?: string; timestampLastSaved?: Date }>;
}

export class DurableStore {
  private pending = new Set<string>();
  private scheduled = false;
  private readonly intentPath: string;
  /** Called with the titles of each flushed step, once they are on disk. */
  onFlushed?: (titles: string[]) => void;
  /** Figures for the benchmark and the tests. */
  readonly stats = { steps: 0, files: 0 };

  constructor(
    private readonly wiki: Wiki,
    stateDir: string,
    private readonly adaptor: Adaptor | undefined,
  ) {
    this.intentPath = path.join(stateDir, 'intent.json');
  }

  /** Whether tiddlers reach files (a wiki folder with the filesystem adaptor). */
  get persists(): boolean {
    return this.adaptor?.name === 'filesystem';
  }

  /** Whether this step has written something that is not on disk yet. */
  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** A title the runner wrote (or deleted) in this step. */
  mark(title: string): void {
    this.pending.add(title);
    if (this.scheduled) return;
    this.scheduled = true;
    // (TiddlyWiki's module sandbox has no queueMicrotask)
    void Promise.resolve().then(() => this.flush());
  }

  /** Put this step's tiddlers on disk; returns their titles. */
  flush(): string[] {
    this.scheduled = false;
    if (!this.pending.size) return [];
    const titles = [...this.pending];
    this.pending.clear();
    if (this.persists) {
      const entries: Entry[] = titles.map((title) => {
        const tiddler = this.wiki.getTiddler(title);
        return tiddler ? { put: tiddler.getFieldStrings() as Fields } : { delete: title };
      });
      this.apply(entries);
    }
    this.stats.steps++;
    this.onFlushed?.(titles);
    return titles;
  }

  /** Redo a step a kill interrupted (at start-up, before anything else writes). */
  recover(): string[] {
    if (!fs.existsSync(this.intentPath)) return [];
    let entries: Entry[];
    try {
      entries = JSON.parse(fs.readFileSync(this.intentPath, 'utf8')) as Entry[];
    } catch {
      // A record cut off while it was written: its step had not touched any tiddler file.
      fs.rmSync(this.intentPath, { force: true });
      return [];
    }
    for (const entry of entries) {
      if ('put' in entry) this.wiki.addTiddler(new $tw.Tiddler(entry.put));
      else this.wiki.deleteTiddler(entry.delete);
    }
    this.apply(entries);
    return entries.map((e) => ('put' in e ? e.put.title! : e.delete));
  }

  private apply(entries: Entry[]): void {
    const several = entries.length > 1 || entries.some((e) => 'put' in e && this.fileInfo(e.put.title!)?.hasMetaFile);
    if (several) writeFileAtomic(this.intentPath, JSON.stringify(entries));
    for (const entry of entries) {
      if ('put' in entry) this.save(entry.put.title!);
      else this.remove(entry.delete);
      this.stats.files++;
    }
    if (several) fs.rmSync(this.intentPath, { force: true });
  }

  private fileInfo(title: string): FileInfo | undefined {
    const tiddler = this.wiki.getTiddler(title);
    if (!tiddler || !this.adaptor) return undefined;
    let info: FileInfo | undefined;
    this.adaptor.getTiddlerFileInfo(tiddler, (err, fileInfo) => {
      if (err) throw err instanceof Error ? err : new Error(String(err));
      info = fileInfo;
    });
    return info;
  }

  private save(title: string): void {
    const tiddler = this.wiki.getTiddler(title);
    const info = this.fileInfo(title);
    if (!tiddler || !info) return;
    const files = $tw.boot.files as Record<string, FileInfo>;
    const old = files[title];
    saveTiddlerFileAtomic(tiddler as never, info);
    files[title] = info;
    if (old && old.filepath !== info.filepath) deleteTiddlerFiles(old);
    const syncer = ($tw as unknown as { syncer?: Syncer }).syncer;
    if (syncer)
      syncer.tiddlerInfo[title] = {
        changeCount: this.wiki.getChangeCount(title),
        adaptorInfo: this.adaptor!.getTiddlerInfo(tiddler),
        timestampLastSaved: new Date(),
      };
  }

  private remove(title: string): void {
    const files = $tw.boot.files as Record<string, FileInfo>;
    deleteTiddlerFiles(files[title]);
    delete files[title];
    const syncer = ($tw as unknown as { syncer?: Syncer }).syncer;
    if (syncer) delete syncer.tiddlerInfo[title];
  }
}
