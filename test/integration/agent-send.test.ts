// The headless command: `tiddlywiki <wiki> --agent-send "<chat>" "<message>"` runs one turn to
// completion without a server, saves the tiddlers, prints the reply, and its exit code says
// whether the turn completed. A real TiddlyWiki process on a copy of the demo wiki, with the
// filesystem plugin, talking to the mock LLM on loopback.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { demoWikiFolder, type MockLlm } from '../helpers/e2e';
import { ROOT } from '../helpers/tw';

const { startMockLlm, defaultReply } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

let mock: MockLlm;
let dir: string;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = demoWikiFolder(mock.url, { server: true });
});

afterAll(async () => {
  await mock.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function agentSend(chat: string, message: string, folder = dir, after: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js'), folder, '--agent-send', chat, message, ...after], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  }); // jest's process.env, with the tests' owner configuration
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Every saved tiddler file's text, to find what the turn wrote. */
const savedText = () =>
  fs
    .readdirSync(path.join(dir, 'tiddlers'))
    .map((f) => fs.readFileSync(path.join(dir, 'tiddlers', f), 'utf8'))
    .join('\n');

test('a turn runs to completion, its reply is printed and its messages are saved; exit code 0', async () => {
  const { code, stdout } = await agentSend('Demo chat', 'Hello from cron');
  expect(stdout).toContain(defaultReply('Hello from cron'));
  expect(code).toBe(0);
  // It says what it saved: the chat, the question and the reply at least.
  expect(Number(/\(Saved (\d+) changed tiddlers\.\)/.exec(stdout)?.[1])).toBeGreaterThanOrEqual(3);
  const files = savedText();
  expect(files).toContain('Hello from cron');
  expect(files).toContain("''Mock reply'' from the offline test model");
  expect(files).toMatch(/agent-status: completed/);
});

test('a first turn in a chat with a default title prints the reply and the title the chat got', async () => {
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Chat.tid'), 'title: Chat\nagent: $:/demo/agents/offline-demo\nagent-status: idle\n\n');
  const { code, stdout } = await agentSend('Chat', 'Plan my garden beds');
  expect(code).toBe(0);
  expect(stdout).toContain(defaultReply('Plan my garden beds'));
  expect(stdout).toMatch(/The chat "Chat" is now titled "[^"]+"/);
});

test('a failed turn, a turn that waits for the user and a missing chat exit non-zero with the reason', async () => {
  const failed = await agentSend('Demo chat', 'mock:401');
  expect(failed.code).not.toBe(0);
  expect(failed.stderr + failed.stdout).toMatch(/agent-send "Demo chat": .*(401|API key)/i);

  const waiting = await agentSend('Demo chat', 'mock:tool=wiki-create {"title":"Headless note","text":"x"}');
  expect(waiting.code).not.toBe(0);
  expect(waiting.stderr + waiting.stdout).toContain('the turn waits for the user');

  const missing = await agentSend('No such chat', 'Hello');
  expect(missing.code).not.toBe(0);
  expect(missing.stderr + missing.stdout).toContain('The chat "No such chat" does not exist.');
  const notChat = await agentSend('Welcome to TiddlyAgent', 'Hello');
  expect(notChat.code).not.toBe(0);
  expect(notChat.stderr + notChat.stdout).toContain('is not a chat');
  // Nothing reached the model for those two.
  expect(
    mock.requests.map((r: { body?: { messages?: { content?: string }[] } }) => JSON.stringify(r.body ?? '')).filter((b: string) => b.includes('"Hello"')),
  ).toEqual([]);
});

test('with the server plugin installed (a server-edition folder), the command still runs the turn itself: exit 0, reply printed and saved, and no server state (no recovery, no operation log)', async () => {
  const serverDir = demoWikiFolder(mock.url, { server: true, edition: 'server' });
  try {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js'), serverDir, '--agent-send', 'Demo chat', 'Hello from a server folder'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
    ); // jest's process.env, with the tests' owner configuration
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.resume();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(stdout).toContain(defaultReply('Hello from a server folder'));
    expect(code).toBe(0);
    const saved = fs
      .readdirSync(path.join(serverDir, 'tiddlers'))
      .map((f) => fs.readFileSync(path.join(serverDir, 'tiddlers', f), 'utf8'))
      .join('\n');
    expect(saved).toContain('Hello from a server folder');
    expect(saved).toMatch(/agent-status: completed/);
    expect(fs.existsSync(path.join(serverDir, 'agent-state'))).toBe(false);
  } finally {
    fs.rmSync(serverDir, { recursive: true, force: true });
  }
});

test('in a folder without the filesystem plugin it says that nothing could be saved, and sends nothing unless a later command writes the wiki out', async () => {
  const bare = demoWikiFolder(mock.url, { server: false });
  const out = fs.mkdtempSync(path.join(bare, '..', 'agent-send-out-'));
  try {
    const asked = mock.requests.length;
    const refused = await agentSend('Demo chat', 'Hello from a bare folder', bare);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain('no sync adaptor (add "tiddlywiki/filesystem" to the plugins in its tiddlywiki.info)');
    expect(refused.stderr + refused.stdout).toContain('Nothing was sent.');
    expect(mock.requests.length).toBe(asked);

    // Followed by --savewikifolder, the turn runs and that command writes it out; the command says it saved nothing itself.
    const saved = await agentSend('Demo chat', 'Hello then save', bare, ['--savewikifolder', out]);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(defaultReply('Hello then save'));
    expect(saved.stderr).toContain('only a later command of this run can write them out');
    const written = fs
      .readdirSync(path.join(out, 'tiddlers'))
      .map((f) => fs.readFileSync(path.join(out, 'tiddlers', f), 'utf8'))
      .join('\n');
    expect(written).toContain('Hello then save');
  } finally {
    fs.rmSync(bare, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  }
});
