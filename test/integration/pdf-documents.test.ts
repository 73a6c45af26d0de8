// PDFs the agent reads and searches, in a real TiddlyWiki with real PDFs made here
// (scripts/make-pdf.cjs): wiki-read gives the pages' text with [page N] markers; wiki-search
// finds a word that is only on page 7 and its snippet names the page; a PDF without a text
// layer says so; a broken one gives a clear error; a hidden PDF stays absent; the text is
// extracted once (the same bytes under another title are not extracted again) and is no tiddler.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { ToolOutput } from '../../src/agent/tools/tool';

const { makePdf } = require('../../scripts/make-pdf.cjs');

const pageText = (n: number) => (n === 7 ? 'Page seven tells of the axolotl lagoon.\nIt is a quiet place.' : `Page ${n} is about ordinary gardening.`);
const REPORT = makePdf(Array.from({ length: 10 }, (_, i) => pageText(i + 1))).toString('base64');
const SCAN = makePdf([null, null, null]).toString('base64');
const BROKEN = Buffer.from('%PDF-1.4\nthis is not really a PDF at all').toString('base64');

let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Report.pdf', type: 'application/pdf', text: REPORT, tags: 'Reports' },
    { title: 'Scan.pdf', type: 'application/pdf', text: SCAN },
    { title: 'Broken.pdf', type: 'application/pdf', text: BROKEN },
    { title: '$:/ai/hidden.pdf', type: 'application/pdf', text: REPORT },
    { title: 'Plain note', text: 'Nothing about lagoons here.' },
  ]);
});

async function call(name: string, args: Record<string, unknown>): Promise<ToolOutput> {
  const lib = agentLib($tw);
  const tool = lib.WIKI_READ_TOOLS.find((t) => t.name === name)!;
  const context = lib.createToolContext(lib.createTiddlyWikiPort($tw.wiki), {
    chat: 'PDF chat',
    agent: {} as never,
    signal: new AbortController().signal,
    turn: 't',
  });
  return tool.execute(tool.parameters.parse(args) as never, context);
}

test('wiki-read returns the text of every page, each after its [page N] marker, never the base64', async () => {
  const out = await call('wiki-read', { title: 'Report.pdf' });
  expect(out.ok).not.toBe(false);
  expect(out.content).toContain('[page 1]\nPage 1 is about ordinary gardening.');
  expect(out.content).toContain('[page 7]\nPage seven tells of the axolotl lagoon.\nIt is a quiet place.');
  expect(out.content).toContain('[page 10]\nPage 10 is about ordinary gardening.');
  expect(out.content).not.toContain(REPORT.slice(0, 40));
  expect(out.content).toContain('type: application/pdf');
  expect(out.read).toHaveProperty(['Report.pdf']);
});

test('wiki-search finds a word that is only on page 7, and its snippet names the page', async () => {
  await call('wiki-read', { title: 'Report.pdf' }); // extracted (the index also starts it on its own)
  const lib = agentLib($tw);
  await lib.createTiddlyWikiPort($tw.wiki).rankedSearch('axolotl');
  // The index reads the PDF again once its text is known: give the extraction its turn.
  for (let i = 0; i < 50 && !(await call('wiki-search', { query: 'axolotl' })).content.includes('Report.pdf'); i++)
    await new Promise((resolve) => setImmediate(resolve));
  const out = await call('wiki-search', { query: 'axolotl' });
  expect(out.titles).toEqual(['Report.pdf']);
  expect(out.content).toMatch(/\[page 7\] [^<]*axolotl lagoon/);
  const lagoon = await call('wiki-search', { query: 'lagoon' });
  expect(lagoon.titles).toContain('Report.pdf');
});

test('a PDF without a text layer says so', async () => {
  const out = await call('wiki-read', { title: 'Scan.pdf' });
  expect(out.ok).not.toBe(false);
  expect(out.content).toContain('this PDF has no text layer (scanned?): 3 pages, no text to read');
});

test('a broken PDF gives a clear error, and nothing crashes', async () => {
  const out = await call('wiki-read', { title: 'Broken.pdf' });
  expect(out.ok).toBe(false);
  expect(out.content).toMatch(/^This PDF cannot be read: it is not a readable PDF \(.+\)\. \(tiddler "Broken\.pdf"\)$/);
  // Text that is not even base64.
  $tw.wiki.addTiddler({ title: 'Garbage.pdf', type: 'application/pdf', text: '<<not base64!>>' });
  const garbage = await call('wiki-read', { title: 'Garbage.pdf' });
  expect(garbage.ok).toBe(false);
  expect(garbage.content).toContain('This PDF cannot be read: its text is not base64.');
});

test('a hidden PDF is absent, its text found by no search', async () => {
  const out = await call('wiki-read', { title: '$:/ai/hidden.pdf' });
  expect(out.ok).toBe(false);
  expect(out.content).toContain('does not exist');
  const search = await call('wiki-search', { query: 'axolotl', filter: '[all[tiddlers]]' });
  expect(search.titles).not.toContain('$:/ai/hidden.pdf');
});

test('extracted once: the same PDF under another title is not extracted again, and no tiddler holds the text', async () => {
  const stats = () => agentLib($tw).pdfTextStats().extracted;
  const before = stats();
  {
    $tw.wiki.addTiddler({ title: 'Copy of report.pdf', type: 'application/pdf', text: REPORT });
    const out = await call('wiki-read', { title: 'Copy of report.pdf' });
    expect(out.content).toContain('[page 7]');
    expect(stats()).toBe(before);
    const fresh = makePdf(['A new PDF about tapirs.']).toString('base64');
    $tw.wiki.addTiddler({ title: 'Tapirs.pdf', type: 'application/pdf', text: fresh });
    expect((await call('wiki-read', { title: 'Tapirs.pdf' })).content).toContain('[page 1]\nA new PDF about tapirs.');
    expect((await call('wiki-read', { title: 'Tapirs.pdf' })).content).toContain('tapirs');
    expect(stats()).toBe(before + 1);
  }
  const holding = $tw.wiki.filterTiddlers('[all[tiddlers+shadows]search[axolotl]]');
  expect(holding).toEqual([]);
});

test('without the PDF reader plugin a PDF says the plugin is needed; once it is there, the same PDF is read', async () => {
  const MODULE = '$:/plugins/tiddlyagent/pdf/pdf.js';
  const module = $tw.modules.titles[MODULE];
  const other = makePdf(['A note about the heron pond.']).toString('base64');
  $tw.wiki.addTiddler({ title: 'Heron.pdf', type: 'application/pdf', text: other });
  // As in a wiki where only the agent plugin is installed.
  delete $tw.modules.titles[MODULE];
  try {
    const out = await call('wiki-read', { title: 'Heron.pdf' });
    expect(out.content).toContain('reading PDFs needs the plugin $:/plugins/tiddlyagent/pdf');
  } finally {
    $tw.modules.titles[MODULE] = module;
  }
  expect((await call('wiki-read', { title: 'Heron.pdf' })).content).toContain('[page 1]\nA note about the heron pond.');
});

test('a PDF bigger than 25 MB is refused with its size, not read (an import or a file can bring one the composer would not take)', async () => {
  const header = Buffer.from('%PDF-1.4\n').toString('base64');
  $tw.wiki.addTiddler({ title: 'Huge.pdf', type: 'application/pdf', text: header + 'A'.repeat(36_000_000) });
  const out = await call('wiki-read', { title: 'Huge.pdf' });
  expect(out.content).toMatch(/it is 27 MB; PDFs of at most 25 MB are read/);
  $tw.wiki.deleteTiddler('Huge.pdf');
});
