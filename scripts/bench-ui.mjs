// Chat UI cost in Chromium against a served wiki (TiddlyWiki's server with filesystem +
// tiddlyweb, as the e2e tests run it), for chats of M = 10 and M = 1000 existing messages, in
// both editions: `browser` (turns run in the page) and `server` (the server plugin runs them
// and the page gets the events over SSE):
//   1. opening the chat: cold (first open after page load) and warm (close + reopen), to the
//      DOM, to the first frame, and until the whole window (50 messages) is rendered;
//   2. one streamed reply of N chunks from the mock LLM: the main thread's busy time per second
//      of streaming (Chromium's TaskDuration: script, style, layout, paint, network, GC), the
//      cost of each streaming-bubble render (ui/stream-view.ts), how many, and the wiki writes
//      the turn causes (change events, time in the change dispatch, PUTs to the server).
// DESIGN 9: updates at most ~10/s, a few ms each whatever the chat length; a long chat
// renders its latest ~50 messages first; one message-tiddler save per reply. The report ends
// with the goals of issue 10 (open, open ratio, main-thread ms per second of streaming) and of
// issue 25 (the plugin JS a page compiles before its first chat is shown; the first open after
// a page load against a warm one), each median against its limit.
// Env: BENCH_ROUNDS (3), BENCH_WARM (5 reopens per page), BENCH_CHUNKS (300), BENCH_CHUNK_DELAY_MS (10),
// BENCH_REPLY_CHARS (2000), BENCH_EDITIONS (browser,server), BENCH_BASELINE (a checkout to compare with,
// interleaved), BENCH_TIMEOUT_MS (240000, doubled with a baseline),
// BENCH_PROFILE=<dir> (CPU profiles of the first open, a warm open and the stream, first round; with
// BENCH_TRACE=1 Chromium traces instead, summarized by trace event), CHROMIUM_PATH (/usr/bin/chromium).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
// The benchmark owns what it starts: its test doubles listen on loopback (the manual's "Who may do what").
process.env.TIDDLYAGENT_CONFIG ??= JSON.stringify({ allowHosts: ['127.0.0.1'] });

const require = createRequire(import.meta.url);
const { startMockLlm } = require('./mock-llm.cjs');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// The same flags as test/helpers/global-setup.cjs (root in a container, no network).
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
const SIZES = [10, 1000];
// browser: turns run in the page (no server plugin); server: the server edition (turns run on the server, events over SSE).
const EDITIONS = (process.env.BENCH_EDITIONS || 'browser,server').split(',');
// BENCH_BASELINE=<another checkout with built plugins/>: measure it too, interleaved with this
// one page by page, so both see the same machine (on a shared machine the main-thread figures
// drift by 10-20 ms/s between runs, more than most changes are worth).
const BUILDS = [{ label: '', root: ROOT }, ...(process.env.BENCH_BASELINE ? [{ label: 'baseline', root: path.resolve(process.env.BENCH_BASELINE) }] : [])];
const RUNS = EDITIONS.flatMap((edition) => BUILDS.map((build) => ({ edition, build, key: build.label ? `${edition} ${build.label}` : edition })));
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const WARM = Number(process.env.BENCH_WARM || 5);
const CHUNKS = Number(process.env.BENCH_CHUNKS || 300);
const CHUNK_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS || 10);
const REPLY_CHARS = Number(process.env.BENCH_REPLY_CHARS || 2000);
const WATCHDOG_MS = Number(process.env.BENCH_TIMEOUT_MS || (process.env.BENCH_BASELINE ? 480_000 : 240_000));
const PROFILE = process.env.BENCH_PROFILE;
const TRACE = !!process.env.BENCH_TRACE;
const AGENT = '$:/demo/agents/offline-demo';
const chatTitle = (m) => `Bench chat ${m}`;
const REFERENCE = 'Bench reference note';

// ---- fixtures ---------------------------------------------------------------------------

/** ~500 chars of wikitext: bold, italic, code, a 3-item list and two [[links]]. */
function messageText(seq, role) {
  const n = seq % 97;
  return role === 'user'
    ? `Question ${seq}: could you look at [[Topic ${n}]] again and tell me ''what changed'' since last week? ` +
        `I would like a short summary with the //main points//, anything that looks wrong, and whether ` +
        `the notes in [[see here|Topic ${(n + 1) % 97}]] still apply. Please keep it brief: a few lines ` +
        `and a list is enough. Also check the \`code\` sample and say if it still runs on the current ` +
        `version. Thanks a lot, this helps me plan the next steps for the project notes (msg ${seq}).`
    : `''Summary ${seq}.'' Here is what I found in [[Topic ${n}]] after reading it //carefully//:\n\n` +
        `* The first section was rewritten and now explains the \`setup\` step in detail.\n` +
        `* Two links point to tiddlers that no longer exist; see [[see here|Topic ${(n + 1) % 97}]].\n` +
        `* The list of open questions is shorter: ''three'' items remain.\n\n` +
        `Nothing looks wrong otherwise. The code sample still runs on the current version, and the ` +
        `notes still apply, although one date should be updated (message ${seq}).`;
}

