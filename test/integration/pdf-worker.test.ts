// A PDF is read off the main thread (runner/host/pdf-worker.ts), in a real TiddlyWiki booted in
// Node with the built PDF reader plugin: while a 100-page PDF is read, the main thread's event
// loop keeps turning (a server keeps answering); past the time limit the worker is ended and the
// PDF says so, kept like any problem (not tried again until its bytes change); a worker out of
// memory says that; a broken PDF still gives its clear error.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolOutput } from '../../src/agent/tools/tool';

const { makePdf } = require('../../scripts/make-pdf.cjs');

jest.setTimeout(60_000);

const words = ['garden', 'river', 'budget', 'meeting', 'harvest', 'ledger', 'season', 'orchard'];
const page = (p: number) =>
  Array.from({ length: 28 }, (_, line) => Array.from({ length: 12 }, (_, w) => words[(p + line + w) % words.length]).join(' ')).join('\n');
const pdf = (pages: string[]) => makePdf(pages).toString('base64');

let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([]);
});
afterEach(() => agentLib($tw).setPdfLimits());

async function read(title: string, text: string): Promise<ToolOutput> {
  $tw.wiki.addTiddler({ title, type: 'application/pdf', text });
  const lib = agentLib($tw);
  const tool = lib.WIKI_READ_TOOLS.find((t: { name: string }) => t.name === 'wiki-read')!;
  const context = lib.createToolContext(lib.createTiddlyWikiPort($tw.wiki), {
    chat: 'PDF chat',
    agent: {} as never,
    signal: new AbortController().signal,
    turn: 't',
  });
  return tool.execute(tool.parameters.parse({ title }), context);
}

const stats = () => agentLib($tw).pdfTextStats() as { extracted: number; inWorker: number };

test('a 100-page PDF is read in a worker: the main thread keeps turning while it is read', async () => {
  const before = stats();
  let ticks = 0;
  let reading = true;
  const tick = () => {
    ticks++;
    if (reading) setImmediate(tick);
  };
  setImmediate(tick);
  $tw.wiki.addTiddler({
    title: 'Hundred.pdf',
    type: 'application/pdf',
    text: pdf(Array.from({ length: 100 }, (_, p) => (p === 76 ? `${page(p)}\nThe okapi is on this page.` : page(p)))),
  });
  const text = (await agentLib($tw).createTiddlyWikiPort($tw.wiki).documentText!('Hundred.pdf')) as { pages: string[] };
  reading = false;
  expect(text.pages).toHaveLength(100);
  expect(text.pages[76]).toContain('The okapi is on this page.');
  expect(stats().inWorker).toBe(before.inWorker + 1);
  // On the calling thread the loop turned a handful of times in the whole read; here, for every few ms of it.
  expect(ticks).toBeGreaterThan(500);
});

test('past the time limit the worker is ended and the PDF says so; kept, it is not read again until its bytes change', async () => {
  const lib = agentLib($tw);
  lib.setPdfLimits({ timeMs: 5 });
  const slow = pdf(Array.from({ length: 60 }, (_, p) => page(p)));
  const before = stats().extracted;
  const out = await read('Slow.pdf', slow);
  expect(out.content).toMatch(/This PDF cannot be read: reading it took longer than 0\.005 s/);
  lib.setPdfLimits();
  // Kept like any problem: the same bytes (under another title too) are not tried again.
  expect((await read('Slow copy.pdf', slow)).content).toContain('reading it took longer than 0.005 s');
  expect(stats().extracted).toBe(before + 1);
  // Another PDF is read as usual: no worker is left holding the queue.
  expect((await read('Quick.pdf', pdf(['A quick note about voles.']))).content).toContain('[page 1]\nA quick note about voles.');
});

test('a worker that runs out of memory gives the PDF a problem saying so; the next PDF is read', async () => {
  agentLib($tw).setPdfLimits({ memoryMb: 2 });
  const out = await read('Greedy.pdf', pdf(['Too big for two megabytes of heap.', page(2)]));
  expect(out.content).toContain('This PDF cannot be read: reading it needed more memory than allowed');
  agentLib($tw).setPdfLimits();
  expect((await read('After.pdf', pdf(['Read after the greedy one.']))).content).toContain('Read after the greedy one.');
});

test('a broken PDF still gives its clear error from the worker', async () => {
  const before = stats().inWorker;
  const out = await read('Broken.pdf', Buffer.from('%PDF-1.4\nthis is not really a PDF at all').toString('base64'));
  expect(out.content).toMatch(/^This PDF cannot be read: it is not a readable PDF \(.+\)\. \(tiddler "Broken\.pdf"\)$/);
  expect(stats().inWorker).toBe(before + 1);
});
