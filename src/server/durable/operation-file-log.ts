/*\
The server's operation log: one JSON line per change of an operation's status, appended and
flushed to disk before the operation goes on (so a send is on disk before its request is
answered). A line cut off by a kill is skipped. At start-up the log tells which operations
had not finished; it is then rewritten with only those, and again whenever it grows past
`maxBytes`, so it stays small.
\*/
import fs from 'node:fs';
import path from 'node:path';
import type { Operation, OperationLog } from '$:/plugins/tiddlyagent/agent/lib.js';
import { writeFileAtomic } from './atomic-file';

const FINISHED = ['done', 'failed', 'canceled'];

export class OperationFileLog implements OperationLog {
  private readonly open = new Map<string, Operation>();
  private readonly previous = new Map<string, Operation>();
  private fd: number;
  private bytes = 0;

  constructor(
    readonly file: string,
    private readonly maxBytes = 1_000_000,
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const last = new Map<string, Operation>();
    if (fs.existsSync(file)) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const op = JSON.parse(line) as Operation;
          if (op && typeof op.id === 'string') last.set(op.id, op);
        } catch {
          // the last line of a log cut off by a kill
        }
      }
    }
    for (const op of last.values()) if (!FINISHED.includes(op.status)) this.previous.set(op.id, op);
    this.fd = this.rewrite([...this.previous.values()]);
  }

  write(op: Operation): void {
    if (FINISHED.includes(op.status)) {
      this.open.delete(op.id);
      this.previous.delete(op.id);
    } else this.open.set(op.id, { ...op });
    const line = `${JSON.stringify(op)}\n`;
    fs.writeSync(this.fd, line);
    fs.fsyncSync(this.fd);
    this.bytes += Buffer.byteLength(line);
    if (this.bytes > this.maxBytes) {
      fs.closeSync(this.fd);
      this.fd = this.rewrite([...this.previous.values(), ...this.open.values()]);
    }
  }

  unfinished(): Operation[] {
    return [...this.previous.values()];
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private rewrite(ops: Operation[]): number {
    const text = ops.map((op) => `${JSON.stringify(op)}\n`).join('');
    writeFileAtomic(this.file, text);
    this.bytes = Buffer.byteLength(text);
    return fs.openSync(this.file, 'a');
  }
}
