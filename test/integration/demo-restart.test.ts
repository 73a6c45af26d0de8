// The demo keeps a user's data across restarts: `npm start`'s own script (scripts/start.mjs)
// serves a copy of the repo's wiki layout (tiddlywiki.info, the built plugins, wiki/); what a
// browser saves through the server's HTTP API (a new chat, its messages, a created note, the
// story list, an edit of a shipped demo tiddler) lands in the git-ignored tiddlers/ folder and
// is all there after a restart, while the shipped files in wiki/ stay byte for byte as they
// were. Deleting tiddlers/ resets the demo.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { servingUrl } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

jest.setTimeout(60_000);

let dir: string;
let server: { process: ChildProcess; url: string; output: () => string } | undefined;

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

/** `node scripts/start.mjs` as `npm start` runs it (without the mock LLM unless `env` asks), on a free port. */
async function start(env: Record<string, string> = { MOCK_LLM: '0' }): Promise<void> {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
    env: { ...process.env, WIKI_DIR: dir, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await servingUrl(child);
  server = { process: child, url, output: () => output };
}

/** SIGTERM to the start script (which stops the TiddlyWiki server) and wait for it to exit. */
async function stop(): Promise<void> {
  const child = server!.process;
  server = undefined;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

type Fields = Record<string, string>;
const STANDARD = new Set(['title', 'text', 'type', 'tags', 'created', 'modified', 'creator', 'modifier', 'revision', 'bag', 'permissions', 'recipe']);

const tiddlerUrl = (title: string) => `${server!.url}/recipes/default/tiddlers/${encodeURIComponent(title)}`;

/** PUT a tiddler the way the browser's syncer does (tiddlyweb format: custom fields under `fields`). */
async function put(fields: Fields): Promise<void> {
  const body: Record<string, unknown> = { fields: {} };
  for (const [name, value] of Object.entries(fields)) {
    if (STANDARD.has(name)) body[name] = value;
    else (body.fields as Fields)[name] = value;
  }
  const response = await fetch(tiddlerUrl(fields.title!), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(204);
}

/** GET one tiddler, flattened back to title → value (custom fields pulled up from `fields`). */
async function get(title: string): Promise<Fields | undefined> {
  const response = await fetch(tiddlerUrl(title));
  if (response.status === 404) return undefined;
  expect(response.status).toBe(200);
  const { fields, ...standard } = (await response.json()) as Record<string, unknown>;
  return { ...(standard as Fields), ...(fields as Fields) };
}

/** The skinny list (no text) of /recipes/default/tiddlers.json, by title. */
async function list(): Promise<Map<string, Fields>> {
  const response = await fetch(`${server!.url}/recipes/default/tiddlers.json`);
  expect(response.status).toBe(200);
  const tiddlers = (await response.json()) as Fields[];
  return new Map(tiddlers.map((t) => [t.title!, t]));
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

/** `name: value` lines up to the first blank line; the rest is the text. */
function parseTid(content: string): Fields {
  const split = content.indexOf('\n\n');
  const header = split === -1 ? content : content.slice(0, split);
  const fields: Fields = {};
  for (const line of header.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 2);
  }
  fields.text = split === -1 ? '' : content.slice(split + 2);
  return fields;
}

/** The tiddlers saved as files in `root` (.tid, or a content file with its .meta), by title. */
function savedFiles(root: string): Map<string, { files: string[]; fields: Fields }> {
  const out = new Map<string, { files: string[]; fields: Fields }>();
  if (!fs.existsSync(root)) return out;
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    try {
      if (file.endsWith('.tid')) {
        const fields = parseTid(fs.readFileSync(file, 'utf8'));
        out.set(fields.title!, { files: [file], fields });
      } else if (file.endsWith('.meta')) {
        const content = file.slice(0, -'.meta'.length);
        const fields: Fields = { ...parseTid(fs.readFileSync(file, 'utf8')), text: fs.readFileSync(content, 'utf8') };
        out.set(fields.title!, { files: [file, content], fields });
      }
    } catch {
      // a file being written right now; the next poll reads it again
    }
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
const SAVED: Fields[] = [
  { title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed', text: '' },
  { title: `$:/ai/messages/${CHAT}/000001`, 'agent-chat': CHAT, 'agent-seq': '1', role: 'user', type: 'text/plain', text: 'Please write a note' },
  { title: `$:/ai/messages/${CHAT}/000002`, 'agent-chat': CHAT, 'agent-seq': '2', role: 'assistant', type: 'text/vnd.tiddlyagent.reply', text: "''Done''" },
  { title: 'Note from the agent', text: 'Written in the demo', tags: 'Notes' },
];
// The browser saves its story list too: it lands in tiddlers/ like everything else, and every
// boot (server and browser) resets it to $:/DefaultTiddlers, so a stale one does no harm.
const STORY: Fields = { title: '$:/StoryList', list: `[[${CHAT}]] [[Note from the agent]]`, text: '' };

const matches = (actual: Fields | undefined, expected: Fields) =>
  actual !== undefined && Object.entries(expected).every(([name, value]) => (actual[name] ?? '') === value);

test('a new chat, its messages, a created note and an edited demo tiddler survive a restart in tiddlers/; wiki/ is never rewritten; deleting tiddlers/ resets the demo', async () => {
  const shipped = snapshot(path.join(ROOT, 'wiki'));
  const saved = path.join(dir, 'tiddlers');

  await start();
  const shippedDemoChat = (await get('Demo chat'))!;
  expect(shippedDemoChat.agent).toBe('$:/demo/agents/offline-demo');
  const defaultStory = (await get('$:/StoryList'))!.list;
  expect(defaultStory).toContain('Demo chat');
  for (const fields of [...SAVED, STORY]) await put(fields);
  const { revision: _revision, bag: _bag, ...demoChatFields } = shippedDemoChat;
  const EDITED: Fields = { ...demoChatFields, 'agent-status': 'idle', text: 'Edited in the demo' };
  await put(EDITED);
  // Deleting a shipped demo tiddler removes it from the running wiki only: there is no file of
  // the user's to delete, and wiki/ is never written, so it is back after a restart. (The
  // browser's syncer deletes through the bag.)
  const deleted = await fetch(`${server!.url}/bags/default/tiddlers/${encodeURIComponent('Welcome to TiddlyAgent')}`, {
    method: 'DELETE',
    headers: { 'X-Requested-With': 'TiddlyWiki' },
  });
  expect(deleted.status).toBe(204);
  expect(await get('Welcome to TiddlyAgent')).toBeUndefined();

  // Every save lands, with its fields, in the root wiki folder's own tiddlers/ folder.
  const expected = [...SAVED, EDITED];
  await until('the saved tiddlers in tiddlers/', () => {
    const files = savedFiles(saved);
    return [...expected, STORY].every((fields) => matches(files.get(fields.title!)?.fields, fields));
  });
  // ... which git ignores (asked of the repo's own .gitignore, for each file's path in the repo).
  const relative = [...savedFiles(saved).values()].flatMap((s) => s.files).map((f) => path.join('tiddlers', path.relative(saved, f)));
  expect(relative.length).toBeGreaterThan(expected.length);
  const check = spawnSync('git', ['check-ignore', '--no-index', ...relative], { cwd: ROOT, encoding: 'utf8' });
  expect(check.stdout.split('\n').filter(Boolean).sort()).toEqual([...relative].sort());
  expect(snapshot(path.join(dir, 'wiki'))).toEqual(shipped);
  await stop();

  await start();
  for (const fields of expected) {
    const tiddler = await get(fields.title!);
    expect(tiddler).toBeDefined();
    for (const [name, value] of Object.entries(fields)) expect([name, tiddler![name] ?? '']).toEqual([name, value]);
  }
  // The skinny list the browser's syncer polls holds the non-system ones with their fields, no
  // text (system tiddlers such as messages are not polled: they come with the page).
  const skinny = await list();
  for (const fields of expected.filter((f) => !f.title!.startsWith('$:/'))) {
    const listed = skinny.get(fields.title!);
    expect(listed).toBeDefined();
    expect(listed!.text).toBeUndefined();
    for (const [name, value] of Object.entries(fields)) if (name !== 'text') expect([name, listed![name] ?? '']).toEqual([name, value]);
  }
  // The page a browser loads carries them all in its tiddler store.
  const page = await (await fetch(`${server!.url}/`)).text();
  expect(expected.map((f) => f.title).filter((t) => !page.includes(JSON.stringify(t)))).toEqual([]);
  expect((await get('$:/StoryList'))!.list).toBe(defaultStory);
  expect(await get('Welcome to TiddlyAgent')).toBeDefined();
  await stop();
  expect(snapshot(path.join(dir, 'wiki'))).toEqual(shipped);

  // Reset: delete tiddlers/ and the demo is as shipped again.
  fs.rmSync(saved, { recursive: true });
  await start();
  const reset = await get('Demo chat');
  expect(reset!.text ?? '').toBe(shippedDemoChat.text ?? '');
  expect(reset!['agent-status']).toBe(shippedDemoChat['agent-status']);
  for (const fields of SAVED) expect(await get(fields.title!)).toBeUndefined();
  await stop();
  expect(snapshot(path.join(dir, 'wiki'))).toEqual(shipped);
});

test('when the mock LLM cannot have its port, it takes a free one and the demo provider follows it (saved in tiddlers/, wiki/ untouched)', async () => {
  const shipped = snapshot(path.join(ROOT, 'wiki'));
  const taken = http.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const takenPort = (taken.address() as { port: number }).port;
  try {
    await start({ MOCK_LLM_PORT: String(takenPort) });
    const provider = (await get('$:/demo/providers/mock-llm'))!;
    const mockUrl = /Mock LLM \(scripted test double, not a real model\) on (\S+):/.exec(server!.output())?.[1];
    expect(mockUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(mockUrl).not.toContain(`:${takenPort}/`);
    expect(provider['base-url']).toBe(mockUrl);
    // The demo chat's provider really reaches the mock there.
    const models = await fetch(`${provider['base-url']}/models`);
    expect(models.status).toBe(200);
    expect(JSON.stringify(await models.json())).toContain('mock-model');
    await stop();
    expect(snapshot(path.join(dir, 'wiki'))).toEqual(shipped);
  } finally {
    taken.close();
    if (server) await stop();
    fs.rmSync(path.join(dir, 'tiddlers'), { recursive: true, force: true });
  }
});
