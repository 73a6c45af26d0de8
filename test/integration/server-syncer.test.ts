// The server edition's syncer looks only at the tiddlers that changed (src/server/durable/
// syncer-changes.ts): what TiddlyWiki's own syncer saves and deletes (a page's PUT and DELETE
// over /recipes, not the agent's writes) still reaches the tiddler files, including a tiddler
// written, changed and deleted in a row, and one deleted that was loaded from disk at start.
import fs from 'node:fs';
import path from 'node:path';
import { putTiddler, serverWikiFolder, startMockLlm, startServer, tiddlerFiles, until, WRITE_HEADERS, type MockLlm, type TwServer } from '../helpers/server';

jest.setTimeout(60_000);

let mock: MockLlm;
let server: TwServer;
let dir: string;

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
  dir = serverWikiFolder(mock.url);
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Loaded at start.tid'), 'title: Loaded at start\n\nFrom disk.');
  server = await startServer(dir);
});
afterAll(async () => {
  await server.stop();
  await mock.close();
});

const onDisk = (title: string) => tiddlerFiles(dir).tiddlers.get(title);
const remove = (title: string) => fetch(`${server.url}/bags/default/tiddlers/${encodeURIComponent(title)}`, { method: 'DELETE', headers: WRITE_HEADERS });

test('a page PUT is saved, a second PUT saves the new text, and a DELETE removes the file', async () => {
  expect(await putTiddler(server.url, { title: 'Synced note', text: 'first' })).toBeLessThan(300);
  await until('the first text on disk', () => onDisk('Synced note')?.text === 'first');
  expect(await putTiddler(server.url, { title: 'Synced note', text: 'second' })).toBeLessThan(300);
  await until('the second text on disk', () => onDisk('Synced note')?.text === 'second');
  expect((await remove('Synced note')).status).toBeLessThan(300);
  await until('the file gone', () => onDisk('Synced note') === undefined);
});

test('a tiddler loaded from disk at start and deleted over HTTP loses its file', async () => {
  expect(onDisk('Loaded at start')?.text).toBe('From disk.');
  expect((await remove('Loaded at start')).status).toBeLessThan(300);
  await until('the file gone', () => onDisk('Loaded at start') === undefined);
});
