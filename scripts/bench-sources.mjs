// The cost of "sources changed since" (issue 27 item 1) per wiki change, for a chat of 1,000 and
// of 10,000 messages. Boots TiddlyWiki in-process with the repo root (the built plugins), makes
// a chat whose every other message is a reply recording three sources (one cited) out of 200
// notes, renders it with the <$ai-chat> widget (TiddlyWiki's fake DOM, its usual window of the
// newest messages), then times the widget's refresh for a wiki change of (a) a note cited by
// replies all through the chat, (b) a note no reply records, each the median of BENCH_REPS
// changes, and counts the replies compared per change. The check should be flat: only shown
// replies whose sources the change touched are compared (ui/source-watch.ts).
// Run `node scripts/build.mjs` first. Env: BENCH_SIZES (1000,10000), BENCH_REPS (200).
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZES = (process.env.BENCH_SIZES || '1000,10000').split(',').map(Number);
const REPS = Number(process.env.BENCH_REPS || 200);
const NOTES = 200;
const M = '20260101000000000';

const $tw = require('tiddlywiki').TiddlyWiki();
$tw.boot.argv = [ROOT];
await new Promise((resolve) => $tw.boot.boot(resolve));
const lib = $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
const wiki = $tw.wiki;
for (let i = 0; i < NOTES; i++) wiki.addTiddler({ title: `Bench note ${i}`, text: `Note ${i}. `.repeat(40), created: M, modified: M });
wiki.addTiddler({ title: 'Bench unrelated', text: 'x', created: M, modified: M });
const fp = (title) => lib.fingerprint(wiki.getTiddler(title).getFieldStrings());

function makeChat(chat, count) {
  wiki.addTiddler({ title: chat, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' });
  for (let seq = 0; seq < count; seq++) {
    const base = { title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`, 'agent-chat': chat, 'agent-seq': String(seq) };
    if (seq % 2 === 0) {
      wiki.addTiddler({ ...base, role: 'user', type: 'text/plain', text: `Question ${seq}` });
      continue;
    }
    const picks = [seq % NOTES, (seq * 7) % NOTES, (seq * 13) % NOTES].map((i) => `Bench note ${i}`);
    const sources = [...new Set(picks)].map((title, i) => ({ title, modified: M, fingerprint: fp(title), cited: i === 0 }));
    wiki.addTiddler({
      ...base,
      role: 'assistant',
      type: 'text/vnd.tiddlyagent.reply',
      text: `Answer, see [[${picks[0]}]].`,
      'agent-sources': JSON.stringify(sources),
    });
  }
}

function render(chat) {
  const parser = wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
  const widget = wiki.makeWidget(parser, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return { widget, container };
}

/** Write a tiddler, then time the widget's refresh for that change alone. */
function timedChange(widget, fields) {
  return new Promise((resolve) => {
    const listener = (changes) => {
      wiki.removeEventListener('change', listener);
      const start = performance.now();
      widget.refresh(changes);
      resolve(performance.now() - start);
    };
    wiki.addEventListener('change', listener);
    wiki.addTiddler(fields);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The replies showing the line: its element without the `hidden` attribute.
const stale = (container) => (container.outerHTML.match(/class="tc-ai-sources-changed"(?![^>]*hidden)/g) ?? []).length;

console.log(`Staleness check per wiki change (median of ${REPS} changes; the widget's whole refresh, ms)`);
console.log('messages | replies | shown | change of a cited note | unrelated change | shown replies marked');
for (const size of SIZES) {
  const chat = `Bench sources chat ${size}`;
  makeChat(chat, size);
  const { widget, container } = render(chat);
  // The note the newest reply cites: recorded all through the chat, every 200 messages or so.
  const cited = `Bench note ${(size - 1) % NOTES}`;
  let marked = 0;
  const citedTimes = [];
  const otherTimes = [];
  for (let r = 0; r < REPS; r++) {
    citedTimes.push(await timedChange(widget, { title: cited, text: `Edited ${r}`, created: M, modified: M }));
    if (r === 0) marked = stale(container);
    otherTimes.push(await timedChange(widget, { title: 'Bench unrelated', text: `Edited ${r}`, created: M, modified: M }));
  }
  const shown = container.outerHTML.split('data-message=').length - 1;
  console.log(
    `${String(size).padStart(8)} | ${String(size / 2).padStart(7)} | ${String(shown).padStart(5)} | ${median(citedTimes).toFixed(3).padStart(22)} | ${median(otherTimes).toFixed(3).padStart(16)} | ${marked}`,
  );
  wiki.addTiddler({ title: cited, text: `Note ${(size - 1) % NOTES}. `.repeat(40), created: M, modified: M });
}
