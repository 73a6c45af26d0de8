/*\
The server edition's text index store: the ranked search index in `agent-state/text-index.json`
beside the wiki (git-ignored with the rest of agent-state/), written atomically so a kill leaves
the old index or the new one. It is never a tiddler, so never served or saved into HTML. What it
holds is checked against the tiddlers when it is loaded (runner/host/text-index-host.ts).
\*/
import fs from 'node:fs';
import path from 'node:path';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { writeFileAtomic } from './atomic-file';

export const TEXT_INDEX_FILE = 'text-index.json';
const READ_AT_ONCE_BYTES = 16 * 1024 * 1024;

export function createTextIndexFileStore(stateDir: string): Agent.TextIndexStore {
  const file = path.join(stateDir, TEXT_INDEX_FILE);
  return {
    where: path.join(path.basename(stateDir), TEXT_INDEX_FILE),
    async load() {
      try {
        // A small index is read at once, so it is in use before the server's first request.
        if (fs.statSync(file).size <= READ_AT_ONCE_BYTES) return fs.readFileSync(file, 'utf8');
        return await fs.promises.readFile(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async save(data) {
      fs.mkdirSync(stateDir, { recursive: true });
      writeFileAtomic(file, data);
    },
  };
}
