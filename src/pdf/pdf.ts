/*\
The PDF reader plugin's one module (pdf.js): PDF.js (Mozilla's pdfjs-dist, its legacy build, which runs in older
browsers and in Node) with its worker in the same module, so it needs no file to fetch. The agent
runs it in a worker made of this module's source (runner/host/pdf-worker.ts), or, in a browser that
cannot make one, on the calling thread. About 1.5 MB, so it is read only when a PDF is first read or
indexed (runner/host/pdf-text.ts), never when a page loads.
\*/
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
// @ts-expect-error: the worker module ships no types; only its WorkerMessageHandler is used.
import * as pdfWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';

// PDF.js runs its "worker" on this thread when it finds the worker module here.
if (!Object.hasOwn(globalThis, 'pdfjsWorker'))
  Object.defineProperty(globalThis, 'pdfjsWorker', { value: pdfWorker, writable: true, configurable: true, enumerable: false });

/** A PDF that cannot be read (not a PDF, damaged, encrypted): its message says why. */
export class PdfError extends Error {}

/** Pages read at most, and characters of text kept at most: a PDF beyond them is refused, not read for minutes. */
export const MAX_PAGES = 2000;
export const MAX_TEXT = 5_000_000;

/** Each page's text, in order (an empty string for a page with no text layer). */
export async function pdfPageTexts(data: Uint8Array): Promise<string[]> {
  let doc: pdfjs.PDFDocumentProxy;
  try {
    doc = await pdfjs.getDocument({
      data,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: pdfjs.VerbosityLevel.ERRORS,
    }).promise;
  } catch (e) {
    const name = e instanceof Error ? e.name : '';
    if (name === 'PasswordException') throw new PdfError('the PDF is protected by a password');
    throw new PdfError(`it is not a readable PDF (${e instanceof Error ? e.message : String(e)})`);
  }
  try {
    if (doc.numPages > MAX_PAGES) throw new PdfError(`it has ${doc.numPages} pages; at most ${MAX_PAGES} are read`);
    const pages: string[] = [];
    let total = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
      total += pages.at(-1)!.length;
      if (total > MAX_TEXT) throw new PdfError(`its text is longer than ${MAX_TEXT.toLocaleString('en')} characters (by page ${n}); it is not read`);
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}
