// Browser end-to-end harness: a real TiddlyWiki server (Node.js server edition with the
// filesystem and tiddlyweb plugins) on a copy of the demo wiki in a temp folder, the mock
// LLM on loopback, and a page in the Chromium that the jest global setup started.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

export type MockLlm = Awaited<ReturnType<typeof startMockLlm>>;

/** Where turns run on a served wiki: in the page (no server plugin) or on the server (the server edition). */
export type Edition = 'browser' | 'server';

export interface ServedWiki {
  url: string;
  dir: string;
  mock: MockLlm;
  stop(): Promise<void>;
}

/**
 * A copy of the demo wiki in a temp folder (the built plugins linked in), whose mock
 * provider points at `mockUrl`. With `server`, it has the filesystem and tiddlyweb plugins;
 * with `languages`, the language plugins the demo wiki offers (its tiddlywiki.info).
 */
export function demoWikiFolder(
  mockUrl: string,
  options: { server: boolean; edition?: Edition; providerFields?: Record<string, string>; languages?: boolean },
): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiddlyagent-e2e-'));
  const plugins = options.server ? ['tiddlywiki/filesystem', 'tiddlywiki/tiddlyweb'] : [];
  const languages: string[] = options.languages ? (JSON.parse(fs.readFileSync(path.join(ROOT, 'tiddlywiki.info'), 'utf8')).languages ?? []) : [];
  fs.writeFileSync(
    path.join(dir, 'tiddlywiki.info'),
    JSON.stringify({ plugins, themes: ['tiddlywiki/vanilla', 'tiddlywiki/snowwhite'], ...(languages.length ? { languages } : {}) }),
  );
  // Without the server plugin: TiddlyWiki serves the wiki and the page runs every turn itself.
  fs.mkdirSync(path.join(dir, 'plugins'));
  for (const name of options.edition === 'server' ? fs.readdirSync(path.join(ROOT, 'plugins')) : ['agent', 'pdf'])
    fs.symlinkSync(path.join(ROOT, 'plugins', name), path.join(dir, 'plugins', name));
  // The demo's example plugins (wiki/plugins: the Reading list), as the demo wiki has them.
  for (const name of fs.readdirSync(path.join(ROOT, 'wiki', 'plugins')))
    fs.symlinkSync(path.join(ROOT, 'wiki', 'plugins', name), path.join(dir, 'plugins', name));
  fs.cpSync(path.join(ROOT, 'wiki', 'tiddlers'), path.join(dir, 'tiddlers'), { recursive: true });
  const provider: Record<string, string> = {
    title: '$:/demo/providers/mock-llm',
    tags: '$:/tags/AI/Provider',
    caption: 'Mock LLM (offline demo, not a real model)',
    api: 'openai-chat',
    'base-url': mockUrl,
    'default-model': 'mock-model',
    ...options.providerFields,
  };
  fs.writeFileSync(
    path.join(dir, 'tiddlers', '$__demo_providers_mock-llm.tid'),
    `${Object.entries(provider)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n\n`,
  );
  return dir;
}

/** The URL a TiddlyWiki server process announces ("Serving on …"); rejects if it exits first. */
export function servingUrl(server: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Serving on (http:\/\/[^\s]+)/.exec(output);
      if (m) resolve(m[1]!.replace(/\/$/, ''));
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('exit', (code) => reject(new Error(`TiddlyWiki server exited with ${code}:\n${output}`)));
  });
}

export interface ServeOptions {
  mockDelayMs?: number;
  mockApiKey?: string;
  providerFields?: Record<string, string>;
  edition?: Edition;
  languages?: boolean;
}

