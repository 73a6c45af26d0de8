// The server edition's durable parts, each on its own, in a TiddlyWiki booted in this process
// from a wiki folder with the filesystem adaptor (as `--listen` boots it):
// - the operation log survives a line cut off by a kill and reports what had not finished;
// - a step a kill interrupted (its intent record written, its files not all) is redone at
//   start-up, and a record cut off while it was written is dropped without touching a file;
// - tiddler files are written through temporary files TiddlyWiki's loader skips;
// - the push hub replays exactly what a reconnecting page missed, resyncs a stale one, and
//   drops a page that does not read instead of buffering without bound.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, type TW } from '../helpers/tw';

type ServerLib = typeof import('../../src/server/lib');

let dir: string;
let $tw: TW;
let server: ServerLib;

function bootFolder(folder: string): Promise<TW> {
  const tw = require('tiddlywiki').TiddlyWiki();
  tw.boot.argv = [folder];
  return new Promise((resolve) => tw.boot.boot(() => resolve(tw)));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-durable-'));
  fs.writeFileSync(path.join(dir, 'tiddlywiki.info'), JSON.stringify({ plugins: ['tiddlywiki/filesystem'] }));
  fs.symlinkSync(path.join(ROOT, 'plugins'), path.join(dir, 'plugins'));
  fs.mkdirSync(path.join(dir, 'tiddlers'));
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Old note.tid'), 'title: Old note\n\nold text');
  // A temporary file a killed server left behind: never loaded as a tiddler.
  fs.writeFileSync(path.join(dir, 'tiddlers', '.Half.tid.123.tiddlyagent.swp'), 'title: Half\n\ncut off');
  $tw = await bootFolder(dir);
  server = $tw.modules.execute('$:/plugins/tiddlyagent/server/lib.js', '') as ServerLib;
});

afterAll(async () => {
  // Let the syncer finish the saves the hub's test tiddlers started.
  for (let i = 0; i < 200 && $tw.syncer.isDirty(); i++) await new Promise((r) => setTimeout(r, 25));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a temporary file left by a kill is not loaded as a tiddler, and is cleared at start-up', () => {
  expect($tw.wiki.tiddlerExists('Half')).toBe(false);
  expect($tw.wiki.getTiddlerText('Old note')).toBe('old text');
  expect(server.removeStaleTemps(path.join(dir, 'tiddlers'))).toBe(1);
  expect(fs.readdirSync(path.join(dir, 'tiddlers')).filter((f) => f.endsWith('.swp'))).toEqual([]);
});

describe('the operation log', () => {
  const op = (id: string, status: string) => ({ id, chat: 'C', kind: 'send', status, created: 1, text: `words of ${id}` }) as never;

  test('reports the operations that had not finished, even after a line cut off by a kill', () => {
    const file = path.join(dir, 'agent-state', 'ops-a.jsonl');
    const log = new server.OperationFileLog(file);
    log.write(op('a', 'queued'));
    log.write(op('a', 'running'));
    log.write(op('b', 'queued'));
    log.write(op('b', 'running'));
    log.write(op('b', 'done'));
    log.write(op('c', 'queued'));
    log.close();
    fs.appendFileSync(file, '{"id":"c","chat":"C","kind":"send","status":"runn'); // the kill
    const reopened = new server.OperationFileLog(file);
    expect(reopened.unfinished().map((o) => [o.id, o.status])).toEqual([
      ['a', 'running'],
      ['c', 'queued'],
    ]);
    // Reopening compacts the log to what had not finished.
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    reopened.write({ ...reopened.unfinished()[0]!, status: 'failed', error: 'Interrupted by server restart' });
    reopened.write({ ...reopened.unfinished()[0]!, status: 'failed', error: 'Interrupted by server restart' });
    reopened.close();
    expect(new server.OperationFileLog(file).unfinished()).toEqual([]);
  });

  test('stays small: past its size limit it is rewritten with only what is unfinished', () => {
    const file = path.join(dir, 'agent-state', 'ops-b.jsonl');
    const log = new server.OperationFileLog(file, 2000);
    log.write(op('keep', 'queued'));
    for (let i = 0; i < 100; i++) {
      log.write(op(`x${i}`, 'queued'));
      log.write(op(`x${i}`, 'done'));
    }
    log.close();
    expect(fs.statSync(file).size).toBeLessThan(2500);
    expect(new server.OperationFileLog(file).unfinished().map((o) => o.id)).toEqual(['keep']);
  });
});

