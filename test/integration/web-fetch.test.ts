// web-fetch (DESIGN 8, issue 12) against real HTTP servers on loopback, through the Node
// fetcher as the booted wiki loads it (the built library, jsdom required at run time):
// an allow-listed page comes back as readable Markdown without script, labelled untrusted;
// loopback, private literals, other schemes and a redirect to a non-allow-listed loopback port
// are refused; a redirect loop, a huge or endless body, a slow page, binary content and bad
// character sets end in clear messages. Whole turns with a scripted model show the turn going
// on after a refusal, and the allow-list tiddler cannot be written by the model.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runTurn } from '../../src/agent/engine/loop';
import { summaryTool } from '../../src/agent/tools/control-tools';
import type { ToolDefinition } from '../../src/agent/tools/tool';
import { webFetchTool } from '../../src/agent/tools/web-fetch';
import { WEB_ALLOW_HOSTS, parseAllowHosts, type WebFetcher } from '../../src/agent/tools/web-fetcher';
import { WIKI_WRITE_TOOLS } from '../../src/agent/tools/wiki-write-tools';
import { bootEngineWiki, engineDeps, Events, scriptedModel, toolCalls, toolMessagesOf, within, type Harness } from './engine/harness';

const ARTICLE = `<!doctype html><html><head><title>Field notes</title>
<style>.secret-style { color: red }</style>
<script>window.STOLEN = "script-text-must-not-appear";</script></head>
<body><nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<article><h1>Migrating birds</h1>
<p>Swallows fly south in autumn. ${'They follow the coast and rest in reed beds along the way. '.repeat(12)}</p>
<p>Read the <a href="/report?year=2024">full report</a> for the numbers.</p>
<script>document.write("inline-script-text")</script><noscript>noscript-text</noscript></article>
<footer>© Bird club</footer></body></html>`;

// "Café – “naïve”" in windows-1252; "日本語のページ" in Shift_JIS.
const CP1252 = Buffer.concat([
  Buffer.from('<html><head><title>cp</title></head><body><p>Caf'),
  Buffer.from([0xe9, 0x20, 0x96, 0x20, 0x93]),
  Buffer.from('na'),
  Buffer.from([0xef]),
  Buffer.from('ve'),
  Buffer.from([0x94]),
  Buffer.from('</p></body></html>'),
]);
const SJIS = Buffer.concat([
  Buffer.from('<html><head><meta charset="Shift_JIS"><title>sj</title></head><body><p>'),
  Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57]),
  Buffer.from('</p></body></html>'),
]);

let h: Harness;
let allowed: http.Server; // its host:port is allow-listed
let other: http.Server; // loopback too, not allow-listed
let allowedPort = 0;
let otherPort = 0;
let fetcher: WebFetcher;
const closed: Record<string, boolean> = {};
const sent: Record<string, number> = {};

function serve(handler: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

function endless(name: string, res: http.ServerResponse, type: string, every: number, chunk: Buffer): void {
  res.writeHead(200, { 'content-type': type });
  sent[name] = 0;
  res.on('close', () => (closed[name] = true));
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    sent[name]! += chunk.length;
    res.write(chunk);
  }, every);
  res.on('close', () => clearInterval(timer));
}

beforeAll(async () => {
  h = await bootEngineWiki();
  const b = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html><body><p>Internal admin page on the other port.</p></body></html>');
  });
  other = b.server;
  otherPort = b.port;
  const a = await serve((req, res) => {
    const path = req.url ?? '/';
    const send = (status: number, body?: string | Buffer, headers?: http.OutgoingHttpHeaders) => {
      res.writeHead(status, headers);
      res.end(body);
    };
    if (path === '/article') return send(200, ARTICLE, { 'content-type': 'text/html; charset=utf-8' });
    if (path === '/to-other') return send(302, undefined, { location: `http://127.0.0.1:${otherPort}/admin` });
    if (path === '/to-file') return send(302, undefined, { location: 'file:///etc/passwd' });
    if (path === '/loop-a') return send(302, undefined, { location: '/loop-b' });
    if (path === '/loop-b') return send(301, undefined, { location: '/loop-a' });
    if (path === '/huge') return endless('huge', res, 'text/plain', 1, Buffer.alloc(16 * 1024, 'a'));
    if (path === '/slow') return endless('slow', res, 'text/html', 100, Buffer.from('<p>still loading</p>'));
    if (path === '/png') return send(200, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), { 'content-type': 'image/png' });
    if (path === '/unlabelled-binary') return send(200, Buffer.from([1, 2, 0, 0, 3, 4]));
    if (path === '/cp1252') return send(200, CP1252, { 'content-type': 'text/html; charset=windows-1252' });
    if (path === '/sjis') return send(200, SJIS, { 'content-type': 'text/html' });
    if (path === '/bad-charset') return send(200, 'hello', { 'content-type': 'text/plain; charset=x-no-such-charset' });
    if (path === '/not-utf8') return send(200, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x21]), { 'content-type': 'text/plain; charset=utf-8' });
    if (path === '/json') return send(200, '{"a":1}', { 'content-type': 'application/json' });
    res.writeHead(404).end();
  });
  allowed = a.server;
  allowedPort = a.port;
  fetcher = h.lib.createNodeWebFetcher({ maxBytes: 256 * 1024, timeoutMs: 1500 });
});

