/*\
The server edition's text index store: the ranked search index in `agent-state/text-index.bin`
beside the wiki (git-ignored with the rest of agent-state/; search/saved-text-index.ts says what
it holds), written atomically so a kill leaves the old index or the new one. It is never a
tiddler, so never served or saved into HTML. What it holds is checked against the tiddlers when
it is loaded (runner/host/text-index-host.ts).
\*/
import fs from 'node:fs';
import path from 'node:path';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { writeFileAtomic } from './atomic-file';

export const TEXT_INDEX_FILE = 'text-index.bin';
/** What earlier versions kept (MiniSearch's JSON): removed when met, as it is never read again. */
const OLD_TEXT_INDEX_FILE = 'text-index.json';

export function createTextIndexFileStore(stateDir: string): Agent.TextIndexStore {
  const file = path.join(stateDir, TEXT_INDEX_FILE);
  return {
    where: path.join(path.basename(stateDir), TEXT_INDEX_FILE),
    load() {
      fs.rmSync(path.join(stateDir, OLD_TEXT_INDEX_FILE), { force: true });
      try {
        return fs.readFileSync(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async save(data) {
      fs.mkdirSync(stateDir, { recursive: true });
      writeFileAtomic(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    },
  };
}
