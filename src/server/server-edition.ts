/*\
The server edition, started when `tiddlywiki <wiki> --listen` starts serving (hook
th-server-command-post-start), before the first request is handled:
1. tiddler files are written atomically from now on, and a step a kill interrupted is
   redone (durable/);
2. the one LocalRunner of this process runs every browser's turns, its operations logged in
   `<wiki folder>/agent-state/operations.jsonl`, its writes marked for the durable store;
3. restart recovery: unfinished operations fail with "Interrupted by server restart", a chat
   left `working` becomes `interrupted` (the user's message kept), waiting chats keep waiting;
4. the push hub carries what the runner writes (once on disk) and its live events to pages;
5. the scheduler wakes chats (schedules, alarms, heartbeats) through the runner: a past-due
   run fires once now, its writes go through the same durable, pushed port;
6. the semantic indexer keeps its vectors in `agent-state/vectors.bin`; its progress is
   pushed to the pages; the ranked text index is kept in `agent-state/text-index.bin`,
   loaded and checked at start (built in slices the first time); the text of PDF tiddlers,
   once extracted, in `agent-state/pdf-text/` (durable/pdf-text-file.ts);
7. TiddlyWiki's syncer looks only at the tiddlers that changed (durable/syncer-changes.ts).
\*/
import path from 'node:path';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { removeStaleTemps } from './durable/atomic-file';
import { DurableStore } from './durable/durable-store';
import { OperationFileLog } from './durable/operation-file-log';
import { createPdfTextFileStore } from './durable/pdf-text-file';
import { createTextIndexFileStore } from './durable/text-index-file';
import { createVectorFileStore } from './durable/vector-file';
import { syncChangesOnly } from './durable/syncer-changes';
import { installAtomicTiddlerWrites } from './durable/tiddler-files';
import { PushHub } from './push/push-hub';

export const INTERRUPTED = 'Interrupted by server restart: the server stopped while this turn ran. Your message is kept; send it again to retry.';
/** Folder (in the wiki folder) of the operation log and the durable store's intent record. */
export const STATE_FOLDER = 'agent-state';

export interface ServerEdition {
  runner: Agent.LocalRunner;
  scheduler: Agent.Scheduler;
  hub: PushHub;
  durable: DurableStore;
  /** The server's path prefix, ending in `/`. */
  prefix: string;
  stop(): void;
}

type WikiPort = ReturnType<typeof Agent.createTiddlyWikiPort>;

interface TiddlyWikiServer {
  get(name: string): string | undefined;
}

let edition: ServerEdition | undefined;

export function getServerEdition(): ServerEdition | undefined {
  return edition;
}

function agentLib(): typeof Agent {
  return require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Agent;
}

export function startServerEdition(server: TiddlyWikiServer): ServerEdition {
  if (edition) return edition;
  const agent = agentLib();
  const wikiPath = ($tw.boot as { wikiPath?: string }).wikiPath;
  const stateDir = wikiPath ? path.join(wikiPath, STATE_FOLDER) : undefined;
  const durable = openDurableStore(stateDir);
  syncChangesOnly(($tw as unknown as { syncer?: Parameters<typeof syncChangesOnly>[0] }).syncer, $tw.wiki as unknown as Parameters<typeof syncChangesOnly>[1]);
  const log = stateDir ? new OperationFileLog(path.join(stateDir, 'operations.jsonl')) : new agent.MemoryOperationLog();
  const port = agent.createTiddlyWikiPort($tw.wiki);
  const tracked = markedForDisk(port, durable);
  const runner = agent.createLocalRunner({ wiki: tracked, operations: log, saveQueueInChat: false, interruptedText: INTERRUPTED });
  const hub = new PushHub({
    wiki: $tw.wiki,
    snapshot: (chat) => runner.snapshot(chat),
    // What a page showing the chat needs of it (its own parts only: never a chat's whose title starts with this one's).
    chatTiddlers: (chat) => [chat, ...agent.chatPartTitles(port, chat, agent.SHOWN_PARTS)].filter((t) => $tw.wiki.tiddlerExists(t)),
    hello: () => ({ runner: 'server', keys: keyStates() }),
    shared: () => [agent.SEMANTIC_STATUS],
  });
  durable.onFlushed = (titles) => hub.publishTiddlers(titles);
  const unsubscribe = publishOnceOnDisk(runner, hub, durable);
  runner.restore();
  durable.flush();
  // A run is on disk before its chat is woken, so a kill in between cannot run it twice.
  const scheduling = agent.startScheduler(runner, tracked, $tw.wiki, { persist: () => durable.flush() });
  const semantic = stateDir
    ? agent.startSemanticIndexer(createVectorFileStore(stateDir), { onStatus: () => hub.publishTiddlers([agent.SEMANTIC_STATUS]) })
    : undefined;
  // A PDF's text is extracted once, and kept beside the wiki across restarts (that of PDFs gone from the wiki is removed).
  if (stateDir) agent.keepPdfTextIn(createPdfTextFileStore(stateDir), $tw.wiki);
  // Ranked search is ready at start: the text index is loaded from beside the wiki (or built, in slices).
  const textIndex = stateDir ? agent.keepTextIndexIn($tw.wiki, createTextIndexFileStore(stateDir), (line) => console.log(line)) : undefined;
  const prefix = `${server.get('path-prefix') ?? ''}/`;
  edition = {
    runner,
    scheduler: scheduling.scheduler,
    hub,
    durable,
    prefix,
    stop() {
      unsubscribe();
      scheduling.stop();
      semantic?.stop();
      void textIndex?.stop();
      agent.keepPdfTextIn(undefined);
      runner.dispose();
      hub.close();
      if (log instanceof OperationFileLog) log.close();
    },
  };
  return edition;
}