describe('the durable store', () => {
  const statePath = () => path.join(dir, 'agent-state');
  const store = () => new server.DurableStore($tw.wiki, statePath(), $tw.syncadaptor);

  test('redoes a step whose intent record was written but whose files were not', () => {
    const reply = {
      title: '$:/ai/messages/C/000001',
      type: 'text/vnd.tiddlyagent.reply',
      'agent-chat': 'C',
      'agent-seq': '1',
      role: 'assistant',
      text: 'The whole reply',
    };
    const journal = { title: '$:/ai/journal/C/000000', type: 'application/json', text: '{"Old note":{"before":null,"after":null}}' };
    fs.mkdirSync(statePath(), { recursive: true });
    fs.writeFileSync(path.join(statePath(), 'intent.json'), JSON.stringify([{ put: reply }, { put: journal }, { delete: 'Old note' }]));
    const redone = store().recover();
    expect(redone.sort()).toEqual([journal.title, reply.title, 'Old note'].sort());
    expect(fs.existsSync(path.join(statePath(), 'intent.json'))).toBe(false);
    expect($tw.wiki.getTiddlerText(reply.title)).toBe('The whole reply');
    expect($tw.wiki.tiddlerExists('Old note')).toBe(false);
    const files = fs.readdirSync(path.join(dir, 'tiddlers'));
    expect(files).toContain('$__ai_messages_C_000001.txt');
    expect(files).toContain('$__ai_messages_C_000001.txt.meta');
    expect(files).not.toContain('Old note.tid');
    expect(fs.readFileSync(path.join(dir, 'tiddlers', '$__ai_messages_C_000001.txt'), 'utf8')).toBe('The whole reply');
    expect(files.filter((f) => f.endsWith('.swp'))).toEqual([]);
  });

  test('drops an intent record cut off while it was written, touching no file', () => {
    const before = fs.readdirSync(path.join(dir, 'tiddlers')).sort();
    fs.writeFileSync(path.join(statePath(), 'intent.json'), '[{"put":{"title":"Never","te');
    expect(store().recover()).toEqual([]);
    expect(fs.existsSync(path.join(statePath(), 'intent.json'))).toBe(false);
    expect(fs.readdirSync(path.join(dir, 'tiddlers')).sort()).toEqual(before);
    expect($tw.wiki.tiddlerExists('Never')).toBe(false);
  });

  test('a step of several tiddlers lands on disk whole, and the syncer does not write it again', async () => {
    const durable = store();
    const flushed: string[][] = [];
    durable.onFlushed = (titles) => flushed.push(titles);
    $tw.wiki.addTiddler({ title: 'Step A', text: 'a' });
    durable.mark('Step A');
    $tw.wiki.addTiddler({ title: '$:/ai/messages/C/000002', 'agent-chat': 'C', 'agent-seq': '2', role: 'user', type: 'text/plain', text: 'b' });
    durable.mark('$:/ai/messages/C/000002');
    await Promise.resolve();
    expect(flushed).toEqual([['Step A', '$:/ai/messages/C/000002']]);
    expect(fs.readFileSync(path.join(dir, 'tiddlers', 'Step A.tid'), 'utf8')).toContain('a');
    expect(fs.readFileSync(path.join(dir, 'tiddlers', '$__ai_messages_C_000002.txt'), 'utf8')).toBe('b');
    expect(fs.existsSync(path.join(statePath(), 'intent.json'))).toBe(false);
    const syncer = $tw.syncer as { tiddlerInfo: Record<string, { changeCount: number }> };
    expect(syncer.tiddlerInfo['Step A']!.changeCount).toBe($tw.wiki.getChangeCount('Step A'));
  });
});

