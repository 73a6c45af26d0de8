// Engine overhead per streamed delta: the same recorded-style stream (N OpenAI chunks,
// served in 16 KiB writes by a loopback server) consumed (A) by the provider adapter alone
// and (B) by a whole turn through the runner (hooks, events to a subscriber, one message
// write). (B − A) / N is what the engine adds per delta.
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
// The benchmark owns what it starts: its test doubles listen on loopback (the manual's "Who may do what").
process.env.TIDDLYAGENT_CONFIG ??= JSON.stringify({ allowHosts: ['127.0.0.1'] });

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.BENCH_DELTAS || 20000);
const REPS = Number(process.env.BENCH_REPS || 15);
const WARMUP = 3;

const words = ['the ', 'wiki ', 'tiddler ', 'é ', '日本 ', '🙂 ', 'note\n', '"quoted" '];
let body = '';
for (let i = 0; i < N; i++) {
  const chunk = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'bench',
    choices: [{ index: 0, delta: { content: words[i % words.length] }, finish_reason: null }],
  };
  body += `data: ${JSON.stringify(chunk)}\n\n`;
}
body += `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
const bytes = Buffer.from(body);

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let at = 0; at < bytes.length; at += 16384) {
      if (!res.write(bytes.subarray(at, at + 16384))) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

const $tw = require('tiddlywiki').TiddlyWiki();
$tw.boot.argv = [ROOT];
$tw.preloadTiddlerArray([
  { title: 'Bench provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': baseUrl, 'default-model': 'bench', 'context-window': '100000' },
  { title: 'Bench agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Bench provider', text: 'You are a benchmark.' },
]);
await new Promise((r) => $tw.boot.boot(r));
const lib = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
const runner = lib.getRunner();

async function providerOnly() {
  const model = lib.createLanguageModel('openai-chat', { baseUrl, fetch: (u, i) => fetch(u, i), idleTimeoutMs: 60000 });
  let deltas = 0;
  const started = performance.now();
  for await (const part of model.stream({ model: 'bench', messages: [{ role: 'user', content: 'go' }] }, new AbortController().signal)) {
    if (part.type === 'text-delta') deltas++;
  }
  if (deltas !== N) throw new Error(`provider saw ${deltas} deltas`);
  return performance.now() - started;
}

let chatNo = 0;
async function wholeTurn() {
  const chat = `Bench chat ${++chatNo}`;
  $tw.wiki.addTiddler({ title: chat, agent: 'Bench agent', 'agent-status': 'idle' });
  let deltas = 0;
  const unsubscribe = runner.bus.subscribe(chat, (e) => {
    if (e.type === 'text-delta') deltas++;
  });
  const started = performance.now();
  const result = await runner.submit({ kind: 'send', chat, text: 'go' });
  const ms = performance.now() - started;
  unsubscribe();
  if (result.status !== 'completed' || deltas !== N) throw new Error(`turn ended ${result.status} after ${deltas} deltas: ${result.error}`);
  return ms;
}

const a = [];
const b = [];
for (let i = 0; i < WARMUP + REPS; i++) {
  const order = i % 2 ? [providerOnly, wholeTurn] : [wholeTurn, providerOnly];
  for (const run of order) {
    const ms = await run();
    if (i >= WARMUP) (run === providerOnly ? a : b).push(ms);
  }
}
server.close();

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const fmt = (xs) => `${median(xs).toFixed(1)} ms [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`;
const perDelta = (ms) => ((ms * 1000) / N).toFixed(2);
console.log(
  `Engine overhead per streamed delta (N=${N} deltas, ${(bytes.length / 1e6).toFixed(2)} MB, ${REPS} reps after ${WARMUP} warm-up, Node ${process.version})`,
);
console.log(`  A provider adapter alone   ${fmt(a)}  = ${perDelta(median(a))} µs/delta`);
console.log(`  B whole turn (runner)      ${fmt(b)}  = ${perDelta(median(b))} µs/delta`);
console.log(`  engine overhead (B−A)/N    ${(((median(b) - median(a)) * 1000) / N).toFixed(2)} µs/delta; ratio B/A ${(median(b) / median(a)).toFixed(2)}`);
process.exit(0);