function messageTiddlers(chat, m) {
  const out = [];
  for (let seq = 0; seq < m; seq++) {
    const role = seq % 2 ? 'assistant' : 'user';
    out.push({
      title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`,
      text: messageText(seq, role),
      type: role === 'assistant' ? 'text/vnd.tiddlywiki' : 'text/plain',
      created: '20260101000000000',
      'agent-chat': chat,
      'agent-seq': String(seq),
      role,
    });
  }
  return out;
}

/** The streamed reply: ~REPLY_CHARS chars of wikitext split into exactly CHUNKS pieces. */
function replyChunks() {
  let text = '';
  for (let i = 0; text.length < REPLY_CHARS; i++) {
    text += `''Point ${i + 1}.'' The tiddler [[Topic ${i}]] now covers //this// part, with \`code\` and a list:\n\n* first item\n* second item with [[a link|Topic ${i + 1}]]\n\n`;
  }
  const chunks = [];
  for (let i = 0; i < CHUNKS; i++) chunks.push(text.slice(Math.floor((i * text.length) / CHUNKS), Math.floor(((i + 1) * text.length) / CHUNKS)));
  return chunks;
}

// ---- harness: temp wiki, TiddlyWiki server, mock LLM, Chromium --------------------------

const cleanups = [];
async function cleanup() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (e) {
      console.error(`cleanup: ${e.message}`);
    }
  }
}
const watchdog = setTimeout(async () => {
  console.error(`bench-ui: timed out after ${WATCHDOG_MS} ms`);
  await cleanup();
  process.exit(1);
}, WATCHDOG_MS);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, async () => {
    await cleanup();
    process.exit(130);
  });

/** A wiki folder served by TiddlyWiki; `server`: with the server plugin (turns run on the server), else only the agent plugin (turns run in the page). */
function makeWiki(mockUrl, edition, root) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-bench-ui-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(
    path.join(dir, 'tiddlywiki.info'),
    JSON.stringify({ plugins: ['tiddlywiki/filesystem', 'tiddlywiki/tiddlyweb'], themes: ['tiddlywiki/vanilla', 'tiddlywiki/snowwhite'] }),
  );
  if (edition === 'server') fs.symlinkSync(path.join(root, 'plugins'), path.join(dir, 'plugins'));
  else {
    fs.mkdirSync(path.join(dir, 'plugins'));
    fs.symlinkSync(path.join(root, 'plugins', 'agent'), path.join(dir, 'plugins', 'agent'));
  }
  fs.cpSync(path.join(ROOT, 'wiki', 'tiddlers'), path.join(dir, 'tiddlers'), { recursive: true });
  // The page opens showing no chat (the demo opens its Demo chat), so the first open measured is
  // the first chat the page shows: what it compiles and does for that is counted there.
  fs.writeFileSync(path.join(dir, 'tiddlers', '$__DefaultTiddlers.tid'), 'title: $:/DefaultTiddlers\n\n[[Welcome to TiddlyAgent]]\n');
  // This measures streaming into a long chat: no compaction first (its summary request would take the measured reply).
  const agentFile = path.join(dir, 'tiddlers', '$__demo_agents_offline-demo.tid');
  fs.writeFileSync(
    agentFile,
    fs.readFileSync(agentFile, 'utf8').replace(/^title: .*$/m, (line) => `${line}\nagent-compact-at: 0`),
  );
  const provider = {
    title: '$:/demo/providers/mock-llm',
    tags: '$:/tags/AI/Provider',
    caption: 'Mock LLM',
    api: 'openai-chat',
    'base-url': mockUrl,
    'default-model': 'mock-model',
  };
  fs.writeFileSync(
    path.join(dir, 'tiddlers', '$__demo_providers_mock-llm.tid'),
    `${Object.entries(provider)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n`,
  );
  const tiddlers = [];
  for (const m of SIZES) {
    // As a chat is after a turn: its context meter saved.
    const usage = { system: 1200, tools: 800, transient: 300, history: Math.min(120_000, m * 150), total: 2300 + Math.min(120_000, m * 150), window: 124_000 };
    tiddlers.push({
      title: chatTitle(m),
      agent: AGENT,
      'agent-status': 'completed',
      'agent-context-usage': JSON.stringify(usage),
      created: '20260101000000000',
      modified: '20260101000000000',
      text: '',
    });
    tiddlers.push(...messageTiddlers(chatTitle(m), m));
  }
  // The reference: a plain tiddler holding the text of a chat's first window, to tell TiddlyWiki's
  // own first-open cost (story view, templates, Chromium's first style and layout) from the chat's.
  tiddlers.push({ title: REFERENCE, text: Array.from({ length: 50 }, (_, seq) => messageText(seq, seq % 2 ? 'assistant' : 'user')).join('\n\n') });
  fs.writeFileSync(path.join(dir, 'tiddlers', 'bench-chats.json'), JSON.stringify(tiddlers));
  return dir;
}

async function startServer(dir) {
  const tiddlywiki = path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js');
  const server = spawn(process.execPath, [tiddlywiki, dir, '--listen', 'port=0', 'host=127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let exited = false;
  server.on('exit', () => (exited = true));
  cleanups.push(async () => {
    if (exited) return;
    const gone = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 2000);
    await gone;
    clearTimeout(timer);
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      const m = /Serving on (http:\/\/[^\s]+)/.exec(output);
      if (m) resolve(m[1].replace(/\/$/, ''));
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Error(`TiddlyWiki server exited with ${code}:\n${output}`)));
  });
}

// ---- in-page instrumentation (installed once per page) -----------------------------------

