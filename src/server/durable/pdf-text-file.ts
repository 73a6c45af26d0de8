/*\
The server edition's store of PDF text (runner/host/pdf-text.ts): the text extracted from each
PDF tiddler, in `agent-state/pdf-text/<key>.json` beside the wiki (git-ignored with the rest of
agent-state/), keyed by the SHA-256 of the PDF's bytes (pdf-text.ts pdfKey), written atomically. So a restart reads
the text back instead of extracting every PDF again; it is never a tiddler, so never served,
synced or saved into HTML. A file that cannot be read is ignored (the PDF is extracted again).
The files of PDFs no longer in the wiki are removed (pdf-text.ts: at start, and when a PDF is
deleted or changed).
\*/
import fs from 'node:fs';
import path from 'node:path';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { writeFileAtomic } from './atomic-file';

export const PDF_TEXT_FOLDER = 'pdf-text';

export function createPdfTextFileStore(stateDir: string): Agent.PdfTextStore {
  const folder = path.join(stateDir, PDF_TEXT_FOLDER);
  const fileOf = (key: string) => {
    if (!/^[a-z0-9.]{1,80}$/.test(key)) throw new Error(`not a PDF text key: ${key}`);
    return path.join(folder, `${key}.json`);
  };
  return {
    async load(key) {
      try {
        const kept = JSON.parse(await fs.promises.readFile(fileOf(key), 'utf8'));
        const pages = kept?.pages;
        if (Array.isArray(pages) && pages.every((page: unknown) => typeof page === 'string')) return { pages };
        if (typeof kept?.problem === 'string') return { problem: kept.problem };
        return undefined;
      } catch {
        return undefined;
      }
    },
    async save(key, document) {
      writeFileAtomic(fileOf(key), JSON.stringify(document));
    },
    async keys() {
      const names = await fs.promises.readdir(folder).catch(() => [] as string[]);
      return names.filter((name) => /^[a-z0-9.]{1,80}\.json$/.test(name)).map((name) => name.slice(0, -'.json'.length));
    },
    async remove(key) {
      await fs.promises.rm(fileOf(key), { force: true });
    },
  };
}
