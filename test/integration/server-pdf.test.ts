// The server edition reads a PDF dropped into the wiki folder (TiddlyWiki loads `Report.pdf`,
// with its .meta, as an application/pdf tiddler) in a real `tiddlywiki --listen`: the agent's
// wiki-read gets its pages with [page N] markers, the text extracted is kept in
// agent-state/pdf-text/ (under the PDF's SHA-256), and after a restart it is read back from there, not extracted again.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chatStatus, post, serverWikiFolder, startMockLlm, startServer, until, type MockLlm, type TwServer } from '../helpers/server';

const { makePdf } = require('../../scripts/make-pdf.cjs');

jest.setTimeout(90_000);

const CHAT = 'PDF chat';
let mock: MockLlm;
const servers: TwServer[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(async () => {
  await mock.close();
});

async function serve(dir: string): Promise<TwServer> {
  const server = await startServer(dir, [], { TIDDLYAGENT_CONFIG: JSON.stringify({ allowHosts: ['127.0.0.1'] }) });
  servers.push(server);
  return server;
}

/** A turn whose model calls wiki-read for `title`: the tool result the model got back. */
async function agentRead(server: TwServer, title: string): Promise<string> {
  mock.queue({ toolCalls: [{ name: 'wiki-read', arguments: { title } }] });
  mock.queue({ text: 'Read.' });
  const before = mock.requests.length;
  expect((await post(server.url, 'send', { chat: CHAT, text: `Read ${title}` })).status).toBe(202);
  await until('the turn to end', async () => mock.requests.length >= before + 2 && (await chatStatus(server.url, CHAT)) === 'completed');
  const sent = (mock.requests.slice(before) as { body?: { messages?: { role: string; content: unknown }[] } }[]).map((r) => r.body?.messages ?? []);
  const results = sent.flatMap((messages) => messages.filter((m) => m.role === 'tool'));
  return String(results.at(-1)?.content ?? '');
}

test('a PDF in the wiki folder is read page by page, its text kept in agent-state/pdf-text/ across a restart', async () => {
  const dir = serverWikiFolder(mock.url);
  fs.writeFileSync(path.join(dir, 'tiddlers', `${CHAT}.tid`), `title: ${CHAT}\nagent: $:/demo/agents/offline-demo\nagent-status: idle\n\n`);
  const pages = Array.from({ length: 8 }, (_, i) => (i === 6 ? 'The capybara census is on page seven.' : `Filler page ${i + 1}.`));
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Report.pdf'), makePdf(pages));
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Report.pdf.meta'), 'title: Report.pdf\ntype: application/pdf\n');
  let server = await serve(dir);
  const first = await agentRead(server, 'Report.pdf');
  expect(first).toContain('[page 7]\nThe capybara census is on page seven.');
  expect(first).toContain('[page 8]\nFiller page 8.');
  const kept = path.join(dir, 'agent-state', 'pdf-text');
  await until('the text to be kept', async () => fs.existsSync(kept) && fs.readdirSync(kept).some((f) => f.endsWith('.json')));
  const [file] = fs.readdirSync(kept).filter((f) => f.endsWith('.json'));
  // Kept under the SHA-256 of the PDF (its base64, as TiddlyWiki holds it) and its length: two PDFs cannot share a file.
  const base64 = fs.readFileSync(path.join(dir, 'tiddlers', 'Report.pdf')).toString('base64');
  expect(file).toBe(`${crypto.createHash('sha256').update(base64).digest('hex')}.${base64.length.toString(36)}.json`);
  expect(JSON.parse(fs.readFileSync(path.join(kept, file!), 'utf8')).pages[6]).toBe('The capybara census is on page seven.');
  await server.stop();
  servers.length = 0;
  // What is kept is what a restart reads: changed here, the agent sees the change (nothing extracted again).
  const changed = pages.map((page, i) => (i === 6 ? 'The kept text, read back.' : page));
  fs.writeFileSync(path.join(kept, file!), JSON.stringify({ pages: changed }));
  server = await serve(dir);
  const again = await agentRead(server, 'Report.pdf');
  expect(again).toContain('[page 7]\nThe kept text, read back.');
});

test("kept text of PDFs no longer in the wiki goes: another PDF's file at start, and a PDF's file when it is deleted", async () => {
  const dir = serverWikiFolder(mock.url);
  fs.writeFileSync(path.join(dir, 'tiddlers', `${CHAT}.tid`), `title: ${CHAT}\nagent: $:/demo/agents/offline-demo\nagent-status: idle\n\n`);
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Minutes.pdf'), makePdf(['The wombat committee met on a Tuesday.']));
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Minutes.pdf.meta'), 'title: Minutes.pdf\ntype: application/pdf\n');
  // Text kept for a PDF deleted while the server was down (its key is nobody's now).
  const kept = path.join(dir, 'agent-state', 'pdf-text');
  fs.mkdirSync(kept, { recursive: true });
  const orphan = path.join(kept, '1abc.2de.3f.json');
  fs.writeFileSync(orphan, JSON.stringify({ pages: ['A PDF long gone.'] }));
  const server = await serve(dir);
  expect(await agentRead(server, 'Minutes.pdf')).toContain('[page 1]\nThe wombat committee met on a Tuesday.');
  await until('the gone PDF’s text to be removed', () => !fs.existsSync(orphan));
  const files = () => fs.readdirSync(kept).filter((f) => f.endsWith('.json'));
  expect(files()).toHaveLength(1);
  const res = await fetch(`${server.url}/bags/default/tiddlers/${encodeURIComponent('Minutes.pdf')}`, {
    method: 'DELETE',
    headers: { 'X-Requested-With': 'TiddlyWiki' },
  });
  expect(res.status).toBeLessThan(300);
  await until('the deleted PDF’s text to be removed', () => files().length === 0);
});
