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
\*/
import type { Wiki } from 'tiddlywiki';
import type { RankedSearch, RankedSearchOptions } from '../../store/wiki-port';
import { IndexKeeper, type TextIndexSource } from '../../search/index-keeper';
import { isBinaryType } from '../../tools/format';
import { isHiddenFromAgent } from '../../tools/visibility';

type Tiddler = NonNullable<ReturnType<Wiki['getTiddler']>>;

export const TEXT_INDEX_STATUS = '$:/temp/tiddlyagent/text-index';
const INDEXER_NAME = 'TiddlyAgentTextIndexer';
const FIRST_SLICE_MS = 50;
const NODE_SLICE_MS = 40;
const STATUS_EVERY_MS = 500;

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
        return { title, tags: (fields.tags as string[] | undefined) ?? [], text: textual ? String(fields.text ?? '') : '' };
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
    const index = this.start();
    if (!index) return { ready: false, ...this.keeper.progress() };
    return { ready: true, hits: index.search(query, options) };
  }

  /** Resolves once the first build is complete (starting it if need be). */
  whenReady(): Promise<void> {
    if (this.start()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Build the rest at once (the benchmark, to time a whole build). */
  buildNow(): void {
    this.keeper.step();
    this.finished();
  }

  private start() {
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
