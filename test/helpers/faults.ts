// Fault injection (issue 14 item 1): scenarios the mock LLM plays (scripts/mock-llm.cjs, its
// header lists the script fields), each run against both runners: the browser runner (a
// LocalRunner in a real TiddlyWiki booted in this process: the code a page runs) and the server
// runner (`tiddlywiki --listen` with the server plugin, POST /agent/send, the push channel).
// Every scenario ends in a checked end state: a clear error or a successful retry, the partial
// reply kept and marked, the status not `working`, the user's message kept once, no tiddler
// half-written, and the chat answering the next send (after Retry, where the scenario says). Used by the quick test
// (test/integration/faults.test.ts) and the soak variant (test/soak/faults.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { agentLib, bootWiki, type TW } from './tw';
import { defaultReply, getTiddler, post, serverWikiFolder, startServer, tiddlerFiles, watch, type MockLlm, type SseClient, type TwServer } from './server';

export type Fields = Record<string, string>;
type Script = Record<string, any>;

export const PROVIDER = 'Fault provider';
export const AGENT = 'Fault agent';
/** A tiddler the tool scenarios read. */
export const TARGET = 'Fault target';
/** The idle timeout of the provider profile, in seconds: stalls end in 1 s. */
const TIMEOUT_S = 1;
const now0 = '20250101000000000';

/** The wiki's fault setup: the provider (timeout 1 s), an agent that may read and create without asking, the tiddler it reads. */
export function setupTiddlers(mockUrl: string): Fields[] {
  return [
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mockUrl, 'default-model': 'mock-model', timeout: String(TIMEOUT_S) },
    {
      title: AGENT,
      tags: '$:/tags/AI/Agent',
      'agent-provider': PROVIDER,
      'agent-tools': 'wiki-read wiki-create',
      'agent-approval': '{"*": {"mode": "auto"}}',
      text: 'You are the fault test agent.',
    },
    { title: TARGET, text: 'The target of the read scenarios.', created: now0, modified: now0 },
  ];
}

// ---- SSE pieces for raw bodies ------------------------------------------------------------------

const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) =>
  sse({ id: 'raw', object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason: finish }] });
const DONE = 'data: [DONE]\n\n';
const callStart = (name: string, args = '') => delta({ tool_calls: [{ index: 0, id: 'call_raw', type: 'function', function: { name, arguments: args } }] });
const callArgs = (args: string) => delta({ tool_calls: [{ index: 0, function: { arguments: args } }] });
const noWait = { 'retry-after': '0' };
const times = (n: number, script: Script) => Array.from({ length: n }, () => ({ ...script }));

// ---- Scenarios ---------------------------------------------------------------------------------

export interface Scenario {
  name: string;
  /** Queued in order; requests beyond them get the mock's default reply. */
  scripts: Script[];
  expect: 'completed' | 'failed' | 'canceled';
  /** The error message in the chat (failed), or a note after a completed reply. */
  error?: RegExp;
  /** The error message's kind (`error-kind`, which picks its headline in the UI). */
  kind?: string;
  /** A partial reply is kept, marked (agent-finish error or canceled); a string: exactly these words. */
  partial?: boolean | string;
  /** Retry the failed turn: it is answered again, whole. */
  retry?: boolean;
  /** Model requests the turn makes. */
  requests: number;
  /** The completed turn's last reply: exactly this, or matching (default: the mock's reply to the message). */
  reply?: string | RegExp;
  /** Press Stop once the request reached the mock, or once the first words arrived. */
  stop?: 'request' | 'words';
  /** Tiddlers the turn writes (the only new ones allowed), with their text. */
  writes?: Record<string, string>;
  /** Tool results the turn records. */
  toolResults?: { count: number; status: string };
  /** At least this long (ms) to the end state (a server-asked wait). */
  atLeastMs?: number;
  /** Record how long the runner's event loop was blocked (a large reply). */
  measure?: boolean;
  /** In the quick variant (npm test). */
  quick?: boolean;
}

