/*\
PushHub: the server's end of the push channel, one server-sent-events stream per page.
- Every tiddler the runner wrote reaches every page (`tiddler` / `deleted`, with the
  revision TiddlyWiki's own routes report), once it is on disk.
- The live events of a chat (streaming text, tools, status, queue) reach the pages that
  show it; a page that starts showing a chat first gets its `snapshot`.
- Every message has an id `<server>-<n>`. A page that reconnects (the browser sends
  Last-Event-ID; a fresh page sends the cursor rendered into it) gets the tiddler events it
  missed from a bounded ring; if the id is from another server run or older than the ring,
  it gets `stale` and the shown chats' tiddlers whole (`chat-sync`).
- A page that does not read is dropped once `maxBufferedBytes` wait for it (beyond the longest
  message in its buffer, which goes out whole): the server never buffers without bound, and
  the page resumes from its last id when it reconnects.
\*/
import type { ServerResponse } from 'node:http';
import type { AgentEvent, LiveChatState } from '$:/plugins/tiddlyagent/agent/lib.js';
import type { Wiki } from 'tiddlywiki';

interface Client {
  res: ServerResponse;
  chats: Set<string>;
  /** The longest message written since the client's buffer was last seen empty. */
  largest: number;
}

interface RingEntry {
  seq: number;
  text: string;
}

export interface PushHubOptions {
  wiki: Wiki;
  /** A chat's live state (runner.snapshot). */
  snapshot(chat: string): LiveChatState;
  /** Titles of a chat's own tiddlers: the chat and the parts a page shows (store/chat-parts.ts). */
  chatTiddlers(chat: string): string[];
  /** What every page learns when it connects (which API keys the server has). */
  hello(): unknown;
  /** Tiddlers of the server's own state every page gets when it connects (e.g. the semantic indexer's progress, a `$:/temp` tiddler no page loads). */
  shared?(): string[];
  maxRingEvents?: number;
  maxRingBytes?: number;
  maxBufferedBytes?: number;
  heartbeatMs?: number;
}

export class PushHub {
  readonly serverId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  private seq = 0;
  private ring: RingEntry[] = [];
  private ringBytes = 0;
  /** The last sequence number dropped from the ring: a page behind it cannot resume. */
  private forgottenUpTo = 0;
  private clients = new Set<Client>();
  private heartbeat?: ReturnType<typeof setInterval>;
  readonly stats = { dropped: 0, sent: 0 };
  private readonly maxRingEvents: number;
  private readonly maxRingBytes: number;
  private readonly maxBufferedBytes: number;

  constructor(private readonly options: PushHubOptions) {
    this.maxRingEvents = options.maxRingEvents ?? 5000;
    this.maxRingBytes = options.maxRingBytes ?? 16_000_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1_000_000;
    const every = options.heartbeatMs ?? 25_000;
    this.heartbeat = setInterval(() => this.ping(), every);
    this.heartbeat.unref?.();
  }

  /** Where the channel is now, for a page rendered at this moment. */
  cursor(): string {
    return `${this.serverId}-${this.seq}`;
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Tiddlers the runner wrote, now on disk: to every page. */
  publishTiddlers(titles: string[]): void {
    for (const title of titles) {
      const text = this.tiddlerMessage(title, ++this.seq);
      this.remember(this.seq, text);
      for (const client of this.clients) this.write(client, text);
    }
  }

  /** A live event of the runner's bus: to the pages that show its chat. */
  publishEvent(event: AgentEvent): void {
    const { id: _id, ...body } = event;
    const text = format(`${this.serverId}-${++this.seq}`, 'agent', JSON.stringify(body));
    for (const client of this.clients) if (client.chats.has(event.chat)) this.write(client, text);
  }

  /**
   * A page connects: `chats` are the chats it shows, `lastEventId` where it left off, `sync`
   * chats it wants whole (after an earlier `stale`).
   */
  connect(res: ServerResponse, chats: string[], lastEventId: string | undefined, sync: string[] = []): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const client: Client = { res, chats: new Set(chats), largest: 0 };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    // What the page missed goes out as one message (the replay can be long, or the chats
    // large): a page is only judged on what waits behind it.
    const burst = ['retry: 1000\n\n', format(this.cursor(), 'hello', JSON.stringify(this.options.hello()))];
    for (const title of this.options.shared?.() ?? []) if (this.options.wiki.tiddlerExists(title)) burst.push(this.tiddlerMessage(title, this.seq));
    const resync = new Set(sync);
    const from = this.resumePoint(lastEventId);
    if (from === undefined) {
      burst.push(format(this.cursor(), 'stale', '{}'));
      for (const chat of chats) resync.add(chat);
    } else {
      for (const entry of this.ring) if (entry.seq > from) burst.push(entry.text);
    }
    for (const chat of resync) {
      if (!client.chats.has(chat)) continue;
      const titles = this.options.chatTiddlers(chat);
      for (const title of titles) burst.push(this.tiddlerMessage(title, this.seq));
      burst.push(format(this.cursor(), 'chat-sync', JSON.stringify({ chat, titles })));
    }
    for (const chat of chats) burst.push(format(this.cursor(), 'agent', JSON.stringify({ type: 'snapshot', chat, state: this.options.snapshot(chat) })));
    this.write(client, burst.join(''));
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }

  /** The sequence number to replay after, or undefined when the id cannot be resumed from. */
  private resumePoint(lastEventId: string | undefined): number | undefined {
    const m = /^([a-z0-9]+)-(\d+)$/.exec(lastEventId ?? '');
    if (!m || m[1] !== this.serverId) return undefined;
    const seq = Number(m[2]);
    // Everything after `seq` must still be in the ring.
    return seq <= this.seq && seq >= this.forgottenUpTo ? seq : undefined;
  }

  private tiddlerMessage(title: string, seq: number): string {
    const id = `${this.serverId}-${seq}`;
    const tiddler = this.options.wiki.getTiddler(title);
    if (!tiddler) return format(id, 'deleted', JSON.stringify({ title }));
    // The revision TiddlyWiki's own routes report, so the page's syncer counts it as in step.
    const fields = { ...(tiddler.getFieldStrings() as Record<string, string>), revision: String(this.options.wiki.getChangeCount(title)), bag: 'default' };
    return format(id, 'tiddler', JSON.stringify(fields));
  }

  private remember(seq: number, text: string): void {
    this.ring.push({ seq, text });
    this.ringBytes += text.length;
    while (this.ring.length > this.maxRingEvents || this.ringBytes > this.maxRingBytes) {
      const gone = this.ring.shift()!;
      this.ringBytes -= gone.text.length;
      this.forgottenUpTo = gone.seq;
    }
  }

  private write(client: Client, text: string): void {
    if (!this.clients.has(client)) return;
    const buffered = client.res.writableLength;
    if (buffered === 0) client.largest = 0;
    // A message goes out whole however long it is (a large tiddler): what waits beyond the
    // longest ones is what counts, so a page that reads is never dropped for large messages. Two
    // may go out back to back: a reply's last (large) delta and the reply tiddler that holds it.
    if (buffered > this.maxBufferedBytes + 2 * client.largest) {
      // A page that does not read: drop it rather than buffer without bound.
      this.clients.delete(client);
      this.stats.dropped++;
      client.res.destroy();
      return;
    }
    client.res.write(text);
    client.largest = Math.max(client.largest, text.length);
    this.stats.sent++;
  }

  private ping(): void {
    for (const client of this.clients) this.write(client, ': ping\n\n');
  }
}

function format(id: string, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}