/** Serve a fresh copy of the demo wiki whose mock provider points at a fresh mock LLM. */
export async function serveDemoWiki(options: ServeOptions = {}): Promise<ServedWiki> {
  const mock = await startMockLlm({ delayMs: options.mockDelayMs ?? 20, apiKey: options.mockApiKey });
  const dir = demoWikiFolder(mock.url, { server: true, edition: options.edition, providerFields: options.providerFields, languages: options.languages });
  const tiddlywiki = path.join(ROOT, 'node_modules', 'tiddlywiki', 'tiddlywiki.js');
  const server: ChildProcess = spawn(process.execPath, [tiddlywiki, dir, '--listen', 'port=0', 'host=127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  }); // jest's process.env: the tests' owner configuration
  const url = await servingUrl(server);
  return {
    url,
    dir,
    mock,
    async stop() {
      server.kill('SIGTERM');
      await mock.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let browser: Browser | undefined;

export async function connectBrowser(): Promise<Browser> {
  const ws = process.env.TIDDLYAGENT_BROWSER_WS;
  if (!ws) throw new Error('No shared browser: run the e2e tests through jest (the global setup starts Chromium)');
  browser ??= await chromium.connect(ws);
  return browser;
}

export async function openWiki(wiki: ServedWiki): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await (await connectBrowser()).newContext({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const page = await openPageIn(context, wiki, errors);
  return { context, page, errors };
}

/** A new page in `context` with the wiki loaded (TiddlyWiki started); its uncaught errors go to `errors`. */
export async function openPageIn(context: BrowserContext, wiki: ServedWiki, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${wiki.url}/`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => !!(window as unknown as { $tw?: { wiki?: unknown; rootWidget?: unknown } }).$tw?.rootWidget);
  return page;
}

export interface UseServedWikiOptions extends ServeOptions {
  /** Open a page on the wiki (the default); false: the tests open their own. */
  open?: boolean;
  /** Runs once the wiki is served, before the page opens. */
  prepare?: (wiki: ServedWiki) => void | Promise<void>;
}

/** What useServedWiki serves and opens; read it in tests and hooks (it exists from its beforeAll on). */
export interface ServedWikiSession {
  readonly wiki: ServedWiki;
  readonly context: BrowserContext;
  readonly page: Page;
  /** The page's uncaught errors. */
  readonly errors: string[];
}

/**
 * The shared fixture of the e2e files: a served demo wiki (serveDemoWiki) and a page on it
 * (openWiki) for the tests of the enclosing describe block (or file), set up by a beforeAll and
 * closed by an afterAll registered here. A further beforeAll after the call sees them ready.
 */
export function useServedWiki(options: UseServedWikiOptions = {}): ServedWikiSession {
  let wiki: ServedWiki | undefined;
  let opened: { context: BrowserContext; page: Page; errors: string[] } | undefined;
  beforeAll(async () => {
    wiki = await serveDemoWiki(options);
    await options.prepare?.(wiki);
    if (options.open !== false) opened = await openWiki(wiki);
  });
  afterAll(async () => {
    await opened?.context.close();
    await wiki?.stop();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(
        `${what} is not there: useServedWiki sets it up in its beforeAll${options.open === false && what !== 'The wiki' ? ' (and was told not to open a page)' : ''}`,
      );
    return value;
  };
  return {
    get wiki() {
      return ready(wiki, 'The wiki');
    },
    get context() {
      return ready(opened, 'The page').context;
    },
    get page() {
      return ready(opened, 'The page').page;
    },
    get errors() {
      return ready(opened, 'The page').errors;
    },
  };
}

/** Wait until the browser's syncer has saved everything to the server. */
export async function waitForSync(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const tw = (window as unknown as { $tw: { syncer?: { isDirty(): boolean } } }).$tw;
    return !!tw.syncer && !tw.syncer.isDirty();
  });
}

/** Poll a condition in this process (e.g. the mock's request log) without fixed sleeps. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Open a tiddler in the story river, as clicking a link to it would. */
export async function navigate(page: Page, title: string): Promise<void> {
  await page.evaluate((t) => {
    const tw = (window as unknown as { $tw: { Story: new (o: object) => { navigateTiddler(t: string): void }; wiki: unknown } }).$tw;
    new tw.Story({ wiki: tw.wiki }).navigateTiddler(t);
  }, title);
}