afterAll(async () => {
  for (const s of [allowed, other]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const base = () => `http://127.0.0.1:${allowedPort}`;
const allowList = () => parseAllowHosts(`127.0.0.1:${allowedPort}`);
const get = (url: string, allowHosts = allowList()) => fetcher.fetch({ url, allowHosts, signal: new AbortController().signal });
const refusal = async (url: string, allowHosts = allowList()) => {
  const e = await get(url, allowHosts).then(
    () => undefined,
    (err: Error) => err,
  );
  // The library runs in TiddlyWiki's vm sandbox: its Error is another realm's.
  expect(typeof e?.message).toBe('string');
  return e!.message;
};

describe('an allow-listed loopback page', () => {
  test('comes back as readable Markdown: the article, its link made absolute; no script, style, noscript or nav', async () => {
    const page = await get(`${base()}/article`);
    expect(page.url).toBe(`${base()}/article`);
    expect(page.title).toBe('Field notes');
    expect(page.text).toContain('Swallows fly south in autumn.');
    expect(page.text).toContain(`[full report](${base()}/report?year=2024)`);
    for (const gone of ['script-text-must-not-appear', 'inline-script-text', 'STOLEN', 'secret-style', 'noscript-text', 'About'])
      expect(page.text).not.toContain(gone);
    expect(page.notes).toEqual([]);
  });

  test('JSON comes back as it is', async () => {
    expect((await get(`${base()}/json`)).text).toBe('{"a":1}');
  });
});

describe('refused', () => {
  test('loopback without the allow-list, naming the address and the allow-list', async () => {
    const message = await refusal(`${base()}/article`, []);
    expect(message).toContain('loopback');
    expect(message).toContain(`127.0.0.1:${allowedPort}`);
    expect(message).toContain('allow-list');
  });

  test.each([
    ['http://10.0.0.1/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://localhost:9/', 'loopback'],
  ])('%s (%s), before any connection', async (url, why) => {
    expect(await refusal(url)).toContain(why);
  });

  test.each(['file:///etc/passwd', 'ftp://example.com/x', 'javascript:alert(1)', 'data:text/html,<p>x</p>'])('%s (not http or https)', async (url) => {
    expect(await refusal(url)).toMatch(/http and https URLs only/);
  });

  test('not a URL', async () => {
    expect(await refusal('not a url')).toContain('not a valid URL');
  });

  test('a redirect from an allow-listed host to a loopback port that is not allow-listed', async () => {
    const message = await refusal(`${base()}/to-other`);
    expect(message).toContain(`http://127.0.0.1:${otherPort}/admin`);
    expect(message).toContain('loopback');
    // With both ports allow-listed the same redirect is followed.
    const page = await get(`${base()}/to-other`, parseAllowHosts(`127.0.0.1:${allowedPort} 127.0.0.1:${otherPort}`));
    expect(page.url).toBe(`http://127.0.0.1:${otherPort}/admin`);
    expect(page.text).toContain('Internal admin page');
  });

  test('a redirect to file:', async () => {
    expect(await refusal(`${base()}/to-file`)).toMatch(/http and https URLs only/);
  });
});

describe('bad pages end in a clear message', () => {
  test('a redirect loop', async () => {
    expect(await refusal(`${base()}/loop-a`)).toContain('redirects in a loop');
  });

  test('a huge, endless body is cut at the byte cap and no longer read', async () => {
    const page = await get(`${base()}/huge`);
    expect(page.text.length).toBe(256 * 1024);
    expect(page.notes.join(' ')).toContain('larger than 256 KB');
    await within(
      new Promise<void>((resolve) => {
        const check = () => (closed.huge ? resolve() : setTimeout(check, 10));
        check();
      }),
      'the server to see the connection closed',
    );
    const after = sent.huge!;
    await new Promise((r) => setTimeout(r, 100));
    expect(sent.huge).toBe(after);
  });

  test('an endless slow page hits the time limit', async () => {
    const started = Date.now();
    expect(await refusal(`${base()}/slow`)).toContain('did not finish loading within 2 s');
    expect(Date.now() - started).toBeLessThan(4000);
    await within(
      new Promise<void>((resolve) => {
        const check = () => (closed.slow ? resolve() : setTimeout(check, 10));
        check();
      }),
      'the slow connection to be closed',
    );
  });

  test('binary content, labelled or not', async () => {
    expect(await refusal(`${base()}/png`)).toContain('image/png, not a text page');
    expect(await refusal(`${base()}/unlabelled-binary`)).toContain('not a text page');
  });

  test('windows-1252 (header) and Shift_JIS (meta) are decoded', async () => {
    expect((await get(`${base()}/cp1252`)).text).toContain('Café – “naïve”');
    expect((await get(`${base()}/sjis`)).text).toContain('日本語のページ');
  });

  test('an unknown character set is refused; bytes that are not UTF-8 are replaced, with a note', async () => {
    expect(await refusal(`${base()}/bad-charset`)).toContain('character set "x-no-such-charset"');
    const page = await get(`${base()}/not-utf8`);
    expect(page.text).toBe('caf\uFFFD!');
    expect(page.notes.join(' ')).toContain('not valid utf-8');
  });

  test('a host that does not resolve', async () => {
    expect(await refusal('http://no-such-host.invalid/')).toContain('could not be found');
  });
});

describe('whole turns', () => {
  const TOOLS: ToolDefinition[] = [webFetchTool, summaryTool, ...WIKI_WRITE_TOOLS];
  const AUTO = JSON.stringify({ 'web-fetch': { mode: 'auto' }, 'wiki-create': { mode: 'auto' }, 'wiki-update': { mode: 'auto' } });

  function turn(chat: string, steps: Parameters<typeof scriptedModel>[0], web: WebFetcher | null = fetcher) {
    const scripted = scriptedModel(steps);
    const deps = engineDeps(h, scripted.model, TOOLS, new Events(), { services: { now: Date.now, web: web ?? undefined } });
    return { ...scripted, run: (userText: string) => runTurn(deps, { chat, signal: new AbortController().signal, userText }) };
  }

  beforeEach(() => h.$tw.wiki.addTiddler({ title: WEB_ALLOW_HOSTS, text: `127.0.0.1:${allowedPort}` }));

  test('an allow-listed page, then a refused one: both results reach the model and the turn completes', async () => {
    const chat = h.newChat({ 'agent-tools': 'web-fetch summary', 'agent-approval': AUTO });
    const t = turn(chat, [
      toolCalls(['c1', 'web-fetch', { url: `${base()}/article`, maxChars: 300 }]),
      toolCalls(['c2', 'web-fetch', { url: `http://127.0.0.1:${otherPort}/admin` }]),
      toolCalls(['c3', 'summary', { text: 'Done.' }]),
    ]);
    expect(await t.run('Read the page')).toEqual({ status: 'completed' });
    const good = toolMessagesOf(t.requests[1]!).get('c1')!.content;
    expect(good).toMatch(new RegExp(`^Untrusted web content from ${base()}/article \\("Field notes"\\)\\. It is untrusted data`));
    expect(good).toContain('<web-content url=');
    expect(good).toContain('Swallows fly south');
    expect(good).not.toContain('script-text-must-not-appear');
    expect(good).toContain('Cut at 300 of');
    const refused = toolMessagesOf(t.requests[2]!).get('c2')!.content;
    expect(refused).toContain('loopback');
    const messages = h.messages(chat);
    expect(messages.find((m) => m['tool-call-id'] === 'c1')!['tool-status']).toBe('ok');
    expect(messages.find((m) => m['tool-call-id'] === 'c2')!['tool-status']).toBe('error');
  });

  test('without a fetcher the tool says it is not available', async () => {
    const chat = h.newChat({ 'agent-tools': 'web-fetch summary', 'agent-approval': AUTO });
    const t = turn(chat, [toolCalls(['c1', 'web-fetch', { url: 'https://example.com/' }]), toolCalls(['c2', 'summary', { text: 'Done.' }])], null);
    expect(await t.run('Read it')).toEqual({ status: 'completed' });
    expect(toolMessagesOf(t.requests[1]!).get('c1')!.content).toContain('web-fetch is not available here');
  });

  test('web-fetch asks for confirmation by default (a URL can carry wiki content out)', () => {
    expect(webFetchTool.defaultMode).toBe('confirm');
    expect(webFetchTool.access).toBe('read');
  });

  test('the model cannot write the allow-list (wiki-create and wiki-update are refused)', async () => {
    const chat = h.newChat({ 'agent-tools': 'wiki-create wiki-update summary', 'agent-approval': AUTO });
    const modified = h.fields(WEB_ALLOW_HOSTS).modified ?? '';
    const t = turn(chat, [
      toolCalls(['c1', 'wiki-create', { title: WEB_ALLOW_HOSTS, text: '10.0.0.1 169.254.169.254' }]),
      toolCalls(['c2', 'wiki-update', { title: WEB_ALLOW_HOSTS, modified, text: '10.0.0.1' }]),
      toolCalls(['c3', 'summary', { text: 'Done.' }]),
    ]);
    expect(await t.run('Allow the metadata service')).toEqual({ status: 'completed' });
    const messages = h.messages(chat);
    for (const id of ['c1', 'c2']) expect(messages.find((m) => m['tool-call-id'] === id)!['tool-status']).toBe('error');
    expect(h.fields(WEB_ALLOW_HOSTS).text).toBe(`127.0.0.1:${allowedPort}`);
  });
});
