// Helpers for the server edition's integration tests: a real `tiddlywiki <wiki> --listen`
// process with the server plugin on loopback, its push channel (server-sent events) read over
// raw HTTP, its POST /agent/<action> routes, and what it leaves on disk (the operation log,
// the tiddler files). Nothing here sleeps for correctness: every wait is on an event, the
// process's output or a bounded poll.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { demoWikiFolder, servingUrl, type MockLlm } from './e2e';
import { ROOT } from './tw';

const mockLlm = require('../../scripts/mock-llm.cjs') as {
  startMockLlm(options: { port?: number; delayMs?: number }): Promise<MockLlm>;
  defaultReply(text: string): string;
  toolResultReply(text: string): string;
};
export const { startMockLlm, defaultReply, toolResultReply } = mockLlm;
export type { MockLlm };

export const TIDDLYWIKI = path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js');
/** What a browser page sends with every state-changing request. */
export const WRITE_HEADERS = { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki' };

export type Fields = Record<string, string>;

export interface TwServer {
  url: string;
  dir: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM, and wait for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILL (no clean-up of any kind), and wait for the process to exit. */
  kill(): Promise<void>;
}

/** A temp copy of the demo wiki with the built agent and server plugins, its mock provider at `mockUrl`. */
export function serverWikiFolder(mockUrl: string): string {
  return demoWikiFolder(mockUrl, { server: true, edition: 'server' });
}

/** `tiddlywiki <dir> --listen port=0 host=127.0.0.1 <args>`, resolved once it serves; `env` adds to its environment (jest's process.env is not the child's). */
export async function startServer(dir: string, args: string[] = [], env: Record<string, string> = {}): Promise<TwServer> {
  const child = spawn(process.execPath, [TIDDLYWIKI, dir, '--listen', 'port=0', 'host=127.0.0.1', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await servingUrl(child);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, dir, child, output: () => output, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

/** Bounded poll (sync or async condition); throws with `what` on timeout. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ---- HTTP -------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** POST /agent/<action> with a JSON body (a string is sent as it is), as a writer page would unless `headers` replace the defaults. */
export async function post(url: string, action: string, body: unknown, headers: Record<string, string> = WRITE_HEADERS): Promise<Answer> {
  const res = await fetch(`${url}/agent/${action}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { raw: text };
  }
  return { status: res.status, body: parsed };
}

/** One tiddler through TiddlyWiki's own route, custom fields pulled up; undefined when absent. */
export async function getTiddler(url: string, title: string, headers: Record<string, string> = {}): Promise<Fields | undefined> {
  const res = await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent(title)}`, { headers });
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${title}: ${res.status}`);
  const { fields, ...standard } = (await res.json()) as Record<string, unknown>;
  return { ...(standard as Fields), ...(fields as Fields) };
}

/** PUT a tiddler through TiddlyWiki's own route, as a page saves it (custom fields under `fields`); the status. */
export async function putTiddler(url: string, fields: Fields, headers: Record<string, string> = WRITE_HEADERS): Promise<number> {
  const { title, text, tags, type, ...rest } = fields;
  const body = { title, text: text ?? '', ...(tags ? { tags } : {}), ...(type ? { type } : {}), fields: rest };
  const res = await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent(title!)}`, { method: 'PUT', headers, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

export async function chatStatus(url: string, chat: string, headers: Record<string, string> = {}): Promise<string | undefined> {
  return (await getTiddler(url, chat, headers))?.['agent-status'];
}

// ---- The push channel -------------------------------------------------------------------------

export interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

export interface SseOptions {
  chats?: string[];
  sync?: string[];
  /** Sent as the Last-Event-ID header (a browser's reconnect). */
  lastEventId?: string;
  /** Sent as the last-event-id query parameter (the cursor rendered into a page). */
  cursor?: string;
  headers?: Record<string, string>;
}

/** A push-channel client that reads everything and keeps it, in order. */
export class SseClient {
  readonly events: SseEvent[] = [];
  ended = false;
  private waiters = new Set<() => void>();
  private req?: http.ClientRequest;

  private constructor(readonly status: number) {}

  /** Connect to GET /agent/events; resolves with the response status once headers arrive (the body is read only when it is 200). */
  static open(url: string, options: SseOptions = {}): Promise<SseClient> {
    const query = new URLSearchParams();
    for (const chat of options.chats ?? []) query.append('chat', chat);
    for (const chat of options.sync ?? []) query.append('sync', chat);
    if (options.cursor) query.append('last-event-id', options.cursor);
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...options.headers };
    if (options.lastEventId) headers['Last-Event-ID'] = options.lastEventId;
    return new Promise((resolve, reject) => {
      const req = http.get(`${url}/agent/events?${query}`, { headers, agent: false }, (res) => {
        const client = new SseClient(res.statusCode ?? 0);
        client.req = req;
        if (res.statusCode !== 200) {
          res.resume();
          client.ended = true;
          return resolve(client);
        }
        res.setEncoding('utf8');
        // The pieces of the event being received; a large tiddler event comes in many chunks,
        // and each chunk is searched once (a growing string would be copied at every chunk).
        let parts: string[] = [];
        const complete = (last: string) => {
          parts.push(last);
          client.parse(parts.join(''));
          parts = [];
        };
        res.on('data', (chunk: string) => {
          let text = chunk;
          if (parts.length && parts.at(-1)!.endsWith('\n') && text.startsWith('\n')) {
            parts[parts.length - 1] = parts.at(-1)!.slice(0, -1);
            complete('');
            text = text.slice(1);
          }
          for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
            complete(text.slice(0, end));
            text = text.slice(end + 2);
          }
          if (text) parts.push(text);
        });
        const finish = () => {
          client.ended = true;
          client.notify();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
        resolve(client);
      });
      req.on('error', reject);
    });
  }

  private parse(block: string): void {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id') id = value;
      else if (name === 'event') event = value;
      else if (name === 'data') data.push(value);
    }
    if (!data.length) return;
    this.events.push({ id, event, data: JSON.parse(data.join('\n')) });
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The first event (at or after index `from`) matching `match`; waits for it up to `ms`. */
  waitFor(what: string, match: (e: SseEvent) => boolean, options: { from?: number; ms?: number } = {}): Promise<SseEvent> {
    const { from = 0, ms = 15_000 } = options;
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.slice(from).find(match);
        if (found) {
          done();
          resolve(found);
        } else if (this.ended) {
          done();
          reject(new Error(`the event stream ended before ${what}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${ms} ms waiting for ${what}; last events: ${JSON.stringify(this.events.slice(-5)).slice(0, 1500)}`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** The agent events of one chat, in order. */
  agentEvents(chat: string, type?: string): SseEvent['data'][] {
    return this.events.filter((e) => e.event === 'agent' && e.data.chat === chat && (!type || e.data.type === type)).map((e) => e.data);
  }

  /** The concatenated text deltas of a chat since event index `from`. */
  deltas(chat: string, from = 0): string[] {
    return this.events
      .slice(from)
      .filter((e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'text-delta')
      .map((e) => e.data.text as string);
  }

  get lastId(): string | undefined {
    return this.events.filter((e) => e.id).at(-1)?.id;
  }

  close(): void {
    this.req?.destroy();
  }
}

/** Wait for the snapshot of every watched chat: from then on, the client misses nothing. */
export async function watch(url: string, chats: string[], options: Omit<SseOptions, 'chats'> = {}): Promise<SseClient> {
  const client = await SseClient.open(url, { ...options, chats });
  if (client.status !== 200) throw new Error(`GET /agent/events: ${client.status}`);
  for (const chat of chats) await client.waitFor(`the snapshot of ${chat}`, (e) => e.event === 'agent' && e.data.type === 'snapshot' && e.data.chat === chat);
  return client;
}

// ---- On disk ----------------------------------------------------------------------------------

/** The operation log's lines, parsed (a line cut off by a kill is returned as `{ broken }`). */
export function operations(dir: string): Record<string, unknown>[] {
  const file = path.join(dir, 'agent-state', 'operations.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { broken: line };
      }
    });
}

/** The statuses one operation went through, in the log's order. */
export function operationStatuses(dir: string, id: string): string[] {
  return operations(dir)
    .filter((op) => op.id === id)
    .map((op) => op.status as string);
}

/** `name: value` lines up to the first blank line, then the text; throws on a malformed header. */
function parseFieldBlock(content: string, file: string, withText: boolean): Fields {
  const split = content.indexOf('\n\n');
  const header = split === -1 ? content : content.slice(0, split);
  const fields: Fields = {};
  for (const line of header.split('\n')) {
    if (!line.trim()) continue;
    const m = /^([^:\s]+):\s?(.*)$/.exec(line);
    if (!m) throw new Error(`${file}: not a field line: ${JSON.stringify(line)}`);
    fields[m[1]!] = m[2]!;
  }
  if (withText) fields.text = split === -1 ? '' : content.slice(split + 2);
  if (!fields.title) throw new Error(`${file}: no title`);
  return fields;
}

/**
 * Every tiddler saved in `<dir>/tiddlers` (.tid, .json, or a body file with its .meta), by
 * title. Throws when any file does not parse (a truncated file) or a .meta lacks its body.
 * Dot files (TiddlyWiki skips them when it loads a folder) are listed in `hidden`.
 */
export function tiddlerFiles(dir: string): { tiddlers: Map<string, Fields>; hidden: string[] } {
  const root = path.join(dir, 'tiddlers');
  const tiddlers = new Map<string, Fields>();
  const hidden: string[] = [];
  const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const names = new Set(files.map((e) => path.join(e.parentPath, e.name)));
  for (const entry of files) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.name.startsWith('.')) {
      hidden.push(path.relative(root, file));
      continue;
    }
    // A body file (any extension, .json included) is read with its .meta.
    if (names.has(`${file}.meta`)) continue;
    // The server may delete a tiddler's file between the listing and this read (a one-shot alarm
    // that fired): the folder as it is now no longer holds it.
    const content = readIfThere(file);
    if (content === undefined) continue;
    if (file.endsWith('.tid')) {
      const fields = parseFieldBlock(content, file, true);
      tiddlers.set(fields.title!, fields);
    } else if (file.endsWith('.json')) {
      const list = JSON.parse(content) as Fields[];
      for (const fields of Array.isArray(list) ? list : [list]) {
        if (typeof fields?.title !== 'string') throw new Error(`${file}: a tiddler without a title`);
        tiddlers.set(fields.title, fields);
      }
    } else if (file.endsWith('.meta')) {
      const body = file.slice(0, -'.meta'.length);
      // A body + .meta pair is written .meta first (server/durable/tiddler-files.ts): a .meta
      // alone is a write still under way, which TiddlyWiki's own loader would skip too.
      const text = names.has(body) ? readIfThere(body) : undefined;
      if (text === undefined) continue;
      const fields: Fields = { ...parseFieldBlock(content, file, false), text };
      tiddlers.set(fields.title!, fields);
    } else throw new Error(`${file}: a tiddler file of an unknown kind`);
  }
  return { tiddlers, hidden };
}

function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The messages of a chat as saved on disk, in order. */
export function savedMessages(dir: string, chat: string): Fields[] {
  return [...tiddlerFiles(dir).tiddlers.values()]
    .filter((t) => t['agent-chat'] === chat && t['agent-seq'] !== undefined)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}

/** Every file below `<dir>/tiddlers` with its bytes, to show that nothing changed. */
export function folderBytes(dir: string): Map<string, string> {
  const root = path.join(dir, 'tiddlers');
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out.set(path.relative(root, path.join(entry.parentPath, entry.name)), fs.readFileSync(path.join(entry.parentPath, entry.name)).toString('base64'));
  }
  return out;
}

/** A new chat tiddler file with the demo agent (the server loads it at boot). */
export function writeChat(dir: string, title: string, fields: Fields = {}): void {
  const all: Fields = { title, agent: '$:/demo/agents/offline-demo', 'agent-status': 'idle', ...fields };
  const name = title.replace(/[^\w -]/g, '_');
  fs.writeFileSync(
    path.join(dir, 'tiddlers', `${name}.tid`),
    `${Object.entries(all)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n`,
  );
}

/**
 * A chat and, beside it, everything it can own on disk (two messages, a turn journal, a kept
 * image, a todo list, a parked version, a tool-made schedule): the titles a page that shows it
 * gets whole. `status` is the chat's (a turn left `working` by a kill, say).
 */
export function writeFurnishedChat(dir: string, chat: string, status = 'idle'): string[] {
  writeChat(dir, chat, { 'agent-status': status });
  const parts: Fields[] = [
    { title: `$:/ai/messages/${chat}/000000`, 'agent-chat': chat, 'agent-seq': '0', role: 'user', type: 'text/plain', text: `hello from ${chat}` },
    {
      title: `$:/ai/messages/${chat}/000001`,
      'agent-chat': chat,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'mcp-x-y',
      'tool-status': 'ok',
      type: 'text/plain',
      text: 'an image',
      attachments: `[[$:/ai/images/${chat}/1]]`,
    },
    { title: `$:/ai/journal/${chat}/000000`, 'agent-chat-journal': chat, 'agent-turn': `$:/ai/messages/${chat}/000000`, type: 'application/json', text: '{}' },
    { title: `$:/ai/images/${chat}/1`, 'agent-image-chat': chat, type: 'image/png', text: 'iVBORw0KGgo=' },
    { title: `$:/ai/todo/${chat}`, 'agent-chat-todo': chat, type: 'text/plain', text: `- [ ] ${chat}` },
    {
      title: `$:/ai/branches/${chat}/1/000001`,
      'agent-branch-chat': chat,
      'agent-branch': '1',
      'agent-branch-at': '1',
      'agent-version': '1',
      'agent-seq': '1',
      role: 'assistant',
      type: 'text/plain',
      text: 'an earlier answer',
    },
    {
      title: `$:/ai/schedules/${chat}/abc`,
      tags: '$:/tags/AI/Schedule',
      'agent-chat': chat,
      'schedule-kind': 'interval',
      'schedule-interval': '3600',
      'schedule-enabled': 'no',
    },
  ];
  for (const [i, { text, ...fields }] of parts.entries()) {
    const name = `${chat.replace(/[^\w -]/g, '_')}-part-${i}.tid`;
    fs.writeFileSync(
      path.join(dir, 'tiddlers', name),
      `${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${text}`,
    );
  }
  return [chat, ...parts.map((f) => f.title!)];
}

/** Resident memory of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}
