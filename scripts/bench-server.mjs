// The server edition under load, and what it costs a page (DESIGN 9).
// 1. Concurrent streaming chats on one server (goal: 50, each reply complete and in order, no
//    cross-talk, memory bounded): a copy of the demo wiki with N chats, served by
//    `tiddlywiki --listen` with the server plugin; N push-channel clients, one per chat; N
//    sends at once. Each client must get exactly its chat's deltas, whose concatenation is
//    its reply tiddler's text (which quotes its own chat's message). Prints wall time,
//    events, the server's resident memory before, at its peak and after, and the operation
//    log's state.
// 2. Page-load overhead of the served demo wiki: the same wiki served with and without the
//    agent and server plugins, loaded in Chromium alternately (navigation start -> load end).
// Run `node scripts/build.mjs` first. Env: BENCH_CHATS (50), BENCH_LOADS (15), CHROMIUM_PATH.
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
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TIDDLYWIKI = path.join(path.dirname(require.resolve('tiddlywiki/package.json')), 'tiddlywiki.js');
const { startMockLlm } = require('./mock-llm.cjs');
const CHATS = Number(process.env.BENCH_CHATS || 50);
const LOADS = Number(process.env.BENCH_LOADS || 15);
const WARMUP = 3;
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
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
const HEADERS = { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki' };

/** A wiki folder; `edition` links the built agent and server plugins, `mockUrl` adds the mock provider. */
function wikiFolder({ edition, mockUrl, chats = 0, bare = false }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-bench-server-'));
  fs.writeFileSync(
    path.join(dir, 'tiddlywiki.info'),
    JSON.stringify({ plugins: ['tiddlywiki/filesystem', 'tiddlywiki/tiddlyweb'], themes: ['tiddlywiki/vanilla', 'tiddlywiki/snowwhite'] }),
  );
  fs.cpSync(path.join(ROOT, 'wiki', 'tiddlers'), path.join(dir, 'tiddlers'), { recursive: true });
  if (edition) fs.symlinkSync(path.join(ROOT, 'plugins'), path.join(dir, 'plugins'));
  // Bare: the same documentation tiddlers, no chat, agent or default story that opens one.
  if (bare)
    for (const f of fs.readdirSync(path.join(dir, 'tiddlers')))
      if (/^\$__demo_|^\$__config_tiddlyagent|Demo chat|DefaultTiddlers/.test(f)) fs.rmSync(path.join(dir, 'tiddlers', f));
  if (mockUrl) {
    fs.writeFileSync(
      path.join(dir, 'tiddlers', '$__demo_providers_mock-llm.tid'),
      `title: $:/demo/providers/mock-llm\ntags: $:/tags/AI/Provider\napi: openai-chat\nbase-url: ${mockUrl}\ndefault-model: mock-model\n\n`,
    );
  }
  for (let i = 0; i < chats; i++)
    fs.writeFileSync(path.join(dir, 'tiddlers', `Bench chat ${i}.tid`), `title: Bench chat ${i}\nagent: $:/demo/agents/offline-demo\nagent-status: idle\n\n`);
  return dir;
}

async function serve(dir) {
  const child = spawn(process.execPath, [TIDDLYWIKI, dir, '--listen', 'port=0', 'host=127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const m = /Serving on (http:\/\/\S+)/.exec(output);
      if (m) resolve(m[1].replace(/\/$/, ''));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  return {
    child,
    url,
    stop: () =>
      new Promise((r) => {
        child.on('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** A push-channel client for one chat: collects its text deltas and reply tiddlers. */
function watch(url, chat) {
  const controller = new AbortController();
  const state = { chat, deltas: [], replies: [], foreign: 0, events: 0, done: false, ready: undefined };
  let resolveDone;
  let resolveReady;
  state.finished = new Promise((r) => (resolveDone = r));
  state.ready = new Promise((r) => (resolveReady = r));
  void fetch(`${url}/agent/events?chat=${encodeURIComponent(chat)}`, { signal: controller.signal }).then(async (res) => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || !data) continue;
          state.events++;
          const parsed = JSON.parse(data);
          if (event === 'agent') {
            if (parsed.type === 'snapshot') resolveReady();
            if (parsed.chat !== chat) state.foreign++;
            else if (parsed.type === 'text-delta') state.deltas.push(parsed.text);
            else if (parsed.type === 'status' && parsed.status === 'completed') {
              state.done = true;
              resolveDone();
            }
          } else if (event === 'tiddler' && parsed['agent-chat'] === chat && parsed.role === 'assistant') state.replies.push(parsed.text);
        }
      }
    } catch {
      // aborted at the end
    }
  });
  state.close = () => controller.abort();
  return state;
}

async function concurrentChats() {
  const mock = await startMockLlm({ delayMs: 25 });
  const dir = wikiFolder({ edition: true, mockUrl: mock.url, chats: CHATS });
  const server = await serve(dir);
  const pid = server.child.pid;
  const chats = Array.from({ length: CHATS }, (_, i) => `Bench chat ${i}`);
  const clients = chats.map((chat) => watch(server.url, chat));
  await Promise.all(clients.map((c) => c.ready));
  const rssBefore = rssMb(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 50);
  const started = performance.now();
  const responses = await Promise.all(
    chats.map((chat, i) =>
      fetch(`${server.url}/agent/send`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ chat, text: `${`chat${i}-token `.repeat(20)}end` }) }),
    ),
  );
  const accepted = performance.now() - started;
  await Promise.race([Promise.all(clients.map((c) => c.finished)), new Promise((r) => setTimeout(r, 120_000))]);
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  const statuses = responses.map((r) => r.status);
  let complete = 0;
  let inOrder = 0;
  let crossTalk = 0;
  for (const [i, c] of clients.entries()) {
    const reply = c.replies.at(-1) ?? '';
    if (c.done && reply) complete++;
    if (reply && c.deltas.join('') === reply) inOrder++;
    if (c.foreign || !reply.includes(`chat${i}-token`) || /chat\d+-token/g.exec(reply.replace(new RegExp(`chat${i}-token`, 'g'), ''))) crossTalk++;
  }
  const events = clients.reduce((n, c) => n + c.events, 0);
  for (const c of clients) c.close();
  const rssAfter = rssMb(pid);
  const log = fs
    .readFileSync(path.join(dir, 'agent-state', 'operations.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean);
  await server.stop();
  await mock.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`Concurrent streaming chats on one server: ${CHATS} chats, ${CHATS} push clients, ${CHATS} sends at once (mock: a word every 25 ms)`);
  console.log(`  sends accepted (202)      ${statuses.filter((s) => s === 202).length}/${CHATS} in ${accepted.toFixed(0)} ms`);
  console.log(
    `  replies complete          ${complete}/${CHATS} in ${(elapsed / 1000).toFixed(2)} s; deltas equal the saved reply, in order: ${inOrder}/${CHATS}; cross-talk: ${crossTalk}`,
  );
  console.log(`  events delivered          ${events} (${((events / elapsed) * 1000).toFixed(0)}/s)`);
  console.log(`  server memory (RSS)       ${rssBefore.toFixed(0)} MB before, ${rssPeak.toFixed(0)} MB peak, ${rssAfter.toFixed(0)} MB after`);
  console.log(`  operation log             ${log.length} lines (${CHATS * 3} written: queued, running, done per send)`);
}

async function pageLoad() {
  const plainDir = wikiFolder({ edition: false, bare: true });
  const agentDir = wikiFolder({ edition: true, bare: true });
  const [plain, agent] = [await serve(plainDir), await serve(agentDir)];
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const times = { plain: [], agent: [] };
  for (let i = 0; i < WARMUP + LOADS; i++) {
    for (const which of i % 2 ? ['agent', 'plain'] : ['plain', 'agent']) {
      // A fresh context per load: nothing cached, as a new visitor sees it.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${which === 'plain' ? plain.url : agent.url}/`, { waitUntil: 'load' });
      const ms = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd || performance.now());
      if (i >= WARMUP) times[which].push(ms);
      await context.close();
    }
  }
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${agent.url}/`, { waitUntil: 'load' });
  const state = await page.evaluate(() => ({
    lib: !!window.$tw.modules.titles['$:/plugins/tiddlyagent/agent/lib.js']?.exports,
    mark: !!document.querySelector('meta[name="tiddlyagent-server"]')?.getAttribute('content'),
  }));
  await browser.close();
  await plain.stop();
  await agent.stop();
  for (const dir of [plainDir, agentDir]) fs.rmSync(dir, { recursive: true, force: true });
  const p = median(times.plain);
  const a = median(times.agent);
  console.log(`Page load of the served wiki (tiddlywiki --listen), Chromium, fresh context per load, ${WARMUP} warm-up + ${LOADS} loads each`);
  console.log(`  plain served wiki                   ${p.toFixed(1)} ms [${Math.min(...times.plain).toFixed(1)}–${Math.max(...times.plain).toFixed(1)}]`);
  console.log(`  with the agent and server plugins   ${a.toFixed(1)} ms [${Math.min(...times.agent).toFixed(1)}–${Math.max(...times.agent).toFixed(1)}]`);
  console.log(
    `  overhead                            ${(a - p).toFixed(1)} ms (goal <= 30 ms); server edition mark: ${state.mark ? 'yes' : 'no'}; library compiled at load: ${state.lib ? 'yes' : 'no'}`,
  );
}

await concurrentChats();
await pageLoad();
