// The crash-recovery bench for the server edition (issue 14.3), shared by the short suite in
// test/integration and the 20-kill soak in test/soak: a `tiddlywiki --listen` server with the
// plugins, killed with SIGKILL at a seeded random moment of one kind of work, then started
// again on the same folder and checked. Each kill waits for observable progress first (the
// mock LLM saw the request, a card was shown, a file appeared, the MCP server got the call),
// then a seeded random delay; the same seed gives the same kinds, arguments and delays.
//
// After every restart, whatever the kind: no chat `working`; every operation the log held
// unfinished failed, with "Interrupted by server restart" in its chat; every message that was
// on disk, or that a page had been sent, is there with the same text, none twice; every tiddler
// file loads with TiddlyWiki's own loader (and parses strictly: none truncated); a tool write
// is in the wiki exactly when its journal says so; a schedule ran once across the restart;
// and the chat answers the next message.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  chatStatus,
  defaultReply,
  getTiddler,
  operations,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  tiddlerFiles,
  until,
  watch,
  writeChat,
  WRITE_HEADERS,
  type Fields,
  type MockLlm,
  type SseClient,
  type TwServer,
} from './server';
import { ROOT, type TW } from './tw';

export type Kind = 'stream' | 'tool-write' | 'approval' | 'schedule' | 'mcp';
export const KINDS: Kind[] = ['stream', 'tool-write', 'approval', 'schedule', 'mcp'];

export interface CrashRow {
  kill: number;
  kind: Kind;
  /** When the kill came: the progress it waited for, and the random delay after it. */
  moment: string;
  /** What the server was doing at that moment, as the page and the mock saw it. */
  running: string;
  /** What the restart left, after the checks passed. */
  outcome: string;
  /** From the kill to the server answering again, ms. */
  restartMs: number;
}

const ODD = path.join(ROOT, 'test', 'fixtures', 'mcp', 'odd-server.mjs');
/** The owner lets the server reach the loopback test doubles and start the odd MCP server (the manual's "Who may do what"). */
const OWNER_ENV = { TIDDLYAGENT_CONFIG: JSON.stringify({ allowHosts: ['127.0.0.1'], mcpCommands: [{ command: process.execPath, args: [ODD] }] }) };
const WRITER = '$:/demo/agents/crash-writer';
const CHAT: Record<Kind, string> = { stream: 'Stream chat', 'tool-write': 'Write chat', approval: 'Approval chat', schedule: 'Schedule chat', mcp: 'MCP chat' };
const INTERRUPTED = /^Interrupted by server restart/;
const TARGET = 'Crash target';

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ` ${tag}w${i + 1}`).join('');

function tidFile(dir: string, name: string, fields: Fields, text = ''): void {
  fs.writeFileSync(
    path.join(dir, 'tiddlers', name),
    `${Object.entries(fields)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n${text}`,
  );
}

export class CrashBench {
  readonly rows: CrashRow[] = [];
  private kills = 0;
  private readonly rng: () => number;
  private page?: SseClient;

  private constructor(
    readonly seed: number,
    private readonly mock: MockLlm,
    private readonly dir: string,
    private server: TwServer,
    private readonly loader: TW,
  ) {
    this.rng = seeded(seed);
  }

  static async start(seed: number): Promise<CrashBench> {
    const mock = await startMockLlm({ delayMs: 15 });
    const dir = serverWikiFolder(mock.url);
    // An agent that writes and calls the slow MCP tool without confirmation.
    tidFile(
      dir,
      'crash-writer.tid',
      {
        title: WRITER,
        tags: '$:/tags/AI/Agent',
        'agent-provider': '$:/demo/providers/mock-llm',
        'agent-tools': 'wiki-read wiki-create wiki-edit mcp-odd-slow',
        'agent-approval': JSON.stringify({ 'wiki-create': { mode: 'auto' }, 'wiki-edit': { mode: 'auto' }, 'mcp-odd-slow': { mode: 'auto' } }),
      },
      'You write notes.',
    );
    tidFile(dir, 'mcp-odd.tid', {
      title: 'MCP odd',
      tags: '$:/tags/AI/MCPServer',
      name: 'odd',
      'mcp-command': process.execPath,
      'mcp-args': JSON.stringify([ODD]),
      'mcp-timeout': '20',
    });
    tidFile(dir, 'Crash target.tid', { title: TARGET }, 'count: 0');
    for (const kind of KINDS) writeChat(dir, CHAT[kind], kind === 'tool-write' || kind === 'mcp' ? { agent: WRITER } : {});
    // TiddlyWiki's own loader, to read every tiddler file as the next boot would.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-loader-'));
    const loader = require('tiddlywiki').TiddlyWiki();
    loader.boot.argv = [empty];
    await new Promise<void>((resolve) => loader.boot.boot(resolve));
    fs.rmSync(empty, { recursive: true, force: true });
    return new CrashBench(seed, mock, dir, await startServer(dir, [], OWNER_ENV), loader);
  }

