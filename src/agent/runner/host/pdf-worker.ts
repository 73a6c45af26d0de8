/*\
A PDF's pages read off the main thread (runner/host/pdf-text.ts): a hostile PDF within the size
limits must not hold up the server's event loop or the page while it is read, nor exhaust memory.
The PDF reader plugin's module (pdf.js, a TiddlyWiki module: CommonJS `exports`) runs in a worker
made from its own source text with a small CommonJS wrapper (it requires nothing else):
- under Node, a worker_threads Worker (`eval`), its heap limited (resourceLimits);
- in a browser, a Web Worker made from a Blob of the same script (a page, a single-file wiki opened
  from file://, the server edition's page). Where no Worker can be made (an old browser, a
  Content-Security-Policy without blob: workers), undefined: the caller reads on its own thread.
One PDF is read at a time; a worker that read one well waits 30 s for the next (loading pdf.js
again costs about half a second). Past the time limit the worker is ended and the PDF gets a
problem; a worker that dies (out of memory) gives one too. The bytes are moved, not copied.
\*/
import type { DocumentText } from '../../tools/documents';

/** How long a PDF may take to be read. */
export const PDF_TIME_LIMIT_MS = 60_000;
/** The worker's heap (under Node; a browser has its own limits per worker). */
const MEMORY_LIMIT_MB = 512;
const NO_MEMORY = 'reading it needed more memory than allowed';

let timeLimit = PDF_TIME_LIMIT_MS;
let memoryLimit = MEMORY_LIMIT_MB;
let queue: Promise<unknown> = Promise.resolve();

/** The limits (tests set smaller ones); without an argument, back to the usual ones. */
export function setPdfLimits(limits: { timeMs?: number; memoryMb?: number } = {}): void {
  void takeSpare('');
  timeLimit = limits.timeMs ?? PDF_TIME_LIMIT_MS;
  memoryLimit = limits.memoryMb ?? MEMORY_LIMIT_MB;
}

const tookTooLong = (ms: number) => `reading it took longer than ${ms / 1000} s`;

/**
 * Stand-ins for what PDF.js makes as it loads and needs only to draw (Node has no DOMMatrix,
 * ImageData or Path2D; text is all that is read here), and its warnings as it loads (no canvas
 * package) not shown.
 */
const PRELUDE = `"use strict";
class StandInMatrix { constructor(i) { this.a = 1; this.b = 0; this.c = 0; this.d = 1; this.e = 0; this.f = 0;
  if (Array.isArray(i) && i.length === 6) [this.a, this.b, this.c, this.d, this.e, this.f] = i; } }
for (const [name, value] of [['DOMMatrix', StandInMatrix], ['ImageData', class ImageData {}], ['Path2D', class Path2D {}]])
  if (!(name in globalThis)) globalThis[name] = value;
const quiet = (write) => (...args) => (typeof args[0] === 'string' && args[0].startsWith('Warning: ') ? undefined : write.apply(console, args));
console.log = quiet(console.log);
console.warn = quiet(console.warn);
`;

/** The worker's script: the module's source in a CommonJS wrapper, then the host's messaging. */
export function workerScript(source: string, host: 'node' | 'web'): string {
  const tail =
    host === 'node'
      ? `const { parentPort } = require('node:worker_threads');
parentPort.on('message', async (data) => data && data.tiddlyagent === 'read' && parentPort.postMessage(await read(data.bytes)));`
      : `self.addEventListener('message', async (event) => event.data && event.data.tiddlyagent === 'read' && self.postMessage(await read(event.data.bytes)));
self.postMessage({ tiddlyagent: 'ready' });`;
  return `${PRELUDE}const module = { exports: {} };
(function (module, exports, require) {
${source}
})(module, module.exports, function (name) { throw new Error('pdf.js requires no module (' + name + ')'); });
const read = async (bytes) => {
  try { return { tiddlyagent: 'pages', pages: await module.exports.pdfPageTexts(new Uint8Array(bytes)) }; }
  catch (e) { return { tiddlyagent: 'pages', problem: e instanceof Error ? e.message : String(e) }; }
};
${tail}
`;
}

/** What a worker sent: its pages (strings only) or its problem. */
function answer(data: unknown): DocumentText {
  const sent = (data ?? {}) as { pages?: unknown; problem?: unknown };
  if (Array.isArray(sent.pages) && sent.pages.every((page) => typeof page === 'string')) return { pages: sent.pages as string[] };
  return { problem: typeof sent.problem === 'string' ? sent.problem : 'reading it gave no text' };
}

/** The bytes in an ArrayBuffer of their own, to be moved to the worker. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer);
}

/**
 * Each page's text of the PDF `bytes`, read in a worker made of `source` (the pdf.js module's
 * text), or its problem; undefined where no worker could be made (read on the calling thread).
 */
export function readPdfInWorker(source: string, bytes: Uint8Array, browser: boolean): Promise<DocumentText | undefined> {
  const run = () => (browser ? inWebWorker(source, bytes) : inNodeWorker(source, bytes));
  const result = queue.then(run, run);
  queue = result.catch(() => undefined);
  return result;
}

