// `npm start`: serve the demo wiki with the Node.js server edition on 127.0.0.1:8080 (PORT
// overrides), plus the mock LLM (a scripted test double, not a real model) on 127.0.0.1:8765
// so the demo chat works offline. MOCK_LLM=0 skips the mock. The wiki folder is the repo root
// (WIKI_DIR overrides): it includes wiki/ read-only, so everything saved from the browser,
// including edits of the shipped demo tiddlers, goes to its own git-ignored tiddlers/ folder,
// which loads last on every start.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.PORT || '8080';
const host = process.env.HOST || '127.0.0.1';
const wikiDir = path.resolve(process.env.WIKI_DIR || ROOT);

let mock;
if (process.env.MOCK_LLM !== '0') {
  const { startMockLlm } = require('./mock-llm.cjs');
  const mockPort = Number(process.env.MOCK_LLM_PORT || 8765);
  try {
    mock = await startMockLlm({ port: mockPort, host: '127.0.0.1' });
    console.log(`Mock LLM (scripted test double, not a real model) on ${mock.url}: used by the demo chat only`);
  } catch (e) {
    console.warn(`Mock LLM not started (${e.code || e.message}); the demo chat needs it on port ${mockPort}`);
  }
}

const tiddlywiki = path.join(path.dirname(require.resolve('tiddlywiki/package.json')), 'tiddlywiki.js');
const server = spawn(
  process.execPath,
  [tiddlywiki, '+plugins/tiddlywiki/filesystem', '+plugins/tiddlywiki/tiddlyweb', wikiDir, '--listen', `port=${port}`, `host=${host}`],
  { stdio: 'inherit', cwd: wikiDir },
);
const shutdown = () => {
  server.kill('SIGTERM');
  mock?.close();
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
server.on('exit', (code) => {
  mock?.close();
  process.exit(code ?? 0);
});