const BIG_CHUNK = 5000;
const bigChunks = (mb: number) => Array.from({ length: (mb * 1_000_000) / BIG_CHUNK }, (_, i) => `${String(i).padStart(6, '0')}${'x'.repeat(BIG_CHUNK - 7)}\n`);
const manyCalls = (n: number, name: string, args: (i: number) => unknown) => Array.from({ length: n }, (_, i) => ({ name, arguments: args(i) }));
const PARTIAL = 'These first words arrive and then the stream goes wrong';
const drip = 'A slow drip of bytes: ünïcødé, 日本語 and 🐢, three bytes at a time, longer than the idle timeout in all.';

export const SCENARIOS: Scenario[] = [
  // The connection
  { name: 'reset before any answer, then success', scripts: [{ reset: true }], expect: 'completed', requests: 2, quick: true },
  { name: 'cut after 0 bytes, then success', scripts: [{ raw: [], end: 'cut' }], expect: 'completed', requests: 2 },
  {
    name: 'cut after 0 bytes, three times',
    scripts: times(3, { raw: [], end: 'cut' }),
    expect: 'failed',
    error: /broke during the reply/,
    requests: 3,
    quick: true,
  },
  { name: 'cut after the first chunk (no words yet), then success', scripts: [{ text: 'lost words', cutAfter: 0 }], expect: 'completed', requests: 2 },
  {
    name: 'cut after the first words',
    scripts: [{ text: PARTIAL, cutAfter: 2 }],
    expect: 'failed',
    error: /broke during the reply/,
    partial: true,
    requests: 1,
    quick: true,
  },
  {
    name: 'cut inside a JSON line',
    scripts: [{ text: PARTIAL, cutAfter: 3, cutMidLine: true }],
    expect: 'failed',
    error: /broke during the reply/,
    partial: true,
    requests: 1,
    quick: true,
  },
  {
    name: 'body ends after words, no finish, no [DONE]',
    scripts: [{ raw: [delta({ content: 'Words without ' }), delta({ content: 'an end' })], end: 'close' }],
    expect: 'failed',
    error: /ended before the reply was complete/,
    partial: true,
    requests: 1,
  },
  {
    name: 'empty 200 body, three times',
    scripts: times(3, { raw: [], end: 'close' }),
    expect: 'failed',
    error: /ended before the reply was complete/,
    requests: 3,
  },
  // Stalls (the profile's timeout: 1 s without a byte)
  {
    name: 'no answer at all (before headers), three times',
    scripts: times(3, { hang: true }),
    expect: 'failed',
    error: /did not answer in time|No data arrived/,
    requests: 3,
  },
  {
    name: 'stall after the headers, no bytes, three times',
    scripts: times(3, { raw: [], end: 'stall' }),
    expect: 'failed',
    error: /No data arrived .* for 1 s/,
    requests: 3,
  },
  { name: 'stall after the headers once, then success', scripts: [{ raw: [], end: 'stall' }], expect: 'completed', requests: 2 },
  {
    name: 'stall mid-reply (idle timeout)',
    scripts: [{ text: PARTIAL, stallAfter: 3 }],
    expect: 'failed',
    error: /No data arrived .* for 1 s/,
    partial: true,
    requests: 1,
    quick: true,
  },
  { name: 'Stop during a stall with no bytes', scripts: [{ hang: true }], stop: 'request', expect: 'canceled', requests: 1, quick: true },
  { name: 'Stop during a stall mid-reply', scripts: [{ text: PARTIAL, stallAfter: 3 }], stop: 'words', expect: 'canceled', partial: true, requests: 1 },
  { name: 'slow drip, 3 bytes at a time (2 s in all)', scripts: [{ text: drip, dripBytes: 3, delayMs: 2 }], expect: 'completed', reply: drip, requests: 1 },
  {
    name: 'multi-byte characters split across reads',
    scripts: [{ text: '🐢 ünï 日本語 🎉 done', dripBytes: 1, delayMs: 0 }],
    expect: 'completed',
    reply: '🐢 ünï 日本語 🎉 done',
    requests: 1,
    quick: true,
  },
  // HTTP statuses (retryable ones carry retry-after: 0, the server's own word, so retries do not wait)
  { name: 'HTTP 401', scripts: [{ status: 401 }], expect: 'failed', error: /401.*API key/s, requests: 1, quick: true },
  { name: 'HTTP 403', scripts: [{ status: 403 }], expect: 'failed', error: /403/, requests: 1 },
  {
    name: 'HTTP 404',
    scripts: [{ status: 404, body: { error: { message: 'The model `mock-model` does not exist', type: 'invalid_request_error', code: 'model_not_found' } } }],
    expect: 'failed',
    error: /404/,
    requests: 1,
    quick: true,
  },
  { name: 'HTTP 400', scripts: [{ status: 400 }], expect: 'failed', error: /400/, requests: 1 },
  { name: 'HTTP 500, then success', scripts: [{ status: 500, headers: noWait }], expect: 'completed', requests: 2, quick: true },
  { name: 'HTTP 500 three times (backoff, no retry-after)', scripts: times(3, { status: 500 }), expect: 'failed', error: /500/, requests: 3 },
  { name: 'HTTP 502 three times', scripts: times(3, { status: 502, headers: noWait }), expect: 'failed', error: /502/, requests: 3 },
  { name: 'HTTP 503, then success', scripts: [{ status: 503, headers: noWait }], expect: 'completed', requests: 2 },
  {
    name: 'HTTP 529 (overloaded) three times',
    scripts: times(3, { status: 529, headers: noWait }),
    expect: 'failed',
    error: /529|overloaded/i,
    requests: 3,
    quick: true,
  },
  {
    name: '429 with Retry-After: 1, then success',
    scripts: [{ status: 429, headers: { 'retry-after': '1' } }],
    expect: 'completed',
    requests: 2,
    atLeastMs: 1000,
    quick: true,
  },
  {
    name: '429 storm longer than the retry budget',
    scripts: times(10, { status: 429, headers: noWait }),
    expect: 'failed',
    error: /429/,
    requests: 3,
    quick: true,
  },
  { name: '429 asking to wait an hour', scripts: [{ status: 429, headers: { 'retry-after': '3600' } }], expect: 'failed', error: /429/, requests: 1 },
  {
    name: '429 out of quota',
    scripts: [{ status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } }],
    expect: 'failed',
    error: /quota/,
    requests: 1,
  },
  // Bodies that are not the stream asked for
  {
    name: 'a JSON body instead of SSE',
    scripts: [{ json: 'completion', text: 'One JSON object' }],
    expect: 'failed',
    error: /Expected a stream of server-sent events.*JSON/,
    requests: 1,
    quick: true,
  },
  {
    name: 'a JSON error body in a 200',
    scripts: [{ json: { error: { message: 'JSON, not a stream', type: 'invalid_request_error' } } }],
    expect: 'failed',
    error: /JSON, not a stream/,
    requests: 1,
  },
  {
    name: 'an HTML page in a 200',
    scripts: [{ raw: ['<html><body>Login</body></html>'], headers: { 'content-type': 'text/html' } }],
    expect: 'failed',
    error: /HTML page/,
    requests: 1,
  },
  {
    name: 'plain text in a 200 event stream',
    scripts: [{ raw: ['Hello, this is not a stream\n'] }],
    expect: 'failed',
    error: /Expected server-sent events/,
    requests: 1,
  },
  // Inside the stream
  // A chunk that cannot be read lost words: the reply is damaged, never complete (issue 23).
  {
    name: 'a malformed JSON chunk between words',
    scripts: [{ text: 'Before the bad chunk, after it.', inject: { 3: 'data: {"choices":[{"delta":{"content":"bro\n\n' } }],
    expect: 'failed',
    error: /could not be read.*not valid JSON.*kept and marked incomplete/s,
    kind: 'damaged',
    partial: 'Before the bad ',
    retry: true,
    requests: 1,
    quick: true,
  },
  {
    name: 'only a malformed JSON chunk, then [DONE]: nothing shown yet, so retried',
    scripts: [{ raw: ['data: {"choices":[{"delta":{"content":"bro\n\n', DONE] }],
    expect: 'completed',
    requests: 2,
  },
  {
    name: 'invalid UTF-8 inside a delta',
    scripts: [{ chunks: ['Before ', { hex: 'ff fe c3' }, ' after'] }],
    expect: 'completed',
    reply: /^Before \ufffd+ after$/,
    requests: 1,
    quick: true,
  },
  {
    name: 'an error event inside a 200 stream',
    scripts: [{ text: PARTIAL, errorInStream: 'Upstream failed mid-reply (scripted)' }],
    expect: 'failed',
    error: /Upstream failed mid-reply/,
    partial: true,
    requests: 1,
    quick: true,
  },
  {
    name: 'an error object before any words, then success',
    scripts: [{ raw: [sse({ error: { message: 'Upstream hiccup (scripted)', type: 'server_error' } })], end: 'close' }],
    expect: 'completed',
    requests: 2,
  },
  {
    name: 'an `event: error` (Groq style)',
    scripts: [
      {
        raw: [delta({ content: 'Half ' }), 'event: error\ndata: {"error":{"message":"Groq says no (scripted)","type":"invalid_request_error"}}\n\n'],
        end: 'close',
      },
    ],
    expect: 'failed',
    error: /Groq says no/,
    partial: true,
    requests: 1,
  },
  { name: 'an empty stream: only [DONE]', scripts: [{ raw: [DONE] }], expect: 'failed', error: /empty reply/, requests: 1, quick: true },
  { name: 'a finish and nothing else', scripts: [{ text: '' }], expect: 'failed', error: /empty reply/, requests: 1, quick: true },
  {
    name: 'cut off at the output limit',
    scripts: [{ text: PARTIAL, finishReason: 'length' }],
    expect: 'completed',
    reply: PARTIAL,
    error: /output token limit/,
    requests: 1,
  },
  // Size
  {
    name: 'a 5 MB reply in 1,000 chunks',
    scripts: [{ chunks: bigChunks(5), delayMs: 0 }],
    expect: 'completed',
    reply: bigChunks(5).join(''),
    requests: 1,
    measure: true,
  },
  {
    name: 'a 1 MB reply in 200 chunks',
    scripts: [{ chunks: bigChunks(1), delayMs: 0 }],
    expect: 'completed',
    reply: bigChunks(1).join(''),
    requests: 1,
    measure: true,
    quick: true,
  },
  // One delta of 1 MB is followed at once by the reply tiddler of 1 MB: a page that reads keeps
  // both (the push channel dropped it once, taking it for a page that does not read).
  {
    name: 'one 1 MB delta',
    scripts: [{ chunks: ['y'.repeat(1_000_000)], delayMs: 0 }],
    expect: 'completed',
    reply: 'y'.repeat(1_000_000),
    requests: 1,
    quick: true,
  },
  // Tool calls
  {
    name: 'a reply with 200 tool calls',
    scripts: [{ toolCalls: manyCalls(200, 'wiki-read', () => ({ title: TARGET })), delayMs: 0 }],
    expect: 'completed',
    toolResults: { count: 200, status: 'ok' },
    requests: 2,
    measure: true,
  },
  {
    name: 'a reply with 200 unknown tool calls',
    scripts: [{ toolCalls: manyCalls(200, 'no-such-tool', (i) => ({ i })), delayMs: 0 }],
    expect: 'completed',
    toolResults: { count: 200, status: 'error' },
    requests: 2,
    measure: true,
    quick: true,
  },
  {
    name: 'a tool call cut inside its arguments',
    scripts: [{ raw: [delta({ role: 'assistant', content: null }), callStart('wiki-create'), callArgs('{"title":"Half written","te')], end: 'cut' }],
    expect: 'failed',
    error: /broke during the reply/,
    requests: 1,
    quick: true,
  },
  {
    name: 'a tool call with broken JSON arguments',
    scripts: [{ raw: [callStart('wiki-create', '{"title":"Broken args","text":'), delta({}, 'tool_calls'), DONE] }],
    expect: 'completed',
    toolResults: { count: 1, status: 'error' },
    requests: 2,
  },
  {
    name: 'a tool call that writes, then the reply',
    scripts: [{ toolCalls: [{ name: 'wiki-create', arguments: { title: 'Fault written', text: 'Whole text.' } }] }],
    expect: 'completed',
    writes: { 'Fault written': 'Whole text.' },
    toolResults: { count: 1, status: 'ok' },
    requests: 2,
    quick: true,
  },
];

