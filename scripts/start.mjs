// `npm start`: serve the demo wiki with the Node.js server edition on 127.0.0.1:8080 (PORT
// overrides), plus the mock LLM (a scripted test double, not a real model) on 127.0.0.1:8765
// (MOCK_LLM_PORT overrides; a free port when it is taken) so the demo chat works offline, the
// demo provider following it. MOCK_LLM=0 skips the mock. The wiki folder is the repo root
// (WIKI_DIR overrides): it includes wiki/ read-only, so everything saved from the browser,
// including edits of the shipped demo tiddlers, goes to its own git-ignored tiddlers/ folder,
// which loads last on every start.
// npm start is the demo's owner: it starts the server with a TiddlyAgent configuration
// (TIDDLYAGENT_CONFIG, see the manual's "Who may do what") that adds to yours what the demo
// needs: the mock's address, and the demo's stdio MCP server (the MCP project's test server).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.PORT || '8080';
const host = process.env.HOST || '127.0.0.1';
const wikiDir = path.resolve(process.env.WIKI_DIR || ROOT);
/** The port the shipped demo provider (wiki/tiddlers/$__demo_providers_mock-llm.tid) calls. */
const DEMO_MOCK_PORT = 8765;

let mock;
if (process.env.MOCK_LLM !== '0') {
  const { startMockLlm } = require('./mock-llm.cjs');
  const wanted = Number(process.env.MOCK_LLM_PORT || DEMO_MOCK_PORT);
  try {
    mock = await startMockLlm({ port: wanted, host: '127.0.0.1' }).catch((e) => {
      if (e.code !== 'EADDRINUSE') throw e;
      console.warn(`Port ${wanted} is taken; the mock LLM takes a free port instead`);
      return startMockLlm({ port: 0, host: '127.0.0.1' });
    });
    console.log(`Mock LLM (scripted test double, not a real model) on ${mock.url}: used by the demo chat only`);
    pointDemoProviderAt(mock.url);
  } catch (e) {
    console.warn(`Mock LLM not started (${e.code || e.message}); the demo chat needs it`);
  }
}

/**
 * The demo provider ships calling the mock on DEMO_MOCK_PORT. When the mock runs elsewhere
 * (MOCK_LLM_PORT, or that port was taken), the demo's copy in the user's tiddlers/ folder
 * (where the browser saves, loaded last) gets the mock's URL, so the demo chat still works;
 * a copy pointing away from loopback is the user's own choice and stays as it is.
 */
function pointDemoProviderAt(url) {
  const file = '$__demo_providers_mock-llm.tid';
  const shipped = path.join(wikiDir, 'wiki', 'tiddlers', file);
  const saved = path.join(wikiDir, 'tiddlers', file);
  const source = fs.existsSync(saved) ? saved : shipped;
  if (!fs.existsSync(source)) return;
  const text = fs.readFileSync(source, 'utf8');
  const current = /^base-url:[ \t]*(.*)$/m.exec(text)?.[1].trim();
  if (current === url || (current && !/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(current))) return;
  fs.mkdirSync(path.dirname(saved), { recursive: true });
  fs.writeFileSync(saved, text.replace(/^base-url:.*$/m, `base-url: ${url}`));
  console.log(`The demo provider now calls the mock at ${url} (saved in tiddlers/${file})`);
}

/** The owner's configuration (TIDDLYAGENT_CONFIG: a file or JSON) with what the demo needs added. */
function demoConfig() {
  const given = process.env.TIDDLYAGENT_CONFIG?.trim();
  const config = !given ? {} : given.startsWith('{') ? JSON.parse(given) : JSON.parse(fs.readFileSync(given, 'utf8'));
  if (mock) config.allowHosts = [...(config.allowHosts ?? []), new URL(mock.url).host];
  const everything = { command: 'node', args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'] };
  config.mcpCommands = [...(config.mcpCommands ?? []), everything];
  return JSON.stringify(config);
}

const tiddlywiki = path.join(path.dirname(require.resolve('tiddlywiki/package.json')), 'tiddlywiki.js');
const server = spawn(
  process.execPath,
  [tiddlywiki, '+plugins/tiddlywiki/filesystem', '+plugins/tiddlywiki/tiddlyweb', wikiDir, '--listen', `port=${port}`, `host=${host}`],
  { stdio: 'inherit', cwd: wikiDir, env: { ...process.env, TIDDLYAGENT_CONFIG: demoConfig() } },
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
