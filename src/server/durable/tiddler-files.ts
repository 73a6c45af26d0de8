/*\
Tiddler files written the way TiddlyWiki's filesystem adaptor writes them (a .tid file, a
JSON file, or a body file plus a .meta file), but each file atomically (atomic-file.ts).
A body + .meta pair is two files: the .meta is renamed into place first, so a new tiddler
killed half-way has only an orphan .meta, which TiddlyWiki ignores. Pairs written by the
runner are further covered by the durable store's intent record (durable-store.ts).
\*/
import fs from 'node:fs';
import { writeTemp } from './atomic-file';

export interface FileInfo {
  filepath: string;
  type: string;
  hasMetaFile?: boolean;
  encoding?: string;
}

interface Tiddler {
  fields: Record<string, unknown>;
  getFieldStringBlock(options: { exclude: string[] }): string;
  getFieldStrings(options?: { exclude: string[] }): Record<string, string>;
}

export function saveTiddlerFileAtomic(tiddler: Tiddler, fileInfo: FileInfo): FileInfo {
  const text = String(tiddler.fields.text ?? '');
  if (fileInfo.hasMetaFile) {
    const typeInfo = $tw.config.contentTypeInfo[String(tiddler.fields.type || 'text/plain')] || { encoding: 'utf8' };
    const meta = writeTemp(`${fileInfo.filepath}.meta`, tiddler.getFieldStringBlock({ exclude: ['text', 'bag'] }));
    const body = writeTemp(fileInfo.filepath, Buffer.from(text, typeInfo.encoding as BufferEncoding));
    fs.renameSync(meta, `${fileInfo.filepath}.meta`);
    fs.renameSync(body, fileInfo.filepath);
  } else if (fileInfo.type === 'application/x-tiddler') {
    const content = tiddler.getFieldStringBlock({ exclude: ['text', 'bag'] }) + (text ? `\n\n${text}` : '');
    fs.renameSync(writeTemp(fileInfo.filepath, content), fileInfo.filepath);
  } else {
    const content = JSON.stringify([tiddler.getFieldStrings({ exclude: ['bag'] })], null, ($tw.config.preferences as { jsonSpaces?: number }).jsonSpaces);
    fs.renameSync(writeTemp(fileInfo.filepath, content), fileInfo.filepath);
  }
  return fileInfo;
}

export function deleteTiddlerFiles(fileInfo: FileInfo | undefined): void {
  if (!fileInfo?.filepath) return;
  fs.rmSync(fileInfo.filepath, { force: true });
  if (fileInfo.hasMetaFile) fs.rmSync(`${fileInfo.filepath}.meta`, { force: true });
}

/**
 * Replace TiddlyWiki's tiddler file writers ($tw.utils.saveTiddlerToFile and its Sync twin)
 * with the atomic ones, for every save on this server (the syncer's too). The callback is
 * called at once: the write is synchronous, so no two writes of one file interleave.
 */
export function installAtomicTiddlerWrites(): void {
  const utils = $tw.utils as unknown as Record<string, unknown>;
  if (utils.tiddlyAgentAtomic) return;
  utils.tiddlyAgentAtomic = true;
  utils.saveTiddlerToFile = (tiddler: Tiddler, fileInfo: FileInfo, callback: (err: Error | null, info?: FileInfo) => void) => {
    let saved: FileInfo;
    try {
      saved = saveTiddlerFileAtomic(tiddler, fileInfo);
    } catch (e) {
      return callback(e as Error);
    }
    return callback(null, saved);
  };
  utils.saveTiddlerToFileSync = (tiddler: Tiddler, fileInfo: FileInfo) => saveTiddlerFileAtomic(tiddler, fileInfo);
}
