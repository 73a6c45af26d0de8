/*\
The browser's PdfTextStore (runner/host/pdf-text.ts): the text extracted from each PDF, in
IndexedDB (database "tiddlyagent-pdf-text"), one record per PDF keyed by the wiki's address and
the PDF's key, outside the tiddler store: never in the saved HTML, and a reload reads it back
instead of extracting again. A browser without IndexedDB (or a private window that refuses it)
keeps nothing beyond the page's memory (pdf-text.ts's own).
\*/
import type { DocumentText } from '../../store/wiki-port';
import type { PdfTextStore } from './pdf-text';
import { indexedDbStore } from './indexed-db';

const DB = 'tiddlyagent-pdf-text';
const STORE = 'texts';

export function createIndexedDbPdfTextStore(wiki = `${location.origin}${location.pathname}`): PdfTextStore | undefined {
  if (typeof indexedDB === 'undefined') return undefined;
  const prefix = `${wiki}\n`;
  const run = indexedDbStore(DB, STORE);
  return {
    async load(key) {
      return asDocument(await run<unknown>('readonly', (s) => s.get(prefix + key)));
    },
    async save(key, pdf) {
      await run('readwrite', (s) => s.put(JSON.stringify(pdf), prefix + key));
    },
    async keys() {
      const all = await run<IDBValidKey[]>('readonly', (s) => s.getAllKeys(IDBKeyRange.bound(prefix, `${prefix}\uffff`)));
      return all.map((key) => String(key).slice(prefix.length));
    },
    async remove(key) {
      await run('readwrite', (s) => s.delete(prefix + key));
    },
  };
}

/** A kept record as a document's text; anything else (damaged, from another version) is none. */
function asDocument(value: unknown): DocumentText | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const kept = JSON.parse(value) as { pages?: unknown; problem?: unknown };
    if (Array.isArray(kept.pages) && kept.pages.every((page) => typeof page === 'string')) return { pages: kept.pages as string[] };
    if (typeof kept.problem === 'string') return { problem: kept.problem };
  } catch {}
  return undefined;
}
