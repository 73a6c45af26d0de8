// DESIGN 8: TiddlyWiki's own core test suite (editions/test, ~1,500 jasmine specs) keeps
// passing with the TiddlyAgent plugin loaded.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/tw';

jest.setTimeout(120_000);

test('the core test suite passes with the agent plugin loaded', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-core-'));
  fs.mkdirSync(path.join(dir, 'plugins', 'tiddlyagent'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'plugins', 'agent'), path.join(dir, 'plugins', 'tiddlyagent', 'agent'));
  const tiddlywiki = path.join(ROOT, 'node_modules', 'tiddlywiki');
  const run = spawnSync(
    process.execPath,
    [
      path.join(tiddlywiki, 'tiddlywiki.js'),
      '+plugins/tiddlyagent/agent',
      path.join(tiddlywiki, 'editions', 'test'),
      '--output',
      path.join(dir, 'output'),
      '--build',
      'index',
    ],
    { env: { ...process.env, TIDDLYWIKI_PLUGIN_PATH: path.join(dir, 'plugins') }, encoding: 'utf8' },
  );
  const output = run.stdout + run.stderr;
  const html = fs.readFileSync(path.join(dir, 'output', 'test.html'), 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  expect(html).toContain('$:/plugins/tiddlyagent/agent/lib.js'); // the plugin really was loaded
  expect(output).toMatch(/\b\d{4,} specs, 0 failures/);
  expect(run.status).toBe(0);
});