function instrument() {
  const tw = window.$tw;
  const B = { streams: [], renders: [], refreshes: [], changes: [], writes: [], listeners: {} };
  window.__bench = B;
  const proto = tw.modules.execute('$:/plugins/tiddlyagent/agent/ui/chat-widget.js')['ai-chat'].prototype;
  const wrap = (target, name, into, chatOf) => {
    const original = target[name];
    target[name] = function (...args) {
      const t = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        into.push({ t, ms: performance.now() - t, chat: chatOf(this) });
      }
    };
  };
  wrap(proto, 'render', B.renders, (w) => w.chat);
  wrap(proto, 'refresh', B.refreshes, (w) => w.chat);
  // Each render of the streaming bubble (ui/stream-view.ts), found through the widget's first one.
  const startStream = proto.startStream;
  proto.startStream = function (...args) {
    const result = startStream.apply(this, args);
    const streamProto = this.stream && Object.getPrototypeOf(this.stream);
    if (streamProto && !streamProto.__benchWrapped) {
      streamProto.__benchWrapped = true;
      wrap(streamProto, 'render', B.streams, (v) => v.ctx.chat);
    }
    return result;
  };
  // The whole synchronous change dispatch: title, stylesheet and page refresh, syncer, etc.
  const wiki = tw.wiki;
  const dispatch = wiki.dispatchEvent;
  wiki.dispatchEvent = function (type, ...args) {
    if (type !== 'change') return dispatch.call(this, type, ...args);
    const t = performance.now();
    try {
      return dispatch.call(this, type, ...args);
    } finally {
      B.changes.push({ t, ms: performance.now() - t, titles: Object.keys(args[0] || {}) });
    }
  };
  // Each change listener on its own, named by what it refreshes.
  const name = (fn) => {
    const src = String(fn);
    if (/pageWidgetNode|onlyThrottledTiddlersHaveChanged/.test(src)) return 'page';
    if (/styleWidgetNode/.test(src)) return 'stylesheet';
    if (/getSyncedTiddlers/.test(src)) return 'syncer';
    return 'other'; // window title, saver handler, keyboard manager, plugin switcher…
  };
  wiki.eventListeners.change = wiki.eventListeners.change.map((fn) => {
    const label = name(fn);
    return (...args) => {
      const t = performance.now();
      try {
        return fn.apply(fn, args);
      } finally {
        B.listeners[label] = (B.listeners[label] || 0) + performance.now() - t;
      }
    };
  });
  // Every store write (addTiddler / deleteTiddler) goes through enqueueTiddlerEvent.
  const enqueue = wiki.enqueueTiddlerEvent;
  wiki.enqueueTiddlerEvent = function (title, ...args) {
    B.writes.push({ t: performance.now(), title });
    return enqueue.call(this, title, ...args);
  };
  B.reset = () => {
    for (const k of ['streams', 'renders', 'refreshes', 'changes', 'writes']) B[k].length = 0;
    B.listeners = {};
  };
  B.frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
}

/** In the page: open the plain tiddler `title`, resolve when its body is in the DOM and a frame painted. */
async function openPlain(title) {
  const tw = window.$tw;
  const sel = `[data-tiddler-title="${CSS.escape(title)}"] .tc-tiddler-body`;
  const t0 = performance.now();
  new tw.Story({ wiki: tw.wiki }).navigateTiddler(title);
  while (!document.querySelector(sel)) {
    if (performance.now() - t0 > 10_000) throw new Error(`opening ${title}: not in the DOM after 10 s`);
    await new Promise((r) => setTimeout(r, 0));
  }
  await window.__bench.frame();
  return { toFrame: performance.now() - t0 };
}

/** In the page: close the plain tiddler `title`. */
async function closePlain(title) {
  const tw = window.$tw;
  const story = new tw.Story({ wiki: tw.wiki });
  story.saveStoryList(story.getStoryList().filter((t) => t !== title));
  while (document.querySelector(`[data-tiddler-title="${CSS.escape(title)}"]`)) await new Promise((r) => setTimeout(r, 20));
  await window.__bench.frame();
  await window.__bench.frame();
}

/** In the page: open `title`, resolve when its chat and messages are in the DOM and a frame painted. */
async function openChat({ title, window: expected }) {
  const tw = window.$tw;
  const B = window.__bench;
  B.reset();
  const sel = `.tc-ai-chat[data-chat="${CSS.escape(title)}"]`;
  const t0 = performance.now();
  new tw.Story({ wiki: tw.wiki }).navigateTiddler(title);
  let chat = document.querySelector(sel);
  while (!chat?.querySelector('.tc-ai-message')) {
    if (performance.now() - t0 > 10_000) throw new Error(`opening ${title}: no messages in the DOM after 10 s`);
    await new Promise((r) => setTimeout(r, 0));
    chat = document.querySelector(sel);
  }
  const inDom = performance.now() - t0;
  await B.frame();
  const toFrame = performance.now() - t0;
  const dispatchMs = B.changes.reduce((s, c) => s + c.ms, 0);
  const renderMs = B.renders.filter((r) => r.chat === title).reduce((s, r) => s + r.ms, 0);
  const firstShown = chat.querySelectorAll('.tc-ai-message[data-message]').length;
  // A long chat renders its newest messages first and the rest of its window after the frame.
  while (chat.querySelectorAll('.tc-ai-message[data-message]').length < expected) {
    if (performance.now() - t0 > 10_000) throw new Error(`opening ${title}: the window never filled`);
    await new Promise((r) => setTimeout(r, 1));
  }
  const windowMs = performance.now() - t0;
  return {
    inDom,
    toFrame,
    windowMs,
    dispatchMs,
    renderMs,
    listeners: { ...B.listeners },
    firstShown,
    shown: chat.querySelectorAll('.tc-ai-message[data-message]').length,
    elements: chat.getElementsByTagName('*').length,
  };
}

