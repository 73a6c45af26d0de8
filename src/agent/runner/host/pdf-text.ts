/*\
The text of PDF tiddlers (tools/documents.ts), extracted once per PDF with PDF.js (the PDF
reader plugin's pdf.js, src/pdf/, run in a worker made of its source, with a time and a memory
limit (pdf-worker.ts), never at page load; without that plugin a PDF says it is needed) and kept:
- in memory, by the SHA-256 of the PDF's bytes (its base64 text: pdfKey), the last MEMORY_ENTRIES
  PDFs; the same PDF under another title, or after a change of another field, is not
  extracted again;
- where a store is set, outside the wiki too, so a restart or a reload does not extract again:
  the server edition's agent-state/pdf-text/ (keepPdfTextIn), or in a browser IndexedDB
  (pdf-text-idb.ts, chosen when the page first meets a PDF).
Kept text of a PDF no longer in the wiki goes: a PDF tiddler deleted or changed takes its
text with it, and once a store is set, what it keeps for PDFs the wiki no longer has is
removed (pruneKept, in the background).
The extracted text is no tiddler: the user never sees it in the wiki, nothing saves it in a
wiki file, and it leaves with the PDF it was taken from.
The indexes ask synchronously (cachedDocument): a PDF not extracted yet is indexed by its
title and tags only, extraction starts, and the index is told to look at the title again
once the text is there.
A PDF that cannot be read keeps its reason (it is not tried again until its bytes change).
\*/
import type * as PdfLibrary from '$:/plugins/tiddlyagent/pdf/pdf.js';
import type { Wiki } from 'tiddlywiki';
import { fingerprint } from '../../search/chunks';
import { base64Bytes, type DocumentText, isPdfTiddler, PDF_TYPE } from '../../tools/documents';
import type { TiddlerFields } from '../../store/wiki-port';
import { ensureWebGlobals } from './host';
import { createIndexedDbPdfTextStore } from './pdf-text-idb';
import { readPdfInWorker } from './pdf-worker';

/** PDF.js is a plugin of its own (1.7 MB), which a wiki without PDFs can leave out. */
const PDF_PLUGIN = '$:/plugins/tiddlyagent/pdf';
const PDF_MODULE = `${PDF_PLUGIN}/pdf.js`;
/** The largest PDF read (the composer takes up to 20 MB; an import, a PUT or a file may bring more). */
const MAX_PDF_BYTES = 25_000_000;

/** Where extracted text is kept between runs (the server edition: files beside the wiki). */
export interface PdfTextStore {
  load(key: string): Promise<DocumentText | undefined>;
  save(key: string, pdf: DocumentText): Promise<void>;
  /** The keys it keeps text for (to remove those of PDFs no longer in the wiki). */
  keys?(): Promise<string[]>;
  remove?(key: string): Promise<void>;
}

const MEMORY_ENTRIES = 64;
const memory = new Map<string, DocumentText>();
const pending = new Map<string, Promise<DocumentText>>();
let store: PdfTextStore | undefined;
/** Whether a store was chosen (by keepPdfTextIn, or the browser's default on first use). */
let chosen = false;
let unwatch: (() => void) | undefined;
let library: typeof PdfLibrary | undefined;
let extracted = 0;
let inWorker = 0;

/** How many PDFs were extracted since start (not taken from a cache), how many of them in a worker: the tests and the benchmark. */
export function pdfTextStats(): { extracted: number; remembered: number; inWorker: number } {
  return { extracted, remembered: memory.size, inWorker };
}

/**
 * Keep extracted text in `kept` as well as in memory. With `wiki`, what `kept` holds for PDFs
 * no longer in it is removed (`pruned` says how many, once done), and a PDF tiddler deleted or
 * changed from now on takes its kept text with it.
 */
export function keepPdfTextIn(kept: PdfTextStore | undefined, wiki?: PdfWiki): { pruned: Promise<number> } {
  store = kept;
  chosen = true;
  unwatch?.();
  unwatch = kept && wiki ? watchPdfs(wiki, kept) : undefined;
  return { pruned: kept && wiki ? pruneKept(wiki, kept).catch(() => 0) : Promise.resolve(0) };
}

