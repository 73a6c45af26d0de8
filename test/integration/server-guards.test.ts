// Guards of the server edition. A browser's save of a chat tiddler never undoes what the server's runner wrote: its copy
// can be a second old (the syncer's throttle), so a PUT that crossed a finished turn carries
// `agent-status: working`; the server keeps its own status, usage and allowed tools, and takes
// the user's own changes (the agent, the text). The path prefix of a server is honoured. A
// hostile model naming a tiddler like a path cannot write outside tiddlers/ or over agent-state/.
import fs from 'node:fs';
import path from 'node:path';
import { serverWikiFolder, startMockLlm, startServer, WRITE_HEADERS as HEADERS, type MockLlm, type TwServer } from '../helpers/server';

jest.setTimeout(60_000);

let mock: MockLlm;
let dir: string;
let server: TwServer;
let url: string;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  dir = serverWikiFolder(mock.url);
  server = await startServer(dir, ['path-prefix=/wiki']);
  url = `${server.url.replace(/\/wiki$/, '')}/wiki`;
});

afterAll(async () => {
  await server.stop();
  await mock.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function getChat(): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent('Demo chat')}`);
  return (await res.json()) as Record<string, unknown>;
}

async function settled(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const fields = ((await getChat()).fields ?? {}) as Record<string, string>;
    if (fields['agent-status'] === 'completed') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the turn did not complete');
}

test('the routes answer under the server path prefix, and the page is marked with it', async () => {
  const html = await (await fetch(`${url}/`)).text();
  expect(/<meta name="tiddlyagent-server" content="%2Fwiki%2F [a-z0-9]+-\d+">/.test(html)).toBe(true);
  const res = await fetch(`${url}/agent/send`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ chat: 'Demo chat', text: 'Hello' }) });
  expect(res.status).toBe(202);
  await settled();
});

test("a stale PUT of a chat keeps the runner's fields and takes the user's", async () => {
  const before = await getChat();
  const fields = before.fields as Record<string, string>;
  expect(fields['agent-status']).toBe('completed');
  expect(fields['agent-context-usage']).toBeTruthy();
  // The browser's copy from mid-turn, with the user's change of text.
  const stale = {
    ...before,
    text: 'My notes on this chat',
    fields: { ...fields, 'agent-status': 'working', 'agent-context-usage': '{"total":1}', 'agent-allowed-tools': 'wiki-delete' },
  };
  const put = await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent('Demo chat')}`, {
    method: 'PUT',
    headers: HEADERS,
    body: JSON.stringify(stale),
  });
  expect(put.status).toBe(204);
  const after = await getChat();
  const afterFields = after.fields as Record<string, string>;
  expect(after.text).toBe('My notes on this chat');
  expect(afterFields['agent-status']).toBe('completed');
  expect(afterFields['agent-context-usage']).toBe(fields['agent-context-usage']);
  expect(afterFields['agent-allowed-tools']).toBeUndefined();
  // The chat is usable: the next turn starts from "completed".
  const res = await fetch(`${url}/agent/send`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ chat: 'Demo chat', text: 'Again' }) });
  expect(res.status).toBe(202);
  await settled();
});

test('a PUT of an ordinary tiddler is left as it is', async () => {
  const put = await fetch(`${url}/recipes/default/tiddlers/Plain`, {
    method: 'PUT',
    headers: HEADERS,
    body: JSON.stringify({ title: 'Plain', text: 'x', fields: { 'agent-status': 'working' } }),
  });
  expect(put.status).toBe(204);
  const got = (await (await fetch(`${url}/recipes/default/tiddlers/Plain`)).json()) as { fields: Record<string, string> };
  expect(got.fields['agent-status']).toBe('working');
});

test('a model that names a tiddler like a path cannot write outside tiddlers/ nor over the operation log', async () => {
  const before = fs.readFileSync(path.join(dir, 'agent-state', 'operations.jsonl'), 'utf8');
  for (const title of ['../agent-state/operations.jsonl', '../../escaped']) {
    const res = await fetch(`${url}/agent/send`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ chat: 'Demo chat', text: `mock:tool=wiki-create ${JSON.stringify({ title, text: '{"id":"forged","status":"queued"}' })}` }),
    });
    expect(res.status).toBe(202);
    // The call waits for approval: its message is on disk (the runner's writes are durable before anyone hears of them).
    let pending: string | undefined;
    for (let i = 0; i < 500 && !pending; i++) {
      const metas = fs.readdirSync(path.join(dir, 'tiddlers')).filter((f) => f.startsWith('$__ai_messages_Demo chat_') && f.endsWith('.meta'));
      pending = metas
        .map((f) => fs.readFileSync(path.join(dir, 'tiddlers', f), 'utf8'))
        .filter((m) => /^tool-status: pending$/m.test(m))
        .map((m) => /^title: (.*)$/m.exec(m)![1])[0];
      if (!pending) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pending).toBeTruthy();
    const decided = await fetch(`${url}/agent/decide`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ chat: 'Demo chat', message: pending, choice: 'once' }),
    });
    expect(decided.status).toBe(202);
    await settled();
  }
  // The log holds only real operations; nothing landed outside the wiki's tiddlers/ folder.
  const after = fs.readFileSync(path.join(dir, 'agent-state', 'operations.jsonl'), 'utf8');
  expect(after.startsWith(before)).toBe(true);
  const ids = after
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: string }).id);
  expect(ids).not.toContain('forged');
  expect(fs.readdirSync(dir).sort()).toEqual(['agent-state', 'plugins', 'tiddlers', 'tiddlywiki.info']);
  expect(fs.existsSync(path.join(dir, '..', 'escaped'))).toBe(false);
  // (Beside the log: the text index, agent-state/text-index.bin, once built.)
  expect(fs.readdirSync(path.join(dir, 'agent-state')).filter((f) => f !== 'text-index.bin')).toEqual(['operations.jsonl']);
  const created = (await (await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent('../../escaped')}`)).json()) as { text: string };
  expect(created.text).toContain('forged');
});
