/*\
The text index of a wiki (search/index-keeper.ts over search/text-index.ts), one per wiki
object, made when something first searches: never at page load or server start. It holds
the wiki's own tiddlers (not shadows) that the agent may see (tools/visibility.ts), titles
and tags only for binary and plugin tiddlers (a plugin's text is its shadows).

Changes reach it through a TiddlyWiki indexer, which the wiki calls inside every addTiddler
and deleteTiddler (a rename is both); the wiki's change events come a tick later, so a search
right after a write would miss it. The indexer only marks the title; the keeper re-reads it
when the index is next asked. A tiddler that becomes hidden (gets an `agent` field, say)
leaves the index that way, and plugins being (un)packed get every title looked at again.

The first build runs 50 ms at once (a small wiki is done by then, so the first search is
ranked) and then in slices: in idle callbacks in a browser, with a macrotask between slices
under Node so the server keeps answering. In a browser the build's progress is shown in
$:/temp/tiddlyagent/text-index (hidden from the agent, never saved), which the ranked search
results tab transcludes, so it refreshes when the index is ready.

Where the index is kept between runs (the server edition: `agent-state/text-index.bin`,
keepIn), it is read at start (search/saved-text-index.ts: a fraction of a second for 100,000
tiddlers) and checked against the tiddlers in slices (search/index-keeper.ts: fingerprints); a
search during the check finishes it at once, so answers after a restart are ranked from the
first. It is saved once ready (if it changed) and as the server stops: what changed after the
last save is found by the check at the next start. A file that cannot be read is logged and
the index built again.
\*/
import type { Wiki } from 'tiddlywiki';
import type { RankedSearch, RankedSearchOptions } from '../../store/wiki-port';
import { IndexKeeper, type TextIndexSource } from '../../search/index-keeper';
import { decodeTextIndex } from '../../search/saved-text-index';
import type { TiddlerFields } from '../../store/wiki-port';
import { documentReading, PDF_TYPE } from '../../tools/documents';
import { isBinaryType } from '../../tools/format';
import { cachedDocument } from './pdf-text';
import { isHiddenFromAgent } from '../../tools/visibility';

type Tiddler = NonNullable<ReturnType<Wiki['getTiddler']>>;

export const TEXT_INDEX_STATUS = '$:/temp/tiddlyagent/text-index';
const INDEXER_NAME = 'TiddlyAgentTextIndexer';
const FIRST_SLICE_MS = 50;
const NODE_SLICE_MS = 10;
const STATUS_EVERY_MS = 500;

/** Where a text index is kept between runs. */
export interface TextIndexStore {
  /** Where it is, for a log line. */
  where: string;
  /** The bytes saved last, or undefined when there are none (read at once: the first search comes right after). */
  load(): Uint8Array | undefined;
  save(data: Uint8Array): Promise<void>;
}

export interface KeptTextIndex {
  /** Resolves once the index is loaded and checked, or built. */
  ready: Promise<void>;
  /** Save it (if it changed since it was saved), once it is ready. */
  stop(): Promise<void>;
}

interface UpdateDescriptor {
  old: { tiddler?: Tiddler };
  new: { tiddler?: Tiddler };
}

interface IndexingWiki {
  allTitles(): string[];
  addIndexer(indexer: object, name: string): void;
  getIndexer(name: string): unknown;
  addEventListener(type: 'change', listener: (changes: Record<string, unknown>) => void): void;
}

export class TextIndexHost {
  private readonly keeper: IndexKeeper<Tiddler>;
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;
  private statusAt = 0;
  constructor(private readonly wiki: Wiki) {
    const source: TextIndexSource<Tiddler> = {
      titles: () => (wiki as unknown as IndexingWiki).allTitles(),
      current: (title) => {
        const tiddler = wiki.tiddlerExists(title) ? wiki.getTiddler(title) : undefined;
        return tiddler && !isHiddenFromAgent(title, tiddler.fields as Record<string, unknown>) ? tiddler : undefined;
      },
      document: (title, tiddler) => {
        const fields = tiddler.fields as Record<string, unknown>;
        const textual = !isBinaryType(fields.type as string | undefined) && fields['plugin-type'] === undefined;
        // A PDF by its pages' text with their [page N] markers, once extracted (pdf-text.ts); then looked at again.
        const pdf = fields.type !== PDF_TYPE ? undefined : cachedDocument(tiddler.getFieldStrings() as TiddlerFields, () => this.keeper.changed(title));
        const text = textual ? String(fields.text ?? '') : pdf ? documentReading(pdf).text : '';
        return { title, tags: (fields.tags as string[] | undefined) ?? [], text };
      },
    };
    this.keeper = new IndexKeeper(source);
    const w = wiki as unknown as IndexingWiki;
    const indexer = {
      init() {},
      rebuild: () => this.keeper.changedAll(),
      update: (d: UpdateDescriptor) => this.keeper.changed((d.new.tiddler ?? d.old.tiddler)!.fields.title as string),
    };
    w.addIndexer(indexer, INDEXER_NAME);
    // A wiki made with only some indexers enabled refuses ours: its change events, a tick late, instead.
    if (w.getIndexer(INDEXER_NAME) !== indexer) {
      w.addEventListener('change', (changes) => {
        for (const title of Object.keys(changes)) this.keeper.changed(title);
      });
    }
  }

