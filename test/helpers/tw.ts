// Boot a real TiddlyWiki in this process from the repo's wiki layout (the built plugins in
// plugins/ and the demo tiddlers in wiki/), without the root's tiddlers/ folder: what a
// developer saved while trying the demo must not change test results. Boot once per test
// file: about 200 ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export type TW = any;

/** A folder with the repo's tiddlywiki.info and links to its plugins/ and wiki/, one per process (three small entries, left in the temp folder). */
function wikiLayout(): string {
  const layout = path.join(os.tmpdir(), `tiddlyagent-test-wiki-${process.pid}`);
  if (fs.existsSync(path.join(layout, 'wiki'))) return layout;
  // Left half-made by an earlier process with the same pid: start again.
  fs.rmSync(layout, { recursive: true, force: true });
  fs.mkdirSync(layout, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'tiddlywiki.info'), path.join(layout, 'tiddlywiki.info'));
  fs.symlinkSync(path.join(ROOT, 'plugins'), path.join(layout, 'plugins'));
  fs.symlinkSync(path.join(ROOT, 'wiki'), path.join(layout, 'wiki'));
  return layout;
}

export async function bootWiki(preload: Record<string, unknown>[] = []): Promise<TW> {
  const $tw = require('tiddlywiki').TiddlyWiki();
  $tw.boot.argv = [wikiLayout()];
  $tw.preloadTiddlerArray(preload);
  await new Promise<void>((resolve) => $tw.boot.boot(resolve));
  return $tw;
}

/** The agent plugin's library module, as the booted wiki loaded it. */
export function agentLib($tw: TW) {
  return $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '') as typeof import('../../src/agent/lib');
}

/** Count writes per title while `fn` runs (the wiki's change events, batched per tick). */
export function recordChanges($tw: TW): { counts: Map<string, number>; stop(): void } {
  const counts = new Map<string, number>();
  const listener = (changes: Record<string, unknown>) => {
    for (const title of Object.keys(changes)) counts.set(title, (counts.get(title) ?? 0) + 1);
  };
  $tw.wiki.addEventListener('change', listener);
  return { counts, stop: () => $tw.wiki.removeEventListener('change', listener) };
}

/** A node of TiddlyWiki's fake DOM (Node.js). */
export type FakeNode = any;
/** A fake DOM node's classes. */
export const classes = (n: FakeNode): string[] => String(n.attributes?.class ?? n.className ?? '').split(/\s+/);

/** The nodes below `node` in TiddlyWiki's fake DOM (Node.js) that have the class `cls`, in document order. */
export function findAll(node: FakeNode, cls: string): FakeNode[] {
  const out: FakeNode[] = [];
  const walk = (n: FakeNode) => {
    if (classes(n).includes(cls)) out.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  walk(node);
  return out;
}

/** The first of findAll, or undefined. */
export const find = (node: FakeNode, cls: string): FakeNode => findAll(node, cls)[0];
