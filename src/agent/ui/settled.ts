/*\
How much of a streaming reply is settled: everything up to its last blank line outside a
code block. The settled part renders once; only the rest re-renders as text arrives, so an
update costs the same early and late in a long reply. The scanner resumes at the first line
it has not seen whole, so each update scans only the new text, not the whole reply again.
\*/

const FENCE = /^\s*```/;

export class SettledScanner {
  /** Where the first incomplete line starts: everything before it has been scanned. */
  private scanned = 0;
  private inFence = false;
  private settled = 0;

  /** The settled length of `text`, which must extend the text of the previous call. */
  scan(text: string): number {
    if (text.length < this.scanned) {
      // Not a continuation: start again.
      this.scanned = this.settled = 0;
      this.inFence = false;
    }
    let lineStart = this.scanned;
    for (;;) {
      const end = text.indexOf('\n', lineStart);
      if (end < 0) break;
      const line = text.slice(lineStart, end);
      if (FENCE.test(line)) this.inFence = !this.inFence;
      else if (!this.inFence && lineStart > 0 && line.trim() === '') this.settled = end + 1;
      lineStart = end + 1;
    }
    this.scanned = lineStart;
    return this.settled;
  }
}

export function settledLength(text: string): number {
  return new SettledScanner().scan(text);
}
