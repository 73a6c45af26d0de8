// The server edition keeps the semantic index in agent-state/vectors.bin beside the wiki (never
// a tiddler), and a restart goes on from it without embedding the unchanged tiddlers again.
import fs from 'node:fs';
import path from 'node:path';
import { serverWikiFolder, startMockLlm, startServer, until, type MockLlm, type TwServer } from '../helpers/server';

jest.setTimeout(30_000); // a server start and an index build: seconds on a loaded machine

let mock: MockLlm;
let dir: string;
let server: TwServer | undefined;

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
  dir = serverWikiFolder(mock.url);
  const tiddlers = path.join(dir, 'tiddlers');
  fs.mkdirSync(tiddlers, { recursive: true });
  const write = (name: string, fields: Record<string, string>, text = '') =>
    fs.writeFileSync(
      path.join(tiddlers, name),
      `${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n\n${text}`,
    );
  write('embed-profile.tid', {
    title: '$:/test/embed-profile',
    tags: '$:/tags/AI/Provider',
    api: 'openai-chat',
    'base-url': mock.url,
    models: 'mock-model',
    'embedding-model': 'mock-embed',
  });
  write('semantic-profile.tid', { title: '$:/config/tiddlyagent/semantic/profile' }, '$:/test/embed-profile');
  write('semantic-enabled.tid', { title: '$:/config/tiddlyagent/semantic/enabled' }, 'yes');
  write('Compost.tid', { title: 'Compost' }, 'Kitchen scraps and leaves.');
});
afterAll(async () => {
  await server?.stop();
  await mock.close();
});

const embedded = (): string[] =>
  mock.requests.filter((r: { path: string }) => r.path.endsWith('/embeddings')).flatMap((r: { body: { input: string[] } }) => r.body.input);
const file = () => path.join(dir, 'agent-state', 'vectors.bin');
function header(): { format: number; model: string; dims: number; tiddlers: [string, string, number][] } {
  const b = fs.readFileSync(file());
  return JSON.parse(b.subarray(8, 8 + b.readUInt32LE(4)).toString('utf8'));
}

test('the index is built on the server into agent-state/vectors.bin, and a restart embeds nothing unchanged', async () => {
  server = await startServer(dir);
  await until('the vector file', () => fs.existsSync(file()) && header().tiddlers.some(([t]) => t === 'Compost'));
  expect(header()).toMatchObject({ format: 1, model: 'mock-embed', dims: 64 });
  expect(embedded().some((t: string) => t.startsWith('Compost\n\nKitchen scraps'))).toBe(true);
  const html = await (await fetch(server.url)).text();
  // Nothing of the index reaches the page: not the fingerprint it keeps of the note it embedded
  // (the manual may name the file, so its name alone proves nothing).
  const [, fingerprint] = header().tiddlers.find(([t]) => t === 'Compost')!;
  expect(fingerprint.length).toBeGreaterThan(8);
  expect(html).not.toContain(fingerprint);
  expect(fs.readdirSync(path.join(dir, 'tiddlers')).some((f) => /semantic-index/.test(f))).toBe(false);
  // A page that connects now learns the indexer's progress at once (a $:/temp tiddler no page loads).
  const controller = new AbortController();
  const events = await fetch(`${server.url}/agent/events`, { headers: { Accept: 'text/event-stream' }, signal: controller.signal });
  const reader = events.body!.getReader();
  let first = '';
  while (!first.includes('semantic-index')) {
    const { value, done } = await reader.read();
    if (done) break;
    first += new TextDecoder().decode(value);
  }
  controller.abort();
  expect(first).toMatch(/event: tiddler\ndata: \{[^\n]*"title":"\$:\/temp\/tiddlyagent\/semantic-index"[^\n]*"state":"ready"/);
  await server.stop();

  mock.reset();
  fs.writeFileSync(path.join(dir, 'tiddlers', 'Worms.tid'), 'title: Worms\n\nThey eat the compost.');
  server = await startServer(dir);
  await until('the new tiddler in the vector file', () => header().tiddlers.some(([t]) => t === 'Worms'));
  expect(embedded()).toEqual(['Worms\n\nThey eat the compost.']);
});