/**
 * The plugin's JavaScript the page has compiled so far: the source of every TiddlyAgent module
 * TiddlyWiki has executed (its `exports` is set on first require; a module never required is
 * never compiled), in KiB, with the count and the largest.
 */
function compiledJs() {
  const executed = Object.entries(window.$tw.modules.titles).filter(
    ([title, m]) => title.startsWith('$:/plugins/tiddlyagent/') && m.exports !== undefined && typeof m.definition === 'string',
  );
  const sizes = executed.map(([title, m]) => [title.replace('$:/plugins/tiddlyagent/', ''), m.definition.length]).sort((a, b) => b[1] - a[1]);
  return {
    kib: sizes.reduce((n, [, b]) => n + b, 0) / 1024,
    modules: sizes.length,
    largest: sizes.slice(0, 5).map(([t, b]) => `${t} ${(b / 1024).toFixed(0)} KiB`),
  };
}

async function closeChat(title) {
  const tw = window.$tw;
  // Story.storyCloseTiddler is a stub in TiddlyWiki 5.4; tm-close-tiddler just edits the list.
  const story = new tw.Story({ wiki: tw.wiki });
  story.saveStoryList(story.getStoryList().filter((t) => t !== title));
  const sel = `.tc-ai-chat[data-chat="${CSS.escape(title)}"]`;
  const deadline = performance.now() + 10_000;
  while (document.querySelector(sel)) {
    if (performance.now() > deadline) throw new Error(`closing ${title}: still in the DOM after 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await window.__bench.frame();
  await window.__bench.frame();
}

// ---- measurement ------------------------------------------------------------------------

/**
 * BENCH_PROFILE=<dir> BENCH_TRACE=1: a Chromium trace instead of a CPU profile (saved as
 * <dir>/<name>.json, for chrome://tracing or DevTools), with the renderer main thread's time
 * by trace event printed (self time: style, layout, paint, script, network, …).
 */
async function tracer(cdp) {
  let events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  return {
    start: () =>
      cdp.send('Tracing.start', {
        transferMode: 'ReportEvents',
        traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink', 'loading'] },
      }),
    async stop(name) {
      const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      await done;
      fs.mkdirSync(PROFILE, { recursive: true });
      fs.writeFileSync(path.join(PROFILE, `${name}.json`), JSON.stringify(events));
      const main = events.find(
        (e) =>
          e.ph === 'M' &&
          e.name === 'thread_name' &&
          e.args?.name === 'CrRendererMain' &&
          events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === 'FunctionCall'),
      );
      const mine = events
        .filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined)
        .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
      const self = new Map();
      const count = new Map();
      const stack = [];
      let top = 0;
      for (const e of mine) {
        while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
        const parent = stack.at(-1);
        if (parent) self.set(parent.name, (self.get(parent.name) || 0) - e.dur);
        else top += e.dur;
        self.set(e.name, (self.get(e.name) || 0) + e.dur);
        count.set(e.name, (count.get(e.name) || 0) + 1);
        stack.push(e);
      }
      const span = mine.length ? (mine.at(-1).ts + mine.at(-1).dur - mine[0].ts) / 1000 : 0;
      console.log(`trace ${name}: main thread busy ${(top / 1000).toFixed(1)} ms of ${span.toFixed(0)} ms`);
      for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
        console.log(`  ${(us / 1000).toFixed(2).padStart(8)} ms ${String(count.get(key)).padStart(6)}×  ${key}`);
      events = [];
    },
  };
}

/**
 * BENCH_PROFILE=<dir>: in the first round, a CPU profile of the first open after the page
 * load, of the last warm open and of the streamed reply, saved as <dir>/<name>.cpuprofile (open in Chrome DevTools), with the
 * functions of most self time printed.
 */
async function profiler(cdp) {
  if (TRACE) return tracer(cdp);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  return {
    start: () => cdp.send('Profiler.start'),
    async stop(name) {
      const { profile } = await cdp.send('Profiler.stop');
      fs.mkdirSync(PROFILE, { recursive: true });
      fs.writeFileSync(path.join(PROFILE, `${name}.cpuprofile`), JSON.stringify(profile));
      const dt = new Map(profile.samples.map((_id, i) => [i, profile.timeDeltas[i] ?? 0]));
      const self = new Map();
      profile.samples.forEach((id, i) => {
        self.set(id, (self.get(id) || 0) + dt.get(i));
      });
      const byFn = new Map();
      for (const node of profile.nodes) {
        const f = node.callFrame;
        const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
        byFn.set(key, (byFn.get(key) || 0) + (self.get(node.id) || 0));
      }
      const total = [...byFn.values()].reduce((a, b) => a + b, 0);
      console.log(`profile ${name}: ${(total / 1000).toFixed(1)} ms sampled`);
      for (const [key, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(us / 1000).toFixed(2).padStart(8)} ms  ${key}`);
    },
  };
}