/** How long a worker that read a PDF waits for the next one (loading pdf.js again costs ~0.5 s) before it is ended. */
const IDLE_MS = 30_000;

/** The worker that read the last PDF well, kept for the next one a while; any other ending ends it. */
let spare: { worker: { terminate(): unknown }; source: string; limit: number; idle: ReturnType<typeof setTimeout> } | undefined;

function takeSpare<T>(source: string): T | undefined {
  const kept = spare;
  spare = undefined;
  if (kept) clearTimeout(kept.idle);
  if (kept && kept.source === source && kept.limit === memoryLimit) return kept.worker as T;
  void kept?.worker.terminate();
  return undefined;
}

function keepSpare(worker: { terminate(): unknown }, source: string): void {
  void takeSpare(source);
  const idle = setTimeout(() => takeSpare(''), IDLE_MS);
  (idle as { unref?: () => void }).unref?.();
  spare = { worker, source, limit: memoryLimit, idle };
}

type NodeWorkerType = import('node:worker_threads').Worker;
let NodeWorker: typeof import('node:worker_threads').Worker | undefined;

function newNodeWorker(NodeWorker: typeof import('node:worker_threads').Worker, source: string): NodeWorkerType {
  const worker = new NodeWorker(workerScript(source, 'node'), { eval: true, resourceLimits: { maxOldGenerationSizeMb: memoryLimit } });
  // Always heard (an 'error' nobody listens to would end the process): a spare that fails is dropped.
  worker.on('error', () => spare?.worker === worker && takeSpare(''));
  return worker;
}

function inNodeWorker(source: string, bytes: Uint8Array): Promise<DocumentText> {
  NodeWorker ??= (require('node:worker_threads') as typeof import('node:worker_threads')).Worker;
  const worker = takeSpare<NodeWorkerType>(source) ?? newNodeWorker(NodeWorker, source);
  worker.ref();
  const limit = timeLimit;
  return new Promise((resolve) => {
    const done = (pdf: DocumentText, well = false) => {
      clearTimeout(timer);
      worker.off('message', message).off('error', error).off('exit', exit);
      if (well) {
        worker.unref();
        keepSpare(worker, source);
      } else void worker.terminate();
      resolve(pdf);
    };
    const timer = setTimeout(() => done({ problem: tookTooLong(limit) }), limit);
    const message = (data: { tiddlyagent?: string } | null) => data?.tiddlyagent === 'pages' && done(answer(data), true);
    const error = (e: Error & { code?: string }) => done({ problem: e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? NO_MEMORY : `reading it failed (${e.message})` });
    const exit = () => done({ problem: NO_MEMORY });
    worker.on('message', message).on('error', error).on('exit', exit);
    const buffer = ownBuffer(bytes);
    worker.postMessage({ tiddlyagent: 'read', bytes: buffer }, [buffer]);
  });
}

/** A Web Worker made of pdf.js's source, ready (it loaded pdf.js); undefined where none can be made, null if not ready in time. */
function webWorker(source: string, limit: number): Promise<Worker | undefined | null> {
  const kept = takeSpare<Worker>(source);
  if (kept) return Promise.resolve(kept);
  let url: string | undefined;
  let worker: Worker;
  try {
    url = URL.createObjectURL(new Blob([workerScript(source, 'web')], { type: 'text/javascript' }));
    worker = new Worker(url);
  } catch {
    if (url) URL.revokeObjectURL(url);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const done = (ready: Worker | undefined | null) => {
      clearTimeout(timer);
      URL.revokeObjectURL(url as string);
      worker.onmessage = null;
      worker.onerror = null;
      if (!ready) worker.terminate();
      resolve(ready);
    };
    const timer = setTimeout(() => done(null), limit);
    // PDF.js's own worker code, finding itself in a worker, says it is ready too: only ours are read.
    worker.onmessage = (event: MessageEvent) => (event.data as { tiddlyagent?: string } | null)?.tiddlyagent === 'ready' && done(worker);
    // One that cannot start (blocked by a Content-Security-Policy, or pdf.js cannot load there): the calling thread reads.
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      done(undefined);
    };
  });
}

async function inWebWorker(source: string, bytes: Uint8Array): Promise<DocumentText | undefined> {
  const limit = timeLimit;
  const worker = await webWorker(source, limit);
  if (worker === null) return { problem: tookTooLong(limit) };
  if (!worker) return undefined;
  return new Promise((resolve) => {
    const done = (pdf: DocumentText, well = false) => {
      clearTimeout(timer);
      worker.onmessage = null;
      worker.onerror = null;
      if (well) keepSpare(worker, source);
      else worker.terminate();
      resolve(pdf);
    };
    const timer = setTimeout(() => done({ problem: tookTooLong(limit) }), limit);
    worker.onmessage = (event: MessageEvent) => (event.data as { tiddlyagent?: string } | null)?.tiddlyagent === 'pages' && done(answer(event.data), true);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      done({ problem: `reading it failed (${event.message || 'the worker stopped'})` });
    };
    const buffer = ownBuffer(bytes);
    worker.postMessage({ tiddlyagent: 'read', bytes: buffer }, [buffer]);
  });
}
