// The manual's screenshots as committed: every image a manual tiddler shows from files/manual/
// is there, is a PNG of a plausible size, and is taken by an e2e test (so `npm run shots`
// refreshes it); nothing else lies in files/manual/. Whether one is stale is for those e2e
// tests (demo-tour, provider-setup), which compare the committed size with the one they take.
import fs from 'node:fs';
import path from 'node:path';
import { MANUAL_DIR, pngSize } from '../helpers/manual-shots';
import { ROOT } from '../helpers/tw';

const TIDDLERS = path.join(ROOT, 'wiki', 'tiddlers');
const E2E = path.join(ROOT, 'test', 'e2e');

/** Image name → the tiddlers that show it. */
function referenced(): Map<string, string[]> {
  const images = new Map<string, string[]>();
  for (const file of fs.readdirSync(TIDDLERS).filter((f) => f.endsWith('.tid'))) {
    for (const [, name] of fs.readFileSync(path.join(TIDDLERS, file), 'utf8').matchAll(/files\/manual\/([^\]|\s"']+)/g)) {
      images.set(name!, [...(images.get(name!) ?? []), file]);
    }
  }
  return images;
}

const images = referenced();
const e2eSources = fs
  .readdirSync(E2E)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => fs.readFileSync(path.join(E2E, f), 'utf8'))
  .join('\n');

test('the manual shows screenshots from files/manual/', () => {
  expect(images.size).toBeGreaterThanOrEqual(5);
});

test.each([...images.keys()])('%s is there, a PNG of a plausible size', (name) => {
  const file = path.join(MANUAL_DIR, name);
  expect(fs.existsSync(file)).toBe(true);
  const bytes = fs.readFileSync(file);
  expect(bytes.length).toBeGreaterThan(10_000);
  expect(bytes.length).toBeLessThan(2_000_000);
  const size = pngSize(bytes);
  expect(size).toBeDefined();
  // A tiddler's frame or more, from the 360 px narrow screen up to the 1280 px desktop.
  expect(size!.width).toBeGreaterThanOrEqual(300);
  expect(size!.width).toBeLessThanOrEqual(1280);
  expect(size!.height).toBeGreaterThanOrEqual(200);
  expect(size!.height).toBeLessThanOrEqual(6000);
});

test.each([...images.keys()])('%s is taken by an e2e test', (name) => {
  expect(e2eSources).toContain(`'${name}'`);
});

test('files/manual/ holds only what the manual shows', () => {
  expect(fs.readdirSync(MANUAL_DIR).sort()).toEqual([...images.keys()].sort());
});