/** The durable store of the wiki's tiddler files; when it persists, files are written atomically and a step a kill interrupted is redone first. */
function openDurableStore(stateDir: string | undefined): DurableStore {
  const durable = new DurableStore($tw.wiki, stateDir ?? '', ($tw as unknown as { syncadaptor?: ConstructorParameters<typeof DurableStore>[2] }).syncadaptor);
  if (durable.persists && stateDir) {
    installAtomicTiddlerWrites();
    const tiddlersPath = ($tw.boot as { wikiTiddlersPath?: string }).wikiTiddlersPath;
    if (tiddlersPath) removeStaleTemps(tiddlersPath);
    durable.recover();
  }
  return durable;
}

/** The port the runner writes through: every write of the runner (and of its tools, through the write gate) is marked for disk. */
function markedForDisk(port: WikiPort, durable: DurableStore): WikiPort {
  return {
    ...port,
    putTiddler(fields) {
      port.putTiddler(fields);
      durable.mark(fields.title!);
    },
    deleteTiddler(title) {
      port.deleteTiddler(title);
      durable.mark(title);
    },
    renameTiddler(from, to, relink) {
      port.renameTiddler(from, to, relink);
      durable.mark(from);
      durable.mark(to);
    },
  };
}

/**
 * The runner's events, pushed to the pages once what they announce (a finished reply, a
 * status) is on disk. An event that follows writes waits for the end of the macrotask, and
 * goes out after one flush with every event behind it: the 200 results of one reply are then
 * one step on disk, not 200 (two fsyncs each: the server was deaf for seconds). Events with
 * nothing to write (streamed text) go out at once, so they never pile up into one burst.
 * (TiddlyWiki's module sandbox has no setImmediate.) Returns the unsubscribe.
 */
function publishOnceOnDisk(runner: Agent.LocalRunner, hub: PushHub, durable: DurableStore): () => void {
  let outgoing: Parameters<typeof hub.publishEvent>[0][] = [];
  const sendEvents = () => {
    const events = outgoing;
    outgoing = [];
    durable.flush();
    for (const event of events) hub.publishEvent(event);
  };
  return runner.bus.subscribeAll((event) => {
    if (!outgoing.length && !durable.hasPending) hub.publishEvent(event);
    else if (outgoing.push(event) === 1) setTimeout(sendEvents, 0);
  });
}

/**
 * Per provider profile that names a key: whether the server has it for the profile's address
 * (`set`), may use it there but its variable is empty (`missing`), or its owner does not let
 * that key go there (`refused`). Readers see this, and nothing else of the environment: not
 * which variables exist, nor any value.
 */
export function keyStates(): Record<string, 'set' | 'missing' | 'refused'> {
  const agent = agentLib();
  const policy = agent.ownerPolicy();
  const states: Record<string, 'set' | 'missing' | 'refused'> = {};
  for (const title of $tw.wiki.filterTiddlers('[all[shadows+tiddlers]tag[$:/tags/AI/Provider]!has[draft.of]]')) {
    const fields: Record<string, unknown> = $tw.wiki.getTiddler(title)?.fields ?? {};
    const name = String(fields['api-key-name'] ?? '').trim();
    if (name) states[title] = agent.ownerKeyState(policy, name, String(fields['base-url'] ?? '').trim());
  }
  return states;
}
