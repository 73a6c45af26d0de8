/*\
The page's end of the server edition's push channel: one server-sent-events stream per page
(GET agent/events). It opens at start-up in a page the server plugin marked (a small module,
so the library is still compiled only when a chat is shown) and:
- stores every tiddler the server's runner wrote (messages, journals, todo lists, chat
  status, notes its tools wrote) with the syncer's own storeTiddler, so the syncer counts them
  as in step with the server: no echo PUT, no conflict (TiddlyWiki does not sync `$:/` tiddlers from a server);
- hands the live events of the chats this page shows to the RemoteRunner;
- resumes after a dropped connection from the last event id (the browser sends it), or from
  the cursor the server rendered into the page, so nothing written in between is missed.
\*/
import { coalesced } from '../../clock';
import { chatPartTitles, SHOWN_PARTS, type PartsReader } from '../../store/chat-parts';

export const name = 'tiddlyagent-push';
export const platforms = ['browser'];
export const after = ['startup'];
export const synchronous = true;

export interface ServerEditionMark {
  /** The server's path prefix, ending in `/`. */
  prefix: string;
  /** The push channel's position when the page was rendered. */
  cursor: string;
}

type Fields = Record<string, string>;

/** What the server told this page about itself (a $:/temp/ tiddler: never saved or synced). */
export const SERVER_INFO = '$:/temp/tiddlyagent/server';
type AgentListener = (event: { type: string; chat: string }) => void;

interface Syncer {
  storeTiddler(fields: Fields): void;
  tiddlerInfo: Record<string, unknown>;
}

/** The mark the server plugin renders into a page it serves: `<meta name="tiddlyagent-server" content="prefix cursor">`. */
export function serverEditionMark(): ServerEditionMark | undefined {
  if (typeof document === 'undefined') return undefined;
  const content = document.querySelector('meta[name="tiddlyagent-server"]')?.getAttribute('content')?.trim();
  if (!content) return undefined;
  const [prefix, cursor] = content.split(/\s+/);
  return { prefix: decodeURIComponent(prefix ?? '/'), cursor: cursor ?? '' };
}

export class PushChannel {
  private watched = new Map<string, number>();
  private source?: EventSource;
  private lastId: string;
  private listener?: AgentListener;
  /** After a stale cursor: chats whose tiddlers this page has fetched again since. */
  private resynced?: Set<string>;
  /** Views of several chats render in one refresh: one reconnect for all of them. */
  private readonly reconnectSoon = coalesced(
    (run) => setTimeout(run, 0),
    () => this.connect(),
  );

  constructor(private readonly mark: ServerEditionMark) {
    this.lastId = mark.cursor;
  }

  get prefix(): string {
    return this.mark.prefix;
  }

  onAgentEvent(listener: AgentListener): void {
    this.listener = listener;
  }

  /** Receive the live events of a chat (counted: every view of it watches). */
  watch(chat: string): void {
    const n = this.watched.get(chat) ?? 0;
    this.watched.set(chat, n + 1);
    if (n === 0) this.reconnectSoon();
  }

  unwatch(chat: string): void {
    const n = (this.watched.get(chat) ?? 1) - 1;
    // The stream keeps carrying its events until the next reconnect: cheaper than reconnecting now.
    if (n <= 0) this.watched.delete(chat);
    else this.watched.set(chat, n);
  }

  start(): void {
    this.connect();
  }

  private connect(): void {
    this.source?.close();
    const params = new URLSearchParams();
    for (const chat of this.watched.keys()) {
      params.append('chat', chat);
      if (this.resynced && !this.resynced.has(chat)) {
        params.append('sync', chat);
        this.resynced.add(chat);
      }
    }
    if (this.lastId) params.set('last-event-id', this.lastId);
    const source = new EventSource(`${this.mark.prefix}agent/events?${params}`);
    this.source = source;
    const track = (e: MessageEvent) => {
      if (e.lastEventId) this.lastId = e.lastEventId;
    };
    source.addEventListener('tiddler', (e) => {
      track(e as MessageEvent);
      storeTiddler(JSON.parse((e as MessageEvent).data) as Fields);
    });
    source.addEventListener('deleted', (e) => {
      track(e as MessageEvent);
      removeTiddler((JSON.parse((e as MessageEvent).data) as { title: string }).title);
    });
    source.addEventListener('chat-sync', (e) => {
      track(e as MessageEvent);
      const { chat, titles } = JSON.parse((e as MessageEvent).data) as { chat: string; titles: string[] };
      const keep = new Set(titles);
      // The server sent the chat's parts whole: what this page holds of them besides is gone (another chat's are not its to drop).
      for (const title of chatPartTitles(pageWiki, chat, SHOWN_PARTS)) if (!keep.has(title)) removeTiddler(title);
    });
    source.addEventListener('stale', (e) => {
      track(e as MessageEvent);
      // The server could not replay what this page missed: the shown chats come whole with
      // this response; any other chat is fetched whole when it is shown.
      this.resynced = new Set(this.watched.keys());
    });
    source.addEventListener('hello', (e) => {
      // What the settings tab shows: the server runs turns, and per provider profile whether it has the key (never a value).
      const { keys } = JSON.parse((e as MessageEvent).data) as { keys: Record<string, string> };
      $tw.wiki.addTiddler(new $tw.Tiddler({ title: SERVER_INFO, runner: 'server', type: 'application/json', text: JSON.stringify({ keys: keys ?? {} }) }));
    });
    source.addEventListener('agent', (e) => {
      track(e as MessageEvent);
      this.listener?.(JSON.parse((e as MessageEvent).data));
    });
  }
}

/** This page's wiki, as store/chat-parts.ts reads it. */
const pageWiki: PartsReader = {
  filter: (expression, variables = {}) => $tw.wiki.filterTiddlers(expression, $tw.rootWidget.makeFakeWidgetWithVariables(variables)),
  getFields: (title) => $tw.wiki.getTiddler(title)?.getFieldStrings() as Fields | undefined,
};

function storeTiddler(fields: Fields): void {
  const syncer = ($tw as unknown as { syncer?: Syncer }).syncer;
  if (syncer) syncer.storeTiddler(fields);
  else $tw.wiki.addTiddler(new $tw.Tiddler(fields));
}

function removeTiddler(title: string): void {
  $tw.wiki.deleteTiddler(title);
  // Forgotten before the syncer looks, so it sends no DELETE back.
  const syncer = ($tw as unknown as { syncer?: Syncer }).syncer;
  if (syncer) delete syncer.tiddlerInfo[title];
}

let channel: PushChannel | undefined;

/** The page's channel, when a server edition serves it; opened by whichever comes first, start-up or the first chat rendered. */
export function pushChannel(): PushChannel | undefined {
  if (channel) return channel;
  const mark = serverEditionMark();
  if (!mark || typeof EventSource === 'undefined') return undefined;
  channel = new PushChannel(mark);
  channel.start();
  return channel;
}

export function startup(): void {
  pushChannel();
}