describe('the push hub', () => {
  class FakeResponse {
    chunks: string[] = [];
    destroyed = false;
    writableLength = 0;
    private listeners: Record<string, (() => void)[]> = {};
    writeHead(): void {}
    write(text: string): boolean {
      this.chunks.push(text);
      return true;
    }
    on(event: string, fn: () => void): void {
      const list = this.listeners[event] ?? [];
      this.listeners[event] = list;
      list.push(fn);
    }
    end(): void {
      for (const fn of this.listeners.close ?? []) fn();
    }
    destroy(): void {
      this.destroyed = true;
      this.end();
    }
    events(): { id: string; event: string; data: unknown }[] {
      return this.chunks
        .join('')
        .split('\n\n')
        .filter((b) => b.startsWith('id: '))
        .map((b) => ({ id: /^id: (.*)$/m.exec(b)![1]!, event: /^event: (.*)$/m.exec(b)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
    }
  }

  function hub(options: Partial<ConstructorParameters<ServerLib['PushHub']>[0]> = {}) {
    return new server.PushHub({
      wiki: $tw.wiki,
      snapshot: (chat) => ({ status: 'idle', runningTools: [], queue: [], chat }) as never,
      chatTiddlers: (chat) => $tw.wiki.filterTiddlers(`[[${chat}]] [field:agent-chat[${chat}]]`),
      hello: () => ({ keys: {} }),
      heartbeatMs: 3_600_000,
      ...options,
    });
  }

  beforeAll(() => {
    $tw.wiki.addTiddler({ title: 'Hub chat', agent: 'A', 'agent-status': 'idle' });
    for (let i = 0; i < 3; i++)
      $tw.wiki.addTiddler({ title: `$:/ai/messages/Hub chat/00000${i}`, 'agent-chat': 'Hub chat', 'agent-seq': String(i), role: 'user', text: `m${i}` });
  });

  test('a page that reconnects gets exactly the tiddler events it missed, then a snapshot', () => {
    const h = hub();
    const first = new FakeResponse();
    h.connect(first as never, ['Hub chat'], h.cursor());
    h.publishTiddlers(['$:/ai/messages/Hub chat/000000']);
    const seen = first
      .events()
      .filter((e) => e.event === 'tiddler')
      .at(-1)!.id;
    first.end();
    h.publishTiddlers(['$:/ai/messages/Hub chat/000001', '$:/ai/messages/Hub chat/000002']);
    h.publishEvent({ type: 'text-delta', chat: 'Hub chat', text: 'x', id: 1 });
    const again = new FakeResponse();
    h.connect(again as never, ['Hub chat'], seen);
    const events = again.events();
    expect(events.map((e) => e.event)).toEqual(['hello', 'tiddler', 'tiddler', 'agent']);
    expect(events.slice(1, 3).map((e) => (e.data as { title: string }).title)).toEqual(['$:/ai/messages/Hub chat/000001', '$:/ai/messages/Hub chat/000002']);
    expect((events[1]!.data as { revision: string }).revision).toBe(String($tw.wiki.getChangeCount('$:/ai/messages/Hub chat/000001')));
    expect(events[3]!.data).toMatchObject({ type: 'snapshot', chat: 'Hub chat' });
    h.close();
  });

  test('an id from another server run, or older than the ring, gets "stale" and the chat whole', () => {
    const h = hub({ maxRingEvents: 2 });
    for (const lastEventId of ['otherrun-5', undefined]) {
      const res = new FakeResponse();
      h.connect(res as never, ['Hub chat'], lastEventId);
      const events = res.events();
      expect(events.map((e) => e.event)).toEqual(['hello', 'stale', 'tiddler', 'tiddler', 'tiddler', 'tiddler', 'chat-sync', 'agent']);
      expect((events[6]!.data as { titles: string[] }).titles).toHaveLength(4);
      res.end();
    }
    const cursor = h.cursor();
    h.publishTiddlers(['$:/ai/messages/Hub chat/000000', '$:/ai/messages/Hub chat/000001', '$:/ai/messages/Hub chat/000002']);
    const late = new FakeResponse();
    h.connect(late as never, ['Hub chat'], cursor);
    expect(late.events().map((e) => e.event)).toContain('stale');
    h.close();
  });

  test('a page that does not read is dropped, and the others still get every event', () => {
    const h = hub({ maxBufferedBytes: 1000 });
    const stuck = new FakeResponse();
    const reader = new FakeResponse();
    h.connect(stuck as never, ['Hub chat'], h.cursor());
    h.connect(reader as never, ['Hub chat'], h.cursor());
    stuck.writableLength = 5000; // the socket's buffer, as Node reports it for a client that never reads
    for (let i = 0; i < 50; i++) h.publishEvent({ type: 'text-delta', chat: 'Hub chat', text: `w${i} ` });
    expect(stuck.destroyed).toBe(true);
    expect(h.clientCount).toBe(1);
    expect(reader.events().filter((e) => (e.data as { type?: string }).type === 'text-delta')).toHaveLength(50);
    h.close();
  });

  test('live events reach only the pages showing their chat', () => {
    const h = hub();
    const shows = new FakeResponse();
    const other = new FakeResponse();
    h.connect(shows as never, ['Hub chat'], h.cursor());
    h.connect(other as never, ['Another chat'], h.cursor());
    h.publishEvent({ type: 'text-delta', chat: 'Hub chat', text: 'only here' });
    h.publishTiddlers(['Hub chat']);
    expect(shows.events().some((e) => (e.data as { text?: string }).text === 'only here')).toBe(true);
    expect(other.events().some((e) => (e.data as { text?: string }).text === 'only here')).toBe(false);
    // Tiddlers go to every page.
    expect(other.events().some((e) => e.event === 'tiddler' && (e.data as { title: string }).title === 'Hub chat')).toBe(true);
    h.close();
  });
});
