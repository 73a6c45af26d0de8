// The browser-only edition keeps a PDF's extracted text in IndexedDB, in Chromium: the first
// read extracts it with PDF.js; after a reload the same PDF is read back from IndexedDB, not
// extracted again; text kept for a PDF the wiki no longer has is removed, and deleting a PDF
// tiddler removes its kept text.
import type { Page } from 'playwright-core';
import { useServedWiki, waitForSync } from '../helpers/e2e';

const { makePdf } = require('../../scripts/make-pdf.cjs');

jest.setTimeout(90_000);

const TITLE = 'Kept minutes.pdf';

/** Read the PDF in the page through the agent library: its pages, and how many PDFs this page extracted. */
function readPdf(page: Page): Promise<{ pages: string[]; extracted: number }> {
  return page.evaluate(async (title) => {
    const tw = (window as any).$tw;
    const lib = tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
    const pdf = await lib.documentText(tw.wiki.getTiddler(title).fields);
    return { pages: pdf.pages, extracted: lib.pdfTextStats().extracted };
  }, TITLE);
}

/** The keys IndexedDB keeps PDF text under (for every wiki). */
function keptKeys(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open('tiddlyagent-pdf-text', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('texts');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const request = open.result.transaction('texts', 'readonly').objectStore('texts').getAllKeys();
          request.onsuccess = () => {
            open.result.close();
            resolve(request.result.map(String));
          };
          request.onerror = () => reject(request.error);
        };
      }),
  );
}

/** Poll `check` (each poll a round trip to the page) until it holds; fails after `tries`. */
async function eventually(what: string, check: () => Promise<boolean>, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) if (await check()) return;
  throw new Error(`Never happened: ${what}`);
}

const s = useServedWiki();

test('a PDF extracted once is read back from IndexedDB after a reload; a gone PDF’s kept text is removed', async () => {
  // The PDF, as a drop or an import adds it; saved to the server, so the reload has it.
  const base64 = makePdf(['The otter survey is on page one.', 'Page two: the budget.']).toString('base64');
  await s.page.evaluate(([title, text]) => (window as any).$tw.wiki.addTiddler({ title, type: 'application/pdf', text }), [TITLE, base64]);
  await waitForSync(s.page);
  const first = await readPdf(s.page);
  expect(first).toEqual({ pages: ['The otter survey is on page one.', 'Page two: the budget.'], extracted: 1 });
  const kept = await keptKeys(s.page);
  expect(kept).toHaveLength(1);
  // Text kept for a PDF this wiki no longer has (deleted in another tab, say).
  const orphan = `${kept[0]!.slice(0, kept[0]!.indexOf('\n'))}\nzz.zz.zz`;
  await s.page.evaluate(
    (key) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('tiddlyagent-pdf-text', 1);
        open.onsuccess = () => {
          const request = open.result
            .transaction('texts', 'readwrite')
            .objectStore('texts')
            .put(JSON.stringify({ pages: ['gone'] }), key);
          request.onsuccess = () => {
            open.result.close();
            resolve();
          };
          request.onerror = () => reject(request.error);
        };
      }),
    orphan,
  );
  expect(await keptKeys(s.page)).toHaveLength(2);

  await s.page.reload({ waitUntil: 'domcontentloaded' });
  await s.page.waitForFunction(() => !!(window as any).$tw?.rootWidget);
  const again = await readPdf(s.page);
  expect(again).toEqual({ pages: first.pages, extracted: 0 });
  await eventually('the orphan to be removed', async () => !(await keptKeys(s.page)).includes(orphan));
  expect(await keptKeys(s.page)).toEqual(kept);

  await s.page.evaluate((title) => (window as any).$tw.wiki.deleteTiddler(title), TITLE);
  await eventually('the deleted PDF’s text to be removed', async () => (await keptKeys(s.page)).length === 0);
  expect(s.errors).toEqual([]);
});
