// The scheduler's cost on a big wiki. Where turns run for the user (the server edition, a
// browser-only page), the scheduler looks at every schedule and heartbeat again on each wiki
// change batch. Boots TiddlyWiki in-process with the repo root (the built plugins) plus the
// synthetic corpus (scripts/wiki-corpus.cjs), 100 chats with 2 schedules each and 5 agents
// with a heartbeat on 10 chats each, then times: the scheduler's part of a wiki change that
// touches no schedule (a note: Scheduler.changed), one look at everything (Scheduler.sync, as
// after a schedule changed or a timer fired, nothing due), the first look (every next run
// worked out and written), and TiddlyWiki's own addTiddler of the note for scale. Run `node scripts/build.mjs` first.
// Env: BENCH_TIDDLERS (100000), BENCH_REPS (50).
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
// The benchmark owns what it starts: its test doubles listen on loopback (the manual's "Who may do what").
process.env.TIDDLYAGENT_CONFIG ??= JSON.stringify({ allowHosts: ['127.0.0.1'] });

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COUNT = Number(process.env.BENCH_TIDDLERS || 100_000);
const REPS = Number(process.env.BENCH_REPS || 50);
const { generateTiddlers } = require('./wiki-corpus.cjs');

const tiddlers = [...generateTiddlers(COUNT)];
const agentOf = (i) => `Bench agent ${i % 5}`;
for (let a = 0; a < 5; a++)
  tiddlers.push({
    title: `Bench agent ${a}`,
    tags: '$:/tags/AI/Agent',
    'agent-provider': 'x',
    'agent-heartbeat-interval': '3600',
    'agent-heartbeat-active-hours': '08:00-20:00',
  });
for (let c = 0; c < 100; c++) {
  tiddlers.push({ title: `Bench chat ${c}`, agent: agentOf(c), 'agent-status': 'idle', ...(c < 50 ? { 'agent-heartbeat': 'yes' } : {}) });
  tiddlers.push({
    title: `$:/ai/schedules/Bench chat ${c}/cron`,
    tags: '$:/tags/AI/Schedule',
    'agent-chat': `Bench chat ${c}`,
    'schedule-kind': 'cron',
    'schedule-cron': `${c % 60} 9 * * 1-5`,
    'schedule-timezone': 'Europe/Berlin',
    'schedule-active-hours': '08:00-18:00',
    'schedule-message': 'Daily check',
  });
  tiddlers.push({
    title: `$:/ai/schedules/Bench chat ${c}/interval`,
    tags: '$:/tags/AI/Schedule',
    'agent-chat': `Bench chat ${c}`,
    'schedule-kind': 'interval',
    'schedule-interval': String(600 + c),
    'schedule-message': 'Every few minutes',
  });
}
const $tw = require('tiddlywiki').TiddlyWiki();
$tw.boot.argv = [ROOT];
$tw.preloadTiddlerArray(tiddlers);
tiddlers.length = 0;
await new Promise((resolve) => $tw.boot.boot(resolve));

const lib = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
const port = lib.createTiddlyWikiPort($tw.wiki);
const clock = { now: () => Date.parse('2026-11-24T12:00:00Z'), setTimeout: () => 0, clearTimeout: () => {} };
let wakes = 0;
const scheduler = new lib.Scheduler({ wiki: port, clock, wake: () => wakes++ });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => n.toFixed(3);

let t0 = performance.now();
scheduler.start();
const first = performance.now() - t0;

const look = [];
const change = [];
const noted = [];
for (let r = 0; r < REPS + 5; r++) {
  t0 = performance.now();
  $tw.wiki.addTiddler({ title: 'Bench note', text: `edit ${r}` });
  const c = performance.now() - t0;
  t0 = performance.now();
  scheduler.changed(['Bench note', `$:/ai/messages/Bench chat 1/00000${r % 10}`]);
  const n = performance.now() - t0;
  t0 = performance.now();
  scheduler.sync();
  const l = performance.now() - t0;
  if (r >= 5) {
    change.push(c);
    noted.push(n);
    look.push(l);
  }
}
scheduler.stop();
console.log(`Scheduler on ${COUNT} tiddlers + 200 schedules (100 chats) + 5 heartbeat agents (50 opted-in chats), Node ${process.version}, median of ${REPS}`);
console.log('| what | ms |');
console.log('|---|---|');
console.log(`| first look (every next run worked out and written) | ${fmt(first)} |`);
console.log(`| a change of a note and a message: the scheduler's part | ${fmt(median(noted))} |`);
console.log(`| one look at everything, nothing due (a schedule changed, a timer fired) | ${fmt(median(look))} |`);
console.log(`| TiddlyWiki addTiddler of one note (for scale) | ${fmt(median(change))} |`);
console.log(`wake-ups: ${wakes} (expected 0: nothing was due)`);
process.exit(0);