// ---- The runners -------------------------------------------------------------------------------

export interface FaultRunner {
  readonly name: 'browser' | 'server';
  send(chat: string, text: string): Promise<string>;
  /** Retry the chat's last turn (its user message); resolves with the status it ends in. */
  retry(chat: string, message: string): Promise<string>;
  stop(chat: string): Promise<void>;
  /** Resolves once the first words of a reply reached whoever watches the chat. */
  words(chat: string): Promise<void>;
  messages(chat: string): Promise<Fields[]>;
  /** The wiki's own tiddlers (not system, not chats): what a half-written tiddler would join. */
  titles(): Promise<Set<string>>;
  tiddler(title: string): Promise<Fields | undefined>;
  /** Starts measuring responsiveness; returns the longest block (ms) when called. */
  probe(): () => Promise<number>;
  close(): Promise<void>;
}

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'input-required', 'interrupted']);

/** The browser runner: turns in a TiddlyWiki booted in this process, as a page runs them. */
export async function browserRunner(mock: MockLlm): Promise<FaultRunner> {
  const $tw: TW = await bootWiki(setupTiddlers(mock.url));
  const runner = agentLib($tw).getLocalRunner();
  const fields = (title: string): Fields | undefined => $tw.wiki.getTiddler(title)?.getFieldStrings();
  return {
    name: 'browser',
    async send(chat, text) {
      if (!$tw.wiki.tiddlerExists(chat)) $tw.wiki.addTiddler({ title: chat, agent: AGENT, 'agent-status': 'idle', text: '' });
      return (await runner.submit({ kind: 'send', chat, text })).status;
    },
    retry: async (chat, message) => (await runner.submit({ kind: 'retry', chat, message })).status,
    stop: async (chat) => runner.submit({ kind: 'stop', chat }),
    words: (chat) =>
      new Promise<void>((resolve) => {
        const off = runner.bus.subscribe(chat, (e: { type: string }) => {
          if (e.type !== 'text-delta') return;
          off();
          resolve();
        });
      }),
    messages: async (chat) =>
      ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[])
        .map((t) => fields(t)!)
        .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq'])),
    titles: async () => new Set($tw.wiki.filterTiddlers('[all[tiddlers]!is[system]!has[agent]]') as string[]),
    tiddler: async (title) => fields(title),
    probe() {
      // The timer lateness of this process's event loop: the runner, the wiki and the mock share it.
      const histogram = monitorEventLoopDelay({ resolution: 5 });
      histogram.enable();
      return async () => {
        histogram.disable();
        return histogram.max / 1e6;
      };
    },
    close: async () => undefined,
  };
}