const results = Object.fromEntries(
  RUNS.map(({ key }) => [
    key,
    { ...Object.fromEntries(SIZES.map((m) => [m, { cold: [], warm: [], stream: [], atLoad: [], compiled: [] }])), reference: { cold: [], warm: [] } },
  ]),
);

/** Chromium's cumulative main-thread metrics (seconds). */
async function taskMetrics(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name) => metrics.find((x) => x.name === name)?.value ?? 0;
  return { at: get('Timestamp'), task: get('TaskDuration'), script: get('ScriptDuration'), layout: get('LayoutDuration') + get('RecalcStyleDuration') };
}

async function measureStream(page, cdp, mock, m, chunks, profile) {
  const title = chatTitle(m);
  const chat = page.locator(`.tc-ai-chat[data-chat="${title}"]`);
  const puts = [];
  const onRequest = (request) => {
    if (request.method() === 'PUT') puts.push(decodeURIComponent(new URL(request.url()).pathname.replace(/^\/recipes\/default\/tiddlers\//, '')));
  };
  mock.queue({ chunks, delayMs: CHUNK_DELAY_MS });
  const requestsBefore = mock.requests.length;
  await chat.locator('textarea.tc-ai-chat-input').fill(`Bench question ${Date.now()}`);
  // Count only what the turn writes: let the opens' $:/StoryList saves go out first.
  await page.waitForFunction(() => !!window.$tw.syncer && !window.$tw.syncer.isDirty(), null, { timeout: 15_000 });
  await page.evaluate(() => window.__bench.reset());
  page.on('request', onRequest);
  // Streamed characters as the runner delivers them, so the busy-time window is picked by
  // events rather than by polling the DOM (polling would itself be main-thread work).
  await page.evaluate((t) => {
    const B = window.__bench;
    B.streamed = 0;
    B.waiting = [];
    B.unsubscribe?.();
    B.unsubscribe = window.$tw.modules
      .execute('$:/plugins/tiddlyagent/agent/lib.js')
      .getRunner()
      .subscribe(t, (event) => {
        if (event.type === 'reply-started') B.streamed = 0;
        if (event.type !== 'text-delta') return;
        B.streamed += event.text.length;
        B.waiting = B.waiting.filter(({ n, resolve }) => {
          if (B.streamed < n) return true;
          resolve();
          return false;
        });
      });
    B.streamedAtLeast = (n) => new Promise((resolve) => (B.streamed >= n ? resolve() : B.waiting.push({ n, resolve })));
    // The turn is over when the chat shows it completed and the streaming bubble has gone
    // (watched with a MutationObserver from the last status event on, not polled).
    B.turnOver = new Promise((resolve) => {
      const chat = document.querySelector(`.tc-ai-chat[data-chat="${CSS.escape(t)}"]`);
      const over = () => chat.getAttribute('data-status') === 'completed' && !chat.querySelector('.tc-ai-message-streaming');
      const watch = () => {
        if (over()) return resolve();
        const observer = new MutationObserver(() => {
          if (!over()) return;
          observer.disconnect();
          resolve();
        });
        observer.observe(chat, { attributes: true, childList: true, subtree: true });
      };
      const off = window.$tw.modules
        .execute('$:/plugins/tiddlyagent/agent/lib.js')
        .getRunner()
        .subscribe(t, (event) => {
          if (event.type === 'status' && event.status === 'completed')
            setTimeout(() => {
              off();
              watch();
            });
        });
    });
  }, title);
  const total = chunks.join('').length;
  const t0 = Date.now();
  const turnStart = await taskMetrics(cdp);
  await chat.locator('textarea.tc-ai-chat-input').press('Control+Enter');
  // Main-thread busy time (Chromium's TaskDuration in CPU time: script, style, layout, paint, GC, …) from
  // 10 % to 90 % of the reply: the steady state of streaming, without the writes of the
  // turn's start and end (those are counted below as change dispatch).
  await page.evaluate((n) => window.__bench.streamedAtLeast(n), Math.floor(total * 0.1));
  await profile?.start();
  const m0 = await taskMetrics(cdp);
  await page.evaluate((n) => window.__bench.streamedAtLeast(n), Math.floor(total * 0.9));
  const m1 = await taskMetrics(cdp);
  await profile?.stop(`stream-M${m}`);
  await page.evaluate(() => window.__bench.turnOver);
  const turnMs = Date.now() - t0;
  const turnEnd = await taskMetrics(cdp);
  await page.evaluate(() => window.__bench.unsubscribe?.());
  const b = await page.evaluate(() => {
    const B = window.__bench;
    return {
      streams: B.streams.map((s) => ({ ...s })),
      changes: B.changes.map((c) => ({ ...c })),
      writes: B.writes.map((w) => ({ ...w })),
      refreshes: B.refreshes.map((r) => ({ ...r })),
      renders: B.renders.length,
      listeners: { ...B.listeners },
    };
  });
  // The syncer saves what changed about a second later; wait until it is clean.
  await page.waitForTimeout(100);
  await page.waitForFunction(() => !!window.$tw.syncer && !window.$tw.syncer.isDirty(), null, { timeout: 15_000 });
  page.off('request', onRequest);
  const req = mock.requests[requestsBefore];
  if (req?.reply !== 'queue') throw new Error(`the mock did not play the queued script (reply: ${req?.reply})`);
  const streams = b.streams.filter((s) => s.chat === title);
  const span = streams.length > 1 ? (streams.at(-1).t - streams[0].t) / 1000 : NaN;
  const stored = await page.evaluate((t) => {
    const tw = window.$tw;
    const replies = tw.wiki.filterTiddlers(
      '[field:agent-chat<c>role[assistant]!nsort[agent-seq]limit[1]]',
      tw.rootWidget.makeFakeWidgetWithVariables({ c: t }),
    );
    return tw.wiki.getTiddlerText(replies[0], '');
  }, title);
  if (stored !== chunks.join('')) throw new Error(`M=${m}: the stored reply differs from the streamed text: ${JSON.stringify(stored.slice(0, 200))}`);
  // Put the chat back to M messages for the next round (deletions synced before the page goes).
  await page.evaluate(
    ({ t, m }) => {
      const tw = window.$tw;
      for (const title of tw.wiki.filterTiddlers('[field:agent-chat<c>]', tw.rootWidget.makeFakeWidgetWithVariables({ c: t }))) {
        if (Number(tw.wiki.getTiddler(title).fields['agent-seq']) >= m) tw.wiki.deleteTiddler(title);
      }
    },
    { t: title, m },
  );
  await page.waitForTimeout(100);
  await page.waitForFunction(() => !window.$tw.syncer.isDirty(), null, { timeout: 15_000 });
  return {
    turnMs,
    busyMsPerS: ((m1.task - m0.task) / (m1.at - m0.at)) * 1000,
    turnBusyMsPerS: ((turnEnd.task - turnStart.task) / (turnEnd.at - turnStart.at)) * 1000,
    scriptMsPerS: ((m1.script - m0.script) / (m1.at - m0.at)) * 1000,
    layoutMsPerS: ((m1.layout - m0.layout) / (m1.at - m0.at)) * 1000,
    updateMs: streams.map((s) => s.ms),
    updates: streams.length,
    ratePerS: (streams.length - 1) / span,
    minGapMs: streams.slice(1).reduce((g, s, i) => Math.min(g, s.t - streams[i].t), Infinity),
    changeEvents: b.changes.length,
    dispatchTotalMs: b.changes.reduce((s, c) => s + c.ms, 0),
    dispatchMs: b.changes.map((c) => c.ms),
    listeners: b.listeners,
    rerenders: b.renders,
    widgetRefreshMs: b.refreshes.filter((r) => r.chat === title).map((r) => r.ms),
    writes: b.writes.map((w) => w.title),
    puts,
  };
}

async function main() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);
  for (const { root } of BUILDS)
    if (!fs.existsSync(path.join(root, 'plugins', 'agent', 'ui', 'chat-widget.js')))
      throw new Error(`${root}/plugins not built: run node scripts/build.mjs there first`);
  const started = Date.now();
  const mock = await startMockLlm({ delayMs: CHUNK_DELAY_MS });
  cleanups.push(() => mock.close());
  const urls = {};
  for (const { edition, build, key } of RUNS) urls[key] = await startServer(makeWiki(mock.url, edition, build.root));
  const bootMs = Date.now() - started;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  cleanups.push(() => browser.close());
  const chunks = replyChunks();
  const loads = [];
  const pageErrors = [];

  for (let round = 0; round < ROUNDS; round++) {
    const order = (round % 2 ? [...SIZES].reverse() : SIZES).flatMap((m) => RUNS.map((run) => ({ m, ...run })));
    for (const { key } of RUNS) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        await page.goto(`${urls[key]}/`, { waitUntil: 'load' });
        await page.waitForFunction(() => !!window.$tw?.rootWidget && !!window.$tw.syncer);
        await page.evaluate(instrument);
        await page.waitForTimeout(300);
        results[key].reference.cold.push(await page.evaluate(openPlain, REFERENCE));
        for (let i = 0; i < WARM; i++) {
          await page.evaluate(closePlain, REFERENCE);
          results[key].reference.warm.push(await page.evaluate(openPlain, REFERENCE));
        }
      } finally {
        await context.close();
      }
    }
    for (const { m, key } of order) {
      const url = urls[key];
      const R = results[key];
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        page.on('pageerror', (e) => pageErrors.push(String(e)));
        const t0 = Date.now();
        await page.goto(`${url}/`, { waitUntil: 'load' });
        await page.waitForFunction(() => !!window.$tw?.rootWidget && !!window.$tw.syncer);
        loads.push(Date.now() - t0);
        await page.evaluate(instrument);
        // Let the start-up settle (first sync, default tiddlers' animations).
        await page.waitForTimeout(300);
        const title = chatTitle(m);
        const cdp = await context.newCDPSession(page);
        // Durations in the main thread's CPU time, so other processes on the machine do not inflate them.
        await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
        const profile = PROFILE && round === 0 ? await profiler(cdp) : undefined;
        const open = { title, window: Math.min(m, 50) };
        R[m].atLoad.push(await page.evaluate(compiledJs));
        await profile?.start();
        R[m].cold.push(await page.evaluate(openChat, open));
        await profile?.stop(`${key.replace(' ', '-')}-open-cold-M${m}`);
        R[m].compiled.push(await page.evaluate(compiledJs));
        for (let i = 0; i < WARM; i++) {
          await page.evaluate(closeChat, title);
          if (i === WARM - 1) await profile?.start();
          R[m].warm.push(await page.evaluate(openChat, open));
          if (i === WARM - 1) await profile?.stop(`${key.replace(' ', '-')}-open-warm-M${m}`);
        }
        R[m].stream.push(
          await measureStream(page, cdp, mock, m, chunks, profile && { ...profile, stop: (name) => profile.stop(`${key.replace(' ', '-')}-${name}`) }),
        );
      } finally {
        await context.close();
      }
    }
  }
  report({ bootMs, loads, chunks, pageErrors, totalMs: Date.now() - started });
}