/** The wiki as pruning sees it: TiddlyWiki's $tw.wiki. */
type PdfWiki = Pick<Wiki, 'filterTiddlers' | 'getTiddler' | 'addEventListener' | 'removeEventListener'>;

/** The store, choosing the browser's (IndexedDB) the first time a PDF is met in a page where none was set. */
function keptStore(): PdfTextStore | undefined {
  if (!chosen && $tw.browser) keepPdfTextIn(createIndexedDbPdfTextStore(), $tw.wiki);
  return store;
}

/** Remove what `kept` holds for PDFs not in `wiki` (hashing only PDFs whose size matches a kept key); how many went. */
async function pruneKept(wiki: PdfWiki, kept: PdfTextStore): Promise<number> {
  if (!kept.keys || !kept.remove) return 0;
  const stored = await kept.keys();
  if (!stored.length) return 0;
  const sizes = new Set(stored.map((key) => key.slice(key.lastIndexOf('.') + 1)));
  const live = new Set<string>();
  for (const title of wiki.filterTiddlers(`[all[tiddlers+shadows]field:type[${PDF_TYPE}]]`)) {
    const fields = wiki.getTiddler(title)?.fields;
    const text = typeof fields?.text === 'string' ? fields.text : '';
    if (!sizes.has(text.length.toString(36))) continue;
    live.add(await pdfKey({ title, text }));
  }
  let removed = 0;
  for (const key of stored) {
    if (live.has(key) || memory.has(key) || pending.has(key)) continue;
    await kept.remove(key);
    removed++;
  }
  return removed;
}

/** A PDF tiddler deleted or changed takes its kept text with it (unless another PDF has the same bytes). */
function watchPdfs(wiki: PdfWiki, kept: PdfTextStore): () => void {
  const listener = (event: unknown) => {
    const changes = (event ?? {}) as Record<string, unknown>;
    const gone = new Map<string, string>();
    for (const title of Object.keys(changes)) {
      const known = keys.get(title);
      const now = wiki.getTiddler(title)?.fields;
      if (!known || (now?.type === PDF_TYPE && now.text === known.text)) continue;
      keys.delete(title);
      gone.set(known.key, known.text);
    }
    if (!gone.size) return;
    for (const known of keys.values()) gone.delete(known.key);
    // A rename: the same bytes under a new title keep their text.
    for (const title of Object.keys(changes)) {
      const now = wiki.getTiddler(title)?.fields;
      for (const [key, text] of gone) if (now?.type === PDF_TYPE && now.text === text && gone.delete(key)) keys.set(title, { text, key });
    }
    for (const key of gone.keys()) {
      memory.delete(key);
      void kept.remove?.(key).catch(() => undefined);
    }
  };
  wiki.addEventListener('change', listener);
  return () => wiki.removeEventListener('change', listener);
}

/**
 * The key of a PDF's text, whatever its title or other fields: the SHA-256 of its text (the
 * base64 of its bytes; crypto.subtle, native and off the main work) and the text's length. Where
 * crypto.subtle is missing (a page served over plain http from another machine) a 53-bit
 * fingerprint stands in, marked `f`. The same text under the same title is not hashed again.
 */
export async function pdfKey(fields: TiddlerFields): Promise<string> {
  const text = fields.text ?? '';
  const known = knownKey(fields);
  if (known) return known;
  const key = `${await digest(text)}.${text.length.toString(36)}`;
  keys.set(fields.title ?? '', { text, key });
  while (keys.size > KEY_ENTRIES) keys.delete(keys.keys().next().value as string);
  return key;
}

/** The key of this version of a PDF tiddler when it was worked out already. */
function knownKey(fields: TiddlerFields): string | undefined {
  const known = keys.get(fields.title ?? '');
  return known && known.text === (fields.text ?? '') ? known.key : undefined;
}

async function digest(text: string): Promise<string> {
  ensureWebGlobals();
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!subtle) return `f${fingerprint(PDF_TYPE, text)}`;
  const hash = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Keys by title: more than the texts kept in memory, so an index asking again finds its PDF's key. */