  async close(): Promise<void> {
    this.page?.close();
    await this.server?.stop();
    await this.mock.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private between(low: number, high: number): number {
    return low + Math.floor(this.rng() * (high - low + 1));
  }

  /** Kill the server at a random moment of `kind`, restart it, check everything; returns the table row. */
  async round(kind: Kind): Promise<CrashRow> {
    const k = ++this.kills;
    const chat = CHAT[kind];
    this.mock.reset();
    this.page?.close();
    const page = await watch(this.server.url, [chat]);
    this.page = page;
    const work = await this.startWork(kind, k, page);
    const running = this.describe(chat, page);
    await this.server.kill();
    const killedAt = Date.now();

    // What the kill left on disk: every file whole already (atomic writes), as the next boot reads it.
    const before = this.loadFolder();
    const unfinished = [...new Map(operations(this.dir).map((op) => [op.id as string, op])).values()].filter(
      (op) => op.status === 'queued' || op.status === 'running',
    );
    const wasWorking = [...before.values()].filter((t) => t.agent && t['agent-status'] === 'working').map((t) => t.title!);
    const seen = new Map<string, Fields>();
    for (const e of page.events)
      if (e.event === 'tiddler' && e.data['agent-chat'] === chat && e.data['agent-seq'] !== undefined) seen.set(e.data.title, e.data);
    const onDisk = savedMessages(this.dir, chat);
    page.close();
    this.mock.reset(); // scripts the kill left unplayed: the next requests get the default replies

    this.server = await startServer(this.dir, [], OWNER_ENV);
    const restartMs = Date.now() - killedAt;
    const url = this.server.url;
    const after = this.loadFolder();

    // No chat working, but one a schedule woke since the restart (a run missed while it was down happens now).
    const wokenSince = (c: string) => savedMessages(this.dir, c).some((m) => m['agent-source'] && !before.has(m.title!));
    for (const t of after.values()) if (t.agent && !wokenSince(t.title!)) expect([t.title, t['agent-status']]).not.toEqual([t.title, 'working']);
    for (const c of Object.values(CHAT)) if ((await chatStatus(url, c)) === 'working') expect([c, wokenSince(c)]).toEqual([c, true]);
    // Every unfinished operation failed, and its chat says why.
    const log = operations(this.dir);
    expect(log.filter((op) => 'broken' in op)).toEqual([]);
    for (const op of unfinished) {
      expect(log.filter((o) => o.id === op.id).at(-1)).toMatchObject({ status: 'failed', error: 'Interrupted by server restart' });
      this.expectInterruptedShown(op.chat as string, before);
    }
    for (const c of wasWorking) this.expectInterruptedShown(c, before);
    // Every message that was on disk or sent to a page is intact, and none is there twice.
    const messages = savedMessages(this.dir, chat);
    const byTitle = new Map(messages.map((m) => [m.title!, m]));
    for (const m of [...onDisk, ...seen.values()]) {
      const now = byTitle.get(m.title!);
      expect([m.title, now?.role, now?.text]).toEqual([m.title, m.role, m.text]);
    }
    expect(new Set(messages.map((m) => m['agent-seq'])).size).toBe(messages.length);
    const users = messages.filter((m) => m['agent-operation']).map((m) => m['agent-operation']);
    expect(new Set(users).size).toBe(users.length);
    const replies = messages.filter((m) => m.role === 'assistant' && m.text).map((m) => m.text);
    expect(new Set(replies).size).toBe(replies.length);
    expect(fs.existsSync(path.join(this.dir, 'agent-state', 'intent.json'))).toBe(false);

    const outcome = await work.check({ url, before, after });
    await this.expectUsable(chat, k);
    const row: CrashRow = { kill: k, kind, moment: work.moment, running, outcome, restartMs };
    this.rows.push(row);
    return row;
  }

  /**
   * The chat says its turn was interrupted: one error written by this restart, and the status
   * `interrupted`; unless the turn had finished on disk (only its log line was missing).
   */
  private expectInterruptedShown(chat: string, before: Map<string, Fields>): void {
    const errors = savedMessages(this.dir, chat).filter((m) => m.role === 'error' && INTERRUPTED.test(m.text ?? '') && !before.has(m.title!));
    const was = before.get(chat)?.['agent-status'];
    if (!errors.length && was === 'completed') return;
    expect([chat, errors.length]).toEqual([chat, 1]);
  }

  /**
   * Every file below tiddlers/: loaded with TiddlyWiki's own loader, and parsed strictly
   * (throws on a truncated or stray file); the two agree on every title and text.
   */
  private loadFolder(): Map<string, Fields> {
    const { tiddlers, hidden } = tiddlerFiles(this.dir);
    expect(hidden).toEqual([]);
    const root = path.join(this.dir, 'tiddlers');
    const loaded = new Map<string, Fields>();
    for (const name of fs.readdirSync(root)) {
      if (name.endsWith('.meta') && fs.existsSync(path.join(root, name.slice(0, -5)))) continue;
      const file = this.loader.loadTiddlersFromFile(path.join(root, name)) as { tiddlers: Fields[] };
      for (const t of file.tiddlers) loaded.set(t.title!, t);
    }
    expect([...loaded.keys()].sort()).toEqual([...tiddlers.keys()].sort());
    for (const [title, t] of tiddlers) expect([title, loaded.get(title)!.text ?? '']).toEqual([title, t.text ?? '']);
    return tiddlers;
  }

  /** What the page and the mock saw of the chat when the kill came. */
  private describe(chat: string, page: SseClient): string {
    const ev = page.agentEvents(chat);
    const status = ev.filter((e) => e.type === 'status').at(-1)?.status ?? 'idle';
    const deltas = page.deltas(chat).length;
    const tools = ev.filter((e) => e.type === 'tool-started').length;
    const done = ev.filter((e) => e.type === 'tool-finished').length;
    const waiting = ev.some((e) => e.type === 'waiting') ? ', card shown' : '';
    return `${status}, ${this.mock.requests.length} model req, ${deltas} deltas, tools ${done}/${tools}${waiting}`;
  }

  private async expectUsable(chat: string, k: number): Promise<void> {
    const page = await watch(this.server.url, [chat]);
    try {
      await until('the chat to be free', async () => !['working', 'input-required'].includes((await chatStatus(this.server.url, chat)) ?? ''), 20_000);
      const text = `Still there after kill ${k}?`;
      const sent = await post(this.server.url, 'send', { chat, text });
      expect(sent.status).toBe(202);
      await until('the next send to complete', () => savedMessages(this.dir, chat).at(-1)?.text === defaultReply(text), 20_000);
      await until('completed', async () => (await chatStatus(this.server.url, chat)) === 'completed');
    } finally {
      page.close();
    }
  }

  // ---- The kinds of work -----------------------------------------------------------------------

  private startWork(kind: Kind, k: number, page: SseClient): Promise<Work> {
    switch (kind) {
      case 'stream':
        return this.stream(k);
      case 'tool-write':
        return this.toolWrite(k);
      case 'approval':
        return this.approval(k, page);
      case 'schedule':
        return this.schedule(k);
      case 'mcp':
        return this.mcp(k);
    }
  }

  /** A reply of 20-40 words, one every 40 ms: killed once the mock saw the request, plus 0 ms to past its end. */
  private async stream(k: number): Promise<Work> {
    const n = this.between(20, 40);
    const reply = `Reply ${k}:${words(n, `r${k}`)}`;
    this.mock.queue({ text: reply, delayMs: 40 });
    expect((await post(this.server.url, 'send', { chat: CHAT.stream, text: `Stream ${k}` })).status).toBe(202);
    await until('the mock to see the request', () => this.mock.requests.length >= 1);
    const delay = this.between(0, n * 40 + 400);
    await sleep(delay);
    return {
      moment: `mock saw the request +${delay} ms (reply ${n} words)`,
      check: async () => {
        const all = savedMessages(this.dir, CHAT.stream);
        const turn = all.slice(all.findIndex((m) => m.role === 'user' && m.text === `Stream ${k}`) + 1);
        if (turn.some((m) => m.role === 'assistant' && m.text === reply)) return 'reply complete before the kill, kept once';
        expect(turn.map((m) => m.role)).toEqual(['error']);
        return 'interrupted (the streamed part is not saved), error shown';
      },
    };
  }

  /** wiki-create or wiki-edit (seeded) without confirmation, its call and the reply after it streamed slowly around it. */
  private async toolWrite(k: number): Promise<Work> {
    const create = this.rng() < 0.5;
    let title: string;
    let args: Record<string, unknown>;
    const prior = await getTiddler(this.server.url, TARGET);
    if (create) {
      title = `Crash note ${k}`;
      args = { title, text: `Note ${k} written by the agent` };
    } else {
      title = TARGET;
      const count = Number(/count: (\d+)/.exec(prior!.text!)![1]);
      args = { title, modified: prior!.modified ?? '', edits: [{ find: `count: ${count}`, replace: `count: ${count + 1}` }] };
    }
    const beforeFields = create ? undefined : prior;
    // An edit is made from a version the agent read (in the round before).
    const read = create ? [] : [{ toolCalls: [{ name: 'wiki-read', arguments: { title } }], delayMs: 40 }];
    this.mock.queue([
      ...read,
      { toolCalls: [{ name: create ? 'wiki-create' : 'wiki-edit', arguments: args }], delayMs: 40 },
      { text: `Done ${k}:${words(15, `d${k}`)}`, delayMs: 40 },
    ]);
    const sent = await post(this.server.url, 'send', { chat: CHAT['tool-write'], text: `Write ${k}` });
    expect(sent.status).toBe(202);
    await until('the mock to see the request', () => this.mock.requests.length >= 1);
    const delay = this.between(0, 1500);
    await sleep(delay);
    return {
      moment: `mock saw the request +${delay} ms (${create ? 'wiki-create' : 'wiki-edit'})`,
      check: async ({ after, url }) => {
        const operation = (sent.body.operation as { id: string }).id;
        return this.expectWriteAllOrNothing(CHAT['tool-write'], operation, title, beforeFields, after, url);
      },
    };
  }

  /**
   * The tool write of the turn that `operation` started: in the wiki (and its file) exactly when
   * the turn's journal holds it, with the journal's after-image; else the tiddler as before.
   */
  private async expectWriteAllOrNothing(
    chat: string,
    operation: string,
    title: string,
    before: Fields | undefined,
    after: Map<string, Fields>,
    url: string,
  ): Promise<string> {
    const user = savedMessages(this.dir, chat).find((m) => m['agent-operation'] === operation);
    const journal = user ? after.get(`$:/ai/journal/${chat}/${user.title!.split('/').at(-1)}`) : undefined;
    const entry = journal ? (JSON.parse(journal.text!) as Record<string, { before: Fields | null; after: Fields | null }>)[title] : undefined;
    const live = await getTiddler(url, title);
    if (entry) {
      expect(after.get(title)?.text).toBe(entry.after!.text);
      expect(live?.text).toBe(entry.after!.text);
      expect(entry.before?.text).toBe(before?.text);
      return 'write applied and journaled';
    }
    expect(after.get(title)?.text).toBe(before?.text);
    expect(live?.text).toBe(before?.text);
    return 'write not applied, no journal';
  }

  /** wiki-create behind a card: killed while it is pending, or (seeded) after "allow once" while the turn goes on. */
  private async approval(k: number, page: SseClient): Promise<Work> {
    const chat = CHAT.approval;
    const title = `Approved note ${k}`;
    const sent = await post(this.server.url, 'send', { chat, text: `mock:tool=wiki-create ${JSON.stringify({ title, text: `Approved ${k}` })}` });
    expect(sent.status).toBe(202);
    const waiting = await page.waitFor('the card', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
    const message = waiting.data.message as string;
    const decideFirst = this.rng() < 0.5;
    let decision: string | undefined;
    if (decideFirst) {
      const decided = await post(this.server.url, 'decide', { chat, message, choice: 'once' });
      expect(decided.status).toBe(202);
      decision = (decided.body.operation as { id: string }).id;
    }
    const delay = this.between(0, decideFirst ? 600 : 300);
    await sleep(delay);
    return {
      moment: `card shown${decideFirst ? ', allowed' : ''} +${delay} ms`,
      check: async ({ url, after }) => {
        const card = savedMessages(this.dir, chat).find((m) => m.title === message)!;
        if (card['tool-status'] === 'pending' && !card.approval) {
          // Still waiting: the card works after the restart.
          expect(await chatStatus(url, chat)).toBe('input-required');
          expect(after.has(title)).toBe(false);
          const back = await watch(url, [chat]);
          const decided = await post(url, 'decide', { chat, message, choice: 'once' });
          expect(decided.status).toBe(202);
          await until('the decided turn to complete', async () => (await chatStatus(url, chat)) === 'completed', 20_000);
          back.close();
          const write = await this.expectWriteAllOrNothing(chat, (sent.body.operation as { id: string }).id, title, undefined, this.loadFolder(), url);
          expect(write).toBe('write applied and journaled');
          return 'card still pending after restart; allowed then: applied and journaled';
        }
        const write = await this.expectWriteAllOrNothing(chat, (sent.body.operation as { id: string }).id, title, undefined, after, url);
        return `${decision ? 'allowed before the kill' : 'decided'}; ${write}; chat ${await chatStatus(url, chat)}`;
      },
    };
  }

  /** A one-off schedule 1-2.5 s out, saved as a browser saves it: killed around its firing. */
  private async schedule(k: number): Promise<Work> {
    const chat = CHAT.schedule;
    const title = `Crash schedule ${k}`;
    const at = Date.now() + this.between(1000, 2500);
    const res = await fetch(`${this.server.url}/recipes/default/tiddlers/${encodeURIComponent(title)}`, {
      method: 'PUT',
      headers: WRITE_HEADERS,
      body: JSON.stringify({
        title,
        tags: '$:/tags/AI/Schedule',
        fields: { 'agent-chat': chat, 'schedule-kind': 'at', 'schedule-at': new Date(at).toISOString(), 'schedule-message': `Wake ${k}` },
      }),
    });
    expect(res.status).toBe(204);
    this.mock.queue({ text: `Woken ${k}:${words(15, `s${k}`)}`, delayMs: 40 });
    await until('the schedule on disk', () => tiddlerFiles(this.dir).tiddlers.has(title));
    const delay = this.between(0, 3500);
    const from = Date.now();
    await sleep(delay);
    const woken = () => savedMessages(this.dir, chat).filter((m) => m['agent-source'] === `schedule:${title}`);
    return {
      moment: `schedule on disk +${delay} ms (due ${at > from ? `+${at - from}` : at - from} ms)`,
      check: async ({ url, before }) => {
        const firedBefore = [...before.values()].some((m) => m['agent-source'] === `schedule:${title}`);
        await until('the schedule to have run', () => woken().length >= 1, 20_000);
        await until('its turn to end', async () => !['working'].includes((await chatStatus(url, chat)) ?? ''), 20_000);
        const schedule = (await getTiddler(url, title))!;
        expect(woken()).toHaveLength(1);
        expect(schedule).toMatchObject({ 'schedule-run-count': '1', 'schedule-enabled': 'no' });
        return firedBefore ? 'fired before the kill; once (run count 1)' : 'fired after the restart; once (run count 1)';
      },
    };
  }

  /** A slow MCP tool (300-1200 ms) without confirmation: killed once the MCP server got the call, plus up to its end and beyond. */
  private async mcp(k: number): Promise<Work> {
    const chat = CHAT.mcp;
    const mark = path.join(os.tmpdir(), `tiddlyagent-crash-${process.pid}-${k}.mark`);
    fs.rmSync(mark, { force: true });
    const ms = this.between(300, 1200);
    this.mock.queue([
      { toolCalls: [{ name: 'mcp-odd-slow', arguments: { ms, mark } }], delayMs: 20 },
      { text: `After MCP ${k}:${words(10, `m${k}`)}`, delayMs: 40 },
    ]);
    expect((await post(this.server.url, 'send', { chat, text: `MCP ${k}` })).status).toBe(202);
    await until('the MCP server to get the call', () => fs.existsSync(mark) && fs.readFileSync(mark, 'utf8').endsWith('\n'), 20_000);
    const pid = Number(fs.readFileSync(mark, 'utf8').trim());
    const delay = this.between(0, ms + 600);
    await sleep(delay);
    return {
      moment: `MCP server got the call +${delay} ms (tool takes ${ms} ms)`,
      check: async () => {
        fs.rmSync(mark, { force: true });
        // The MCP server of the killed process goes too (its stdin closed).
        await until('the old MCP server to exit', () => !alive(pid), 10_000);
        const result = savedMessages(this.dir, chat).find((m) => m.role === 'tool' && m['tool-name'] === 'mcp-odd-slow' && m.text?.includes(`after ${ms} ms`));
        return result ? `tool result kept (${result['tool-status']}); old MCP process gone` : 'call cut off, interrupted; old MCP process gone';
      },
    };
  }
}

interface Work {
  moment: string;
  check(state: { url: string; before: Map<string, Fields>; after: Map<string, Fields> }): Promise<string>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The rows as a plain-text table. */
export function crashTable(rows: CrashRow[]): string {
  const head = ['kill #', 'kind', 'moment', 'what was running', 'outcome', 'restart ms'];
  const cells = rows.map((r) => [String(r.kill), r.kind, r.moment, r.running, r.outcome, String(r.restartMs)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}
