/*\
The server edition's VectorStore: the semantic index in `agent-state/vectors.bin` beside the
wiki (git-ignored with the rest of agent-state/), written atomically so a kill leaves the old
index or the new one. It is never a tiddler, so never served or saved into HTML.
\*/
import fs from 'node:fs';
import path from 'node:path';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { writeFileAtomic } from './atomic-file';

export const VECTOR_FILE = 'vectors.bin';

export function createVectorFileStore(stateDir: string): Agent.VectorStore {
  const file = path.join(stateDir, VECTOR_FILE);
  return {
    where: path.join(path.basename(stateDir), VECTOR_FILE),
    async load() {
      try {
        return new Uint8Array(await fs.promises.readFile(file));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async save(blob) {
      writeFileAtomic(file, Buffer.from(blob));
    },
  };
}
