// The demo keeps a user's data across restarts: `npm start`'s own script serves a copy of the
// repo's wiki layout (tiddlywiki.info, the built plugins, wiki/); what a browser saves (a new
// chat, its messages, a created note, an edit of a shipped demo tiddler) lands in the
// git-ignored tiddlers/ folder and is all there after a restart, while the shipped files in
// wiki/ stay byte for byte as they were.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { servingUrl } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

jest.setTimeout(60_000);

let dir: string;
let server: { process: ChildProcess; url: string } | undefined;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-restart-'));
  fs.copyFileSync(path.join(ROOT, 'tiddlywiki.info'), path.join(dir, 'tiddlywiki.info'));
  fs.symlinkSync(path.join(ROOT, 'plugins'), path.join(dir, 'plugins'));
  fs.cpSync(path.join(ROOT, 'wiki'), path.join(dir, 'wiki'), { recursive: true });
});

afterAll(async () => {
  if (server) await stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `node scripts/start.mjs` as `npm start` runs it (without the mock LLM), on a free port. */
async function start(): Promise<void> {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
    env: { ...process.env, WIKI_DIR: dir, PORT: '0', MOCK_LLM: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await servingUrl(child);
  server = { process: child, url };
}

async function stop(): Promise<void> {
  const child = server!.process;
  server = undefined;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const tiddlerUrl = (title: string) => `${server!.url}/recipes/default/tiddlers/${encodeURIComponent(title)}`;

async function put(fields: Record<string, string>): Promise<void> {
  const response = await fetch(tiddlerUrl(fields.title!), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki' },
    body: JSON.stringify(fields),
  });
  expect(response.status).toBe(204);
}

async function get(title: string): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(tiddlerUrl(title));
  return response.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
}

/** Every file below `root`, relative, with its bytes. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.set(path.relative(root, file), fs.readFileSync(file).toString('base64'));
  }
  return out;
}

/** Bounded poll for a condition (the server's syncer writes files shortly after a save). */
async function until(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const CHAT = 'Restart chat';
const SAVED: Record<string, string>[] = [
  { title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed', text: '' },
  { title: `$:/ai/messages/${CHAT}/000001`, 'agent-chat': CHAT, 'agent-seq': '1', role: 'user', text: 'Please write a note' },
  { title: `$:/ai/messages/${CHAT}/000002`, 'agent-chat': CHAT, 'agent-seq': '2', role: 'assistant', text: "''Done''", type: 'text/vnd.tiddlyagent.reply' },
  { title: 'Note from the agent', text: 'Written in the demo', tags: 'Notes' },
];

test('a new chat, its messages, a created note and an edited demo tiddler survive a restart; wiki/ is never rewritten', async () => {
  const shipped = snapshot(path.join(ROOT, 'wiki'));
  await start();
  const demoChat = await get('Demo chat');
  expect(demoChat).toBeDefined();
  for (const fields of SAVED) await put(fields);
  const { fields: extra, revision: _revision, bag: _bag, ...standard } = demoChat as Record<string, unknown>;
  await put({ ...(extra as Record<string, string>), ...(standard as Record<string, string>), 'agent-status': 'completed', text: 'Edited in the demo' });
  const saved = path.join(dir, 'tiddlers');
  await until('the saved tiddlers on disk', () => fs.existsSync(saved) && fs.readdirSync(saved).filter((f) => f.endsWith('.tid')).length >= SAVED.length + 1);
  await stop();

  expect(snapshot(path.join(dir, 'wiki'))).toEqual(shipped);

  await start();
  for (const fields of SAVED) {
    const tiddler = await get(fields.title!);
    expect(tiddler).toBeDefined();
    for (const [name, value] of Object.entries(fields)) {
      if (name === 'tags') expect(tiddler!.tags).toBe(value);
      else if (['title', 'text', 'type'].includes(name)) expect(tiddler![name] ?? '').toBe(value);
      else expect((tiddler!.fields as Record<string, string>)[name]).toBe(value);
    }
  }
  const edited = await get('Demo chat');
  expect(edited!.text).toBe('Edited in the demo');
  expect((edited!.fields as Record<string, string>)['agent-status']).toBe('completed');
  // The page a browser loads carries them all in its tiddler store (messages are system tiddlers).
  const page = await (await fetch(`${server!.url}/`)).text();
  expect(SAVED.map((f) => f.title).filter((t) => !page.includes(JSON.stringify(t)))).toEqual([]);
  await stop();
  expect(snapshot(path.join(dir, 'wiki'))).toEqual(shipped);
});
