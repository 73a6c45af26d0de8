// The manual's screenshots: committed in files/manual/ (the manual tiddlers show them, the
// demo serves them at /files/manual/). The e2e tests that take them write them to
// output/manual/ (git-ignored), so `npm test` leaves the checkout as it was; `npm run shots`
// runs those tests with TIDDLYAGENT_SHOTS=1, which also copies each shot over the committed one.
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { ROOT } from './tw';

/** The committed screenshots. */
export const MANUAL_DIR = path.join(ROOT, 'files', 'manual');
/** Where each run puts the ones it takes. */
export const SHOTS_DIR = path.join(ROOT, 'output', 'manual');
/** Set by `npm run shots`: refresh the committed screenshots too. */
export const REFRESH = process.env.TIDDLYAGENT_SHOTS === '1';

/** The shots taken by this test file's run. */
const taken = new Set<string>();

/** Screenshot `target` as the manual's `name` (output/manual/; also files/manual/ with TIDDLYAGENT_SHOTS=1). */
export async function manualShot(target: Locator, name: string): Promise<void> {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const file = path.join(SHOTS_DIR, name);
  await target.screenshot({ path: file, animations: 'disabled' });
  if (REFRESH) fs.copyFileSync(file, path.join(MANUAL_DIR, name));
  taken.add(name);
}

/** Width and height from a PNG's header (its signature, then the IHDR chunk); undefined if it is no PNG. */
export function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(signature) || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * The committed screenshots among `names` that differ in size from the ones this run took (a
 * user would see the difference: the page grew, shrank or changed its layout), each as
 * "name: committed W×H, this run W×H"; a shot this run did not take is listed too.
 */
export function staleShots(names: string[]): string[] {
  const size = (dir: string, name: string) => {
    const file = path.join(dir, name);
    const s = fs.existsSync(file) ? pngSize(fs.readFileSync(file)) : undefined;
    return s ? `${s.width}×${s.height}` : 'none';
  };
  return names.flatMap((name) => {
    if (!taken.has(name)) return [`${name}: not taken by this run`];
    const [committed, now] = [size(MANUAL_DIR, name), size(SHOTS_DIR, name)];
    return committed === now ? [] : [`${name}: committed ${committed}, this run ${now} (npm run shots refreshes it)`];
  });
}
