// Boot a real TiddlyWiki in this process from the repo root wiki folder (the built plugins
// in plugins/ and the demo tiddlers in wiki/). Boot once per test file: about 200 ms.
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export type TW = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function bootWiki(preload: Record<string, unknown>[] = []): Promise<TW> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const $tw = require('tiddlywiki').TiddlyWiki();
  $tw.boot.argv = [ROOT];
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
