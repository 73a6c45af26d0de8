/*\
Crash-safe file writes: the new content goes to a temporary file beside the target, is
flushed to disk, and is renamed over the target, so a process killed at any moment leaves
the old file or the new one, never a truncated one. TiddlyWiki's filesystem adaptor writes
tiddler files in place (fs.writeFile); the server plugin replaces its writer with this one.
Temporary names start with "." and end in ".swp", which TiddlyWiki skips when it loads a
wiki folder, so one left behind by a kill is never taken for a tiddler.
\*/
import fs from 'node:fs';
import path from 'node:path';

export function tempPathFor(filepath: string): string {
  return path.join(path.dirname(filepath), `.${path.basename(filepath)}.${process.pid}.tiddlyagent.swp`);
}

/** Write `content` to a temporary file and flush it; returns the temporary path. */
export function writeTemp(filepath: string, content: string | Buffer, encoding: BufferEncoding = 'utf8'): string {
  fs.mkdirSync(path.dirname(filepath), { recursive: true });
  const temp = tempPathFor(filepath);
  const fd = fs.openSync(temp, 'w');
  try {
    if (typeof content === 'string') fs.writeSync(fd, content, null, encoding);
    else fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return temp;
}

export function writeFileAtomic(filepath: string, content: string | Buffer, encoding: BufferEncoding = 'utf8'): void {
  fs.renameSync(writeTemp(filepath, content, encoding), filepath);
}

/** Temporary files a killed process left in a folder tree. */
export function removeStaleTemps(dir: string): number {
  let removed = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) removed += removeStaleTemps(full);
    else if (entry.name.endsWith('.tiddlyagent.swp')) {
      fs.rmSync(full, { force: true });
      removed++;
    }
  }
  return removed;
}
