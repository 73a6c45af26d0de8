// The approval card's and the turn diff's cost (ui/change-view.ts): the changed places with
// context (changeRegions) and the whole text marked (diffText, built when Full text is clicked),
// for a note of 1 KB and of 100 KB, with a few edits or rewritten from end to end. The same code
// runs in the page in both editions; this measures it in Node's V8. Prints medians.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPS = Number(process.env.BENCH_REPS || 15);
const bundled = await build({ entryPoints: [path.join(ROOT, 'src/agent/tools/text-diff.ts')], bundle: true, write: false, format: 'esm', platform: 'neutral' });
const { changeRegions, diffText } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);

function note(paragraphs) {
  return Array.from({ length: paragraphs }, (_, i) => `Paragraph ${i}: ${'some words of a long note '.repeat(4)}`);
}
function median(fn) {
  const times = [];
  for (let i = 0; i < REPS + 2; i++) {
    const start = performance.now();
    fn();
    if (i >= 2) times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

console.log(`Change view diff (${REPS} reps, medians, Node ${process.version})`);
const rows = [];
for (const paragraphs of [9, 900]) {
  const lines = note(paragraphs);
  const before = lines.join('\n');
  const edited = [...lines];
  for (const i of [0, Math.floor(paragraphs / 2), paragraphs - 1]) edited[i] = `${edited[i]} (edited)`;
  const rewritten = lines.map((p, i) => `Line ${i * 7}: ${p.split('').reverse().join('')}`).join('\n');
  for (const [kind, after] of [
    ['3 edits', edited.join('\n')],
    ['rewritten', rewritten],
  ]) {
    const regions = median(() => changeRegions(before, after));
    const full = median(() => diffText(before, after));
    rows.push({ size: `${(before.length / 1024).toFixed(0)} KB`, kind, regions, full });
    console.log(
      `  ${`${(before.length / 1024).toFixed(1)} KB`.padStart(9)} ${kind.padEnd(10)} places with context ${regions.toFixed(2).padStart(7)} ms   full text marked ${full.toFixed(2).padStart(7)} ms`,
    );
  }
}
const small = rows.find((r) => r.size !== '100 KB' && r.kind === '3 edits');
const large = rows.filter((r) => r.kind === '3 edits').at(-1);
console.log(`  ratio 100 KB / 1 KB (3 edits, places): ${(large.regions / small.regions).toFixed(1)}x`);