const KEY_ENTRIES = 4 * MEMORY_ENTRIES;
const keys = new Map<string, { text: string; key: string }>();

/** The text of a PDF tiddler, extracting it if need be. */
export async function documentText(fields: TiddlerFields): Promise<DocumentText> {
  if (fields._canonical_uri) return { problem: 'it is stored outside the wiki (at its _canonical_uri), which is not fetched' };
  const key = await pdfKey(fields);
  const known = remembered(key);
  if (known) return known;
  let running = pending.get(key);
  if (!running) {
    running = extract(key, fields.text ?? '').finally(() => pending.delete(key));
    pending.set(key, running);
  }
  return running;
}

/**
 * The text of a PDF tiddler if it is known now; otherwise undefined, with extraction started
 * and `whenKnown` called once it is done (an index then reads the tiddler again).
 */
export function cachedDocument(fields: TiddlerFields, whenKnown: () => void): DocumentText | undefined {
  if (!isPdfTiddler(fields)) return undefined;
  if (fields._canonical_uri) return undefined;
  const key = knownKey(fields);
  const known = key ? remembered(key) : undefined;
  if (known) return known;
  documentText(fields).then(whenKnown, whenKnown);
  return undefined;
}

/**
 * The pages of a PDF: in a worker made of pdf.js's source (pdf-worker.ts), or, in a browser that
 * cannot make one, with pdf.js required once on this thread.
 */
async function readPages(bytes: Uint8Array): Promise<DocumentText> {
  const definition = $tw.modules.titles[PDF_MODULE]?.definition;
  const source = typeof definition === 'string' ? definition : $tw.wiki.getTiddlerText(PDF_MODULE);
  if (source) {
    const read = await readPdfInWorker(source, bytes, !!$tw.browser);
    if (read) {
      inWorker++;
      return read;
    }
  }
  // Under Node pdf.js is only ever run in a worker (on this thread it would need web APIs TiddlyWiki's sandbox lacks).
  if (!$tw.browser) return { problem: 'reading it failed (no worker could be made)' };
  library ??= require(PDF_MODULE) as typeof PdfLibrary;
  return { pages: await library.pdfPageTexts(bytes) };
}

function remembered(key: string): DocumentText | undefined {
  const known = memory.get(key);
  if (known) {
    // Most recently used last.
    memory.delete(key);
    memory.set(key, known);
  }
  return known;
}

function remember(key: string, pdf: DocumentText): void {
  memory.set(key, pdf);
  while (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value as string);
}

async function extract(key: string, base64: string): Promise<DocumentText> {
  const store = keptStore();
  const kept = await store?.load(key).catch(() => undefined);
  if (kept) {
    remember(key, kept);
    return kept;
  }
  // Not kept: once the plugin is installed, the same PDF is read.
  if (!$tw.modules.titles[PDF_MODULE])
    return { problem: `reading PDFs needs the plugin ${PDF_PLUGIN} (TiddlyAgent PDF reader); install it beside the agent plugin` };
  // Bytes, as base64 holds them: a PDF this big would hold up the server (or the page) for long.
  if (base64.length * 0.75 > MAX_PDF_BYTES)
    return keep(key, { problem: `it is ${Math.round((base64.length * 0.75) / 1e6)} MB; PDFs of at most ${MAX_PDF_BYTES / 1e6} MB are read` });
  // A record that the extraction started, replaced when it ends: if the process dies in it (a
  // hostile PDF), the next start finds this instead of extracting the same PDF again.
  await store?.save(key, { problem: 'its extraction did not finish (the process stopped during it); it is not tried again' }).catch(() => undefined);
  let pdf: DocumentText;
  try {
    extracted++;
    pdf = await readPages(base64Bytes(base64));
  } catch (e) {
    pdf = { problem: e instanceof Error ? e.message : String(e) };
  }
  return keep(key, pdf);
}

async function keep(key: string, pdf: DocumentText): Promise<DocumentText> {
  remember(key, pdf);
  const store = keptStore();
  await store?.save(key, pdf).catch(() => undefined);
  return pdf;
}