  search(query: string, options: RankedSearchOptions = {}): RankedSearch {
    const index = this.start(true);
    if (!index) return { ready: false, ...this.keeper.progress() };
    return { ready: true, hits: index.search(query, options) };
  }

  /** Resolves once the first build is complete (starting it if need be). */
  whenReady(): Promise<void> {
    if (this.start()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Keep the index in `store`: load and check it (or build it) now, then save it as it changes. */
  keepIn(store: TextIndexStore, log: (line: string) => void): KeptTextIndex {
    const started = Date.now();
    let savedRevision = -1;
    const save = async () => {
      if (this.keeper.revision === savedRevision) return;
      const began = Date.now();
      const saved = this.keeper.save();
      if (!saved) return;
      savedRevision = this.keeper.revision;
      try {
        await store.save(saved);
        log(`TiddlyAgent: the search index was saved in ${store.where} (${(saved.length / 1e6).toFixed(1)} MB, ${((Date.now() - began) / 1000).toFixed(1)} s)`);
      } catch (e) {
        log(`TiddlyAgent: the search index could not be saved in ${store.where}: ${messageOf(e)}`);
      }
    };
    const restored = this.restoreFrom(store, log);
    const ready = this.whenReady().then(async () => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const size = this.keeper.index.size;
      if (restored) {
        const { reindexed, added, removed } = this.keeper.restored;
        log(
          `TiddlyAgent: the search index of ${size} tiddlers was loaded from ${store.where} in ${seconds} s (${reindexed} re-indexed, ${added} added, ${removed} removed)`,
        );
        savedRevision = 0;
      } else log(`TiddlyAgent: the search index of ${size} tiddlers was built in ${seconds} s (kept in ${store.where})`);
      await save();
    });
    return { ready, stop: () => ready.then(save) };
  }

  /** True when a saved index was read (it is then checked instead of built). */
  private restoreFrom(store: TextIndexStore, log: (line: string) => void): boolean {
    try {
      const bytes = store.load();
      if (bytes === undefined) return false;
      this.keeper.restore(decodeTextIndex(bytes));
      return true;
    } catch (e) {
      log(`TiddlyAgent: the saved search index ${store.where} could not be read (${messageOf(e)}); building it again`);
      return false;
    }
  }

  /** Build the rest at once (the benchmark, to time a whole build). */
  buildNow(): void {
    this.keeper.step();
    this.finished();
  }

  private start(finishCheck = false) {
    // A restored index is all but ready: a search finishes its check rather than answering unranked.
    if (finishCheck && this.keeper.checking && this.keeper.step()) this.finished();
    if (!this.keeper.started) {
      if (this.keeper.step(deadlineIn(FIRST_SLICE_MS))) this.finished();
      else {
        this.schedule();
        this.showStatus();
      }
    }
    return this.keeper.current();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const work = (timeUp: () => boolean) => {
      this.scheduled = false;
      if (this.keeper.step(timeUp)) this.finished();
      else {
        this.showStatus();
        this.schedule();
      }
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback((deadline) => work(() => deadline.timeRemaining() < 1), { timeout: 1000 });
    else setTimeout(() => work(deadlineIn(NODE_SLICE_MS)), 0);
  }

  private finished(): void {
    if ($tw.browser && this.wiki.tiddlerExists(TEXT_INDEX_STATUS)) this.wiki.deleteTiddler(TEXT_INDEX_STATUS);
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  private showStatus(): void {
    if (!$tw.browser || Date.now() - this.statusAt < STATUS_EVERY_MS) return;
    this.statusAt = Date.now();
    const { indexed, total } = this.keeper.progress();
    this.wiki.addTiddler(
      new $tw.Tiddler({
        title: TEXT_INDEX_STATUS,
        text: `Building the search index: ${Math.floor((indexed / Math.max(1, total)) * 100)}% of ${total} tiddlers…`,
      }),
    );
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function deadlineIn(ms: number): () => boolean {
  const end = Date.now() + ms;
  return () => Date.now() >= end;
}

const hosts = new WeakMap<Wiki, TextIndexHost>();

/** The text index of a wiki (not of a view of it: tiddlywiki-port.ts finds the wiki under a view). */
export function textIndexOf(wiki: Wiki): TextIndexHost {
  let host = hosts.get(wiki);
  if (!host) {
    host = new TextIndexHost(wiki);
    hosts.set(wiki, host);
  }
  return host;
}

/** Keep the text index of `wiki` in `store` (the server edition: a file beside the wiki). */
export function keepTextIndexIn(wiki: Wiki, store: TextIndexStore, log: (line: string) => void): KeptTextIndex {
  return textIndexOf(wiki).keepIn(store, log);
}
