/*\
TiddlyWiki's syncer, told only what changed. After every change event and every task it
completes, the core syncer asks for every tiddler its sync filter selects (`[is[tiddler]]
-[prefix[$:/state/]] …` run over the whole wiki) to find the few whose change count is ahead of
what was saved: 100-200 ms per look on a 100,000-tiddler wiki, several looks per agent round
(each message and status is a change), so a round cost 600-700 ms there against 30-60 ms on
1,000 tiddlers.

The server edition gives the syncer a smaller source for that one question: the titles that may
need saving, kept by an indexer the wiki calls inside every addTiddler and deleteTiddler (before
the change event that wakes the syncer). The syncer's filter still decides which of them it
syncs and its change counts whether each is saved; a title that is saved, gone or not synced
leaves the set at the next look. A full rebuild of the wiki's indexes (plugins (un)packed) makes
the next look a whole-wiki one again. Any other question (a change event's own titles) goes to
the syncer as before. A wiki whose indexers are restricted keeps the core behaviour.
\*/

type SourceIterator = (callback: (tiddler: unknown, title: string) => void) => void;

interface Syncer {
  getSyncedTiddlers(source?: SourceIterator): string[];
  chooseNextTask(): unknown;
  tiddlerInfo: Record<string, { changeCount: number } | undefined>;
  tiddlyagentChangesOnly?: boolean;
}

interface IndexingWiki {
  addIndexer(indexer: object, name: string): void;
  getIndexer(name: string): unknown;
  tiddlerExists(title: string): boolean;
  getTiddler(title: string): unknown;
  getChangeCount(title: string): number;
}

interface UpdateDescriptor {
  old: { tiddler?: { fields: { title: string } } };
  new: { tiddler?: { fields: { title: string } } };
}

const INDEXER_NAME = 'TiddlyAgentSyncerChanges';

/** Make the syncer's whole-wiki look a look at the changed titles only (once per syncer). */
export function syncChangesOnly(syncer: Syncer | undefined, wiki: IndexingWiki): void {
  if (!syncer || syncer.tiddlyagentChangesOnly || typeof syncer.getSyncedTiddlers !== 'function') return;
  const all = syncer.getSyncedTiddlers.bind(syncer);
  const candidates = new Set<string>();
  /** Titles deleted since the last look (a delete task is due for those the syncer knows). */
  const deleted = new Set<string>();
  let everything = true;
  const indexer = {
    init() {},
    rebuild() {
      everything = true;
    },
    update(d: UpdateDescriptor) {
      const title = (d.new.tiddler ?? d.old.tiddler)?.fields.title;
      if (title === undefined) return;
      candidates.add(title);
      if (!d.new.tiddler) deleted.add(title);
    },
  };
  wiki.addIndexer(indexer, INDEXER_NAME);
  if (wiki.getIndexer(INDEXER_NAME) !== indexer) return;
  const unsaved = (title: string): boolean => {
    const info = syncer.tiddlerInfo[title];
    return !info || wiki.getChangeCount(title) > info.changeCount;
  };
  const known = (title: string) => Object.hasOwn(syncer.tiddlerInfo, title);
  const chooseNextTask = syncer.chooseNextTask.bind(syncer);
  // Its last step looks for titles it knows (tiddlerInfo's own keys) that are gone: while it
  // chooses, it sees an object whose own keys are only the deleted titles it knows and whose
  // prototype is the real record (every other lookup finds the same entry there).
  syncer.chooseNextTask = () => {
    if (everything) {
      for (const title of Object.keys(syncer.tiddlerInfo)) if (!wiki.tiddlerExists(title)) deleted.add(title);
      return chooseNextTask();
    }
    const real = syncer.tiddlerInfo;
    const view: Syncer['tiddlerInfo'] = Object.create(real);
    for (const title of deleted) {
      if (known(title) && !wiki.tiddlerExists(title)) view[title] = real[title];
      else deleted.delete(title);
    }
    syncer.tiddlerInfo = view;
    try {
      return chooseNextTask();
    } finally {
      syncer.tiddlerInfo = real;
    }
  };
  syncer.getSyncedTiddlers = (source) => {
    if (source) return all(source);
    let titles: string[];
    if (everything) {
      everything = false;
      titles = all();
      candidates.clear();
    } else {
      titles = all((callback) => {
        for (const title of candidates) callback(wiki.tiddlerExists(title) && wiki.getTiddler(title), title);
      });
      candidates.clear();
    }
    // What stays to look at next time: selected and not saved yet (a save task runs after this look).
    for (const title of titles) if (unsaved(title)) candidates.add(title);
    return titles;
  };
  syncer.tiddlyagentChangesOnly = true;
}