/** The server runner: `tiddlywiki --listen` with the server plugin; sends over HTTP, ends seen on the push channel. */
export async function serverRunner(mock: MockLlm, chats: string[]): Promise<FaultRunner & { dir: string; server: TwServer }> {
  const dir = serverWikiFolder(mock.url);
  const tid = (f: Fields) =>
    `${Object.entries(f)
      .filter(([k]) => k !== 'text')
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n${f.text ?? ''}`;
  const setup = [...setupTiddlers(mock.url), ...chats.map((title) => ({ title, agent: AGENT, 'agent-status': 'idle' }))];
  setup.forEach((f, i) => {
    fs.writeFileSync(path.join(dir, 'tiddlers', `fault-${i}.tid`), tid(f));
  });
  const server = await startServer(dir);
  const url = server.url;
  const clients = new Map<string, Promise<SseClient>>();
  const client = (chat: string) => clients.get(chat) ?? clients.set(chat, watch(url, [chat])).get(chat)!;
  /** Where each chat's current turn starts in its client's events. */
  const marks = new Map<string, number>();
  const json = async (route: string) => (await (await fetch(`${url}${route}`)).json()) as Fields[];
  /** POST `action`, then the status the chat's turn ends in, as its page sees it. */
  const turn = async (chat: string, action: string, body: Record<string, string>) => {
    const c = await client(chat);
    const from = c.events.length;
    marks.set(chat, from);
    const answer = await post(url, action, body);
    if (answer.status !== 202) throw new Error(`${action}: ${answer.status} ${JSON.stringify(answer.body)}`);
    const end = await c.waitFor(
      `the end of the turn in ${chat}`,
      (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'status' && TERMINAL.has(e.data.status) && c.events.indexOf(e) >= from,
      { from, ms: 60_000 },
    );
    return end.data.status as string;
  };
  return {
    name: 'server',
    dir,
    server,
    send: (chat, text) => turn(chat, 'send', { chat, text }),
    retry: (chat, message) => turn(chat, 'retry', { chat, message }),
    async stop(chat) {
      await post(url, 'stop', { chat });
    },
    async words(chat) {
      const c = await client(chat);
      await until(() => marks.has(chat), 'the send');
      const from = marks.get(chat)!;
      await c.waitFor('the first words', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'text-delta', { from });
    },
    async messages(chat) {
      // Message tiddlers are system tiddlers, which the server does not list: each is read by its
      // title, $:/ai/messages/<chat>/<seq>, seq 0, 1, … up to the first that is not there.
      const list: Fields[] = [];
      for (let seq = 0; ; seq += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, (_, i) => getTiddler(url, `$:/ai/messages/${chat}/${String(seq + i).padStart(6, '0')}`)));
        const end = batch.indexOf(undefined);
        list.push(...((end < 0 ? batch : batch.slice(0, end)) as Fields[]));
        if (end >= 0) return list;
      }
    },
    titles: async () => new Set((await json('/recipes/default/tiddlers.json')).filter((t) => t.agent === undefined).map((t) => t.title!)),
    tiddler: (title) => getTiddler(url, title),
    probe() {
      // How long the server takes to answer a small request while it works: its event loop's longest block, plus loopback.
      let worst = 0;
      let running = true;
      const loop = (async () => {
        while (running) {
          const t = performance.now();
          await fetch(`${url}/agent/status`).then((r) => r.arrayBuffer());
          worst = Math.max(worst, performance.now() - t);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      return async () => {
        running = false;
        await loop;
        return worst;
      };
    },
    async close() {
      for (const c of clients.values()) (await c).close();
      await server.stop();
      // Every tiddler file the server left parses (a half-written file would throw).
      tiddlerFiles(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- One scenario ------------------------------------------------------------------------------

export interface Row {
  scenario: string;
  runner: string;
  outcome: string;
  requests: number;
  ms: number;
  /** The longest block of the runner's event loop (measured scenarios). */
  blockMs?: number;
}

/** The chat a scenario uses in a runner. */
export const chatOf = (s: Scenario) => `Fault chat: ${s.name.replace(/[[\]{}|]/g, '')}`;

/** Plays the scenario, checks its end state and the next send, and returns its row of the table. */
export async function runScenario(runner: FaultRunner, mock: MockLlm, s: Scenario): Promise<Row> {
  const chat = chatOf(s);
  const text = `fault ${runner.name}: ${s.name}`;
  const titlesBefore = await runner.titles();
  mock.reset();
  mock.queue(s.scripts);
  const block = s.measure ? runner.probe() : undefined;
  const started = performance.now();
  const sent = runner.send(chat, text);
  if (s.stop === 'request') {
    await until(() => mock.requests.some((r: { reply?: string }) => r.reply === 'queue'), 'the request at the mock');
    await runner.stop(chat);
  } else if (s.stop === 'words') {
    await runner.words(chat);
    await runner.stop(chat);
  }
  const status = await sent;
  const ms = performance.now() - started;
  const blockMs = block ? await block() : undefined;
  const requests = mock.requests.filter((r: { path: string }) => r.path.endsWith('/chat/completions')).length;

  // The end state.
  const where = `${s.name} (${runner.name})`;
  const list = await runner.messages(chat);
  const users = list.filter((m) => m.role === 'user');
  const last = list.at(-1)!;
  const outcome =
    s.expect === 'failed'
      ? `failed: ${last.text}`
      : s.expect === 'canceled'
        ? 'canceled'
        : s.requests > 1 && !s.toolResults
          ? `completed after ${s.requests - 1} retr${s.requests > 2 ? 'ies' : 'y'}`
          : 'completed';
  check(where, status, s.expect, 'status');
  check(
    where,
    users.map((m) => m.text),
    [text],
    'the user message, kept once',
  );
  check(where, requests, s.requests, 'model requests');
  if (s.atLeastMs) check(where, ms >= s.atLeastMs, true, `at least ${s.atLeastMs} ms`);
  const replies = list.filter((m) => m.role === 'assistant');
  if (s.expect === 'failed') {
    check(where, last.role, 'error', 'the last message is the error');
    checkMatch(where, last.text!, s.error!, 'the error message');
  }
  if (s.kind) check(where, last['error-kind'], s.kind, 'the kind of error');
  if (s.partial) {
    const partial = replies.at(-1);
    check(where, partial?.['agent-finish'], s.expect === 'canceled' ? 'canceled' : 'error', 'the partial reply is marked');
    check(
      where,
      typeof s.partial === 'string' ? partial?.text : !!partial?.text,
      typeof s.partial === 'string' ? s.partial : true,
      'the partial reply keeps its words',
    );
    if (s.expect === 'failed') checkMatch(where, last.text!, /kept and marked incomplete/, 'the error says the partial reply is kept');
  } else if (s.expect !== 'completed') {
    check(where, replies.filter((m) => m.text).length, 0, 'no reply when none arrived');
  }
  if (s.expect === 'completed') {
    const reply = replies.at(-1);
    check(where, reply?.['agent-finish'], s.error ? 'length' : 'stop', 'a complete reply');
    const want = s.reply ?? (s.toolResults ? undefined : defaultReply(text));
    if (typeof want === 'string')
      check(where, reply?.text === want, true, `the reply is exactly the one sent (${reply?.text?.length} characters of ${want.length})`);
    else if (want instanceof RegExp) checkMatch(where, reply?.text ?? '', want, 'the reply');
    if (s.error) checkMatch(where, last.text!, s.error, 'the note after the reply');
  }
  if (s.toolResults) {
    const results = list.filter((m) => m.role === 'tool');
    check(where, results.length, s.toolResults.count, 'tool results');
    check(
      where,
      results.every((m) => m['tool-status'] === s.toolResults!.status),
      true,
      `every tool result ${s.toolResults.status}`,
    );
    if (s.expect === 'completed') checkMatch(where, replies.at(-1)?.text ?? '', /The tool returned/, 'the reply after the tool results');
  }
  // No tiddler appears but the ones the turn wrote in full.
  const added = [...(await runner.titles())].filter((t) => !titlesBefore.has(t));
  check(where, added.sort(), Object.keys(s.writes ?? {}).sort(), 'new tiddlers');
  for (const [title, body] of Object.entries(s.writes ?? {})) check(where, (await runner.tiddler(title))?.text, body, `${title} written in full`);

  // Retry answers the turn again, whole, in place of the damaged reply and its error.
  if (s.retry) {
    mock.reset();
    check(where, await runner.retry(chat, users[0]!.title!), 'completed', 'the retry');
    const retried = await runner.messages(chat);
    check(
      where,
      retried.map((m) => [m.role, m.text, m['agent-finish']]),
      [
        ['user', text, undefined],
        ['assistant', defaultReply(text), 'stop'],
      ],
      'the chat after the retry',
    );
  }

  // The chat answers the next send.
  mock.reset();
  const next = `after ${s.name}`;
  check(where, await runner.send(chat, next), 'completed', 'the next send');
  const after = await runner.messages(chat);
  check(where, after.at(-1)?.text, defaultReply(next), 'the next reply');
  check(
    where,
    after.filter((m) => m.role === 'user').map((m) => m.text),
    [text, next],
    'user messages after the next send',
  );
  return { scenario: s.name, runner: runner.name, outcome: outcome.replace(/\s+/g, ' ').slice(0, 110), requests, ms, blockMs };
}

function check(where: string, actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${where}: ${what}: expected ${JSON.stringify(expected)?.slice(0, 300)}, got ${JSON.stringify(actual)?.slice(0, 300)}`);
}
function checkMatch(where: string, actual: string, pattern: RegExp, what: string): void {
  if (!pattern.test(actual)) throw new Error(`${where}: ${what}: ${JSON.stringify(actual.slice(0, 300))} does not match ${pattern}`);
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The table the suites print. */
export function formatTable(rows: Row[]): string {
  const head = ['scenario', 'runner', 'outcome', 'requests', 'ms', 'block ms'];
  const cells = rows.map((r) => [r.scenario, r.runner, r.outcome, String(r.requests), r.ms.toFixed(0), r.blockMs === undefined ? '' : r.blockMs.toFixed(0)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