// ---- report -----------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (xs, unit = ' ms', d = 1) => `${median(xs).toFixed(d)}${unit} [${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}]`;
const ratio = (a, b) => (median(b) ? (median(b) / median(a)).toFixed(2) : 'n/a');

/** The speed goals of issue 10 (DESIGN 9), checked against the medians. */
const GOALS = { openMs: 30, openRatio: 1.2, busyMsPerS: 60 };
/** Issue 25's: the plugin JS a page compiles before its first chat is shown; the first open after a page load against a warm one. */
const LEAN = { compiledKiB: 150, coldRatio: 1.2 };

function report({ bootMs, loads, chunks, pageErrors, totalMs }) {
  const [small, large] = SIZES;
  console.log(
    `Chat UI in Chromium (${ROUNDS} rounds × fresh page per M, edition${BUILDS.length > 1 ? ' and build' : ''}, ${WARM} warm reopens per page; streamed reply of ${chunks.length} chunks / ${chunks.join('').length} chars every ${CHUNK_DELAY_MS} ms; Node ${process.version})`,
  );
  console.log(`  server boot + mock ${bootMs} ms; page load ${fmt(loads, ' ms', 0)}; whole run ${(totalMs / 1000).toFixed(1)} s`);
  const goals = [];
  for (const { edition, build, key } of RUNS) {
    const S = results[key][small];
    const L = results[key][large];
    const rows = [];
    const row = (label, get, unit = ' ms', d = 1) => {
      const a = get(S);
      const b = get(L);
      rows.push([label, fmt(a, unit, d), fmt(b, unit, d), ratio(a, b)]);
    };
    console.log(
      `\n${edition === 'server' ? 'Server edition (turns run on the server, events over SSE)' : 'Browser (turns run in the page)'}${build.label ? `, baseline ${build.root}` : ''}`,
    );
    row('plugin JS compiled by the first chat shown', (r) => r.compiled.map((x) => x.kib), ' KiB', 0);
    row('… of which at page load', (r) => r.atLoad.map((x) => x.kib), ' KiB', 0);
    row('… plugin modules executed', (r) => r.compiled.map((x) => x.modules), '', 0);
    row('open cold: to DOM', (r) => r.cold.map((x) => x.inDom));
    row('open cold: to frame', (r) => r.cold.map((x) => x.toFrame));
    row('open cold: change dispatch', (r) => r.cold.map((x) => x.dispatchMs));
    row('open cold: <$ai-chat> render', (r) => r.cold.map((x) => x.renderMs));
    row('open warm: to DOM', (r) => r.warm.map((x) => x.inDom));
    row('open warm: to frame', (r) => r.warm.map((x) => x.toFrame));
    row('open warm: change dispatch', (r) => r.warm.map((x) => x.dispatchMs));
    row('open warm: <$ai-chat> render', (r) => r.warm.map((x) => x.renderMs));
    for (const part of ['page', 'stylesheet', 'syncer']) row(`open warm: dispatch → ${part}`, (r) => r.warm.map((x) => x.listeners[part] || 0));
    row('open warm: whole window rendered', (r) => r.warm.map((x) => x.windowMs));
    row('messages rendered by the first frame', (r) => r.warm.map((x) => x.firstShown), '', 0);
    row('messages rendered on open', (r) => r.warm.map((x) => x.shown), '', 0);
    row('DOM elements in the chat', (r) => r.warm.map((x) => x.elements), '', 0);
    row('stream: main-thread busy per second', (r) => r.stream.map((x) => x.busyMsPerS));
    row('turn: main-thread busy per second, send to completed', (r) => r.stream.map((x) => x.turnBusyMsPerS));
    row('stream: … of which script', (r) => r.stream.map((x) => x.scriptMsPerS));
    row('stream: … of which style + layout', (r) => r.stream.map((x) => x.layoutMsPerS));
    row('stream: per update (stream render)', (r) => r.stream.flatMap((x) => x.updateMs), ' ms', 2);
    row('stream: updates per reply', (r) => r.stream.map((x) => x.updates), '', 0);
    row('stream: update rate', (r) => r.stream.map((x) => x.ratePerS), '/s', 1);
    row('stream: shortest gap between updates', (r) => r.stream.map((x) => x.minGapMs));
    row('stream: stream render total per reply', (r) => r.stream.map((x) => x.updateMs.reduce((s, v) => s + v, 0)));
    row('turn: wiki change events', (r) => r.stream.map((x) => x.changeEvents), '', 0);
    row('turn: wiki writes (store events)', (r) => r.stream.map((x) => x.writes.length), '', 0);
    row('turn: change dispatch, each', (r) => r.stream.flatMap((x) => x.dispatchMs), ' ms', 2);
    row('turn: change dispatch, total', (r) => r.stream.map((x) => x.dispatchTotalMs));
    for (const part of ['page', 'stylesheet', 'syncer', 'other']) row(`turn: dispatch total → ${part}`, (r) => r.stream.map((x) => x.listeners[part] || 0));
    row('turn: <$ai-chat> refresh, each', (r) => r.stream.flatMap((x) => x.widgetRefreshMs), ' ms', 2);
    row('turn: <$ai-chat> re-renders', (r) => r.stream.map((x) => x.rerenders), '', 0);
    row('turn: PUTs to the server', (r) => r.stream.map((x) => x.puts.length), '', 0);
    row('turn: send to completed (wall)', (r) => r.stream.map((x) => x.turnMs), ' ms', 0);
    const ref = results[key].reference;
    rows.push([
      `reference, a plain tiddler of the same text: first open / warm`,
      `${median(ref.cold.map((x) => x.toFrame)).toFixed(1)} / ${median(ref.warm.map((x) => x.toFrame)).toFixed(1)} ms`,
      '',
      `${(median(ref.cold.map((x) => x.toFrame)) / median(ref.warm.map((x) => x.toFrame))).toFixed(2)}×`,
    ]);
    const widths = [0, 1, 2, 3].map((i) => Math.max(...[['', `M=${small}`, `M=${large}`, `M${large}/M${small}`], ...rows].map((r) => r[i].length)));
    const line = (r) => `  ${r.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('   ')}`;
    console.log(line(['median [min–max]', `M=${small}`, `M=${large}`, `M${large}/M${small}`]));
    for (const r of rows) console.log(line(r));
    console.log(`  largest compiled modules: ${results[key][small].compiled[0]?.largest.join(', ')}`);
    // What each reply wrote and saved (titles shortened; identical patterns counted once).
    for (const m of SIZES) {
      const short = (t) => t.replace(`$:/ai/messages/${chatTitle(m)}/`, 'msg/').replace(chatTitle(m), 'chat');
      const tally = (list) =>
        Object.entries(
          list.reduce((o, t) => {
            o[short(t)] = (o[short(t)] || 0) + 1;
            return o;
          }, {}),
        )
          .map(([t, n]) => (n > 1 ? `${t} ×${n}` : t))
          .join(', ') || '(none)';
      for (const kind of ['writes', 'puts']) {
        const seen = new Map();
        for (const x of results[key][m].stream) seen.set(tally(x[kind]), (seen.get(tally(x[kind])) || 0) + 1);
        console.log(`  M=${m} ${kind === 'puts' ? 'PUTs  ' : 'writes'} per reply: ${[...seen].map(([t, n]) => `${t} (${n}×)`).join(' | ')}`);
      }
    }
    const goal = (label, value, limit, unit, d = 1) =>
      goals.push([key, label, `${value.toFixed(d)}${unit}`, `≤ ${limit}${unit}`, `${(value / limit).toFixed(2)}`, value <= limit ? 'met' : 'MISSED']);
    for (const kind of ['warm', 'cold']) {
      const open = (r) => median(r[kind].map((x) => x.toFrame));
      goal(`open ${large} messages (${kind}, to frame)`, open(L), GOALS.openMs, ' ms');
      goal(`open ${large} / open ${small} (${kind})`, open(L) / open(S), GOALS.openRatio, '×', 2);
    }
    goal('plugin JS compiled by the first chat shown', median(S.compiled.map((x) => x.kib)), LEAN.compiledKiB, ' KiB', 0);
    for (const [m, r] of [
      [small, S],
      [large, L],
    ])
      goal(`first open / warm open, ${m} messages`, median(r.cold.map((x) => x.toFrame)) / median(r.warm.map((x) => x.toFrame)), LEAN.coldRatio, '×', 2);
    const plain = results[key].reference;
    // Not the plugin's: TiddlyWiki's own first open after a page load, for scale.
    goals.push([
      key,
      'reference: a plain tiddler, first open / warm open',
      `${(median(plain.cold.map((x) => x.toFrame)) / median(plain.warm.map((x) => x.toFrame))).toFixed(2)}×`,
      '',
      '',
      '',
    ]);
    for (const [m, r] of [
      [small, S],
      [large, L],
    ])
      goal(`streaming at ${m} messages: main-thread ms per s`, median(r.stream.map((x) => x.busyMsPerS)), GOALS.busyMsPerS, ' ms');
  }
  if (pageErrors.length) console.log(`  page errors: ${[...new Set(pageErrors)].join(' | ')}`);
  // The goals, each median against its limit (value / limit: under 1 is within the goal).
  const head = ['edition', 'goal', 'median', 'limit', 'of limit', ''];
  const widths = head.map((_, i) => Math.max(...[head, ...goals].map((r) => r[i].length)));
  const line = (r) => `  ${r.map((c, i) => (i === 0 || i === 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ')}`;
  console.log(
    `\nGoals (issue 10: open a ${large}-message chat in ≤ ${GOALS.openMs} ms and ≤ ${GOALS.openRatio}× a ${small}-message one; ≤ ${GOALS.busyMsPerS} ms of main-thread work per second of streaming at ${Math.round(1000 / CHUNK_DELAY_MS)} chunks/s; issue 25: ≤ ${LEAN.compiledKiB} KiB of plugin JS compiled by the first chat shown, its open ≤ ${GOALS.openMs} ms and ≤ ${LEAN.coldRatio}× a warm one)`,
  );
  console.log(line(head));
  for (const r of goals) console.log(line(r));
}

try {
  await main();
} catch (e) {
  console.error(e.stack || String(e));
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
