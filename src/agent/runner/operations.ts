/*\
Durable operations (seed 003): every send, queued send, approval decision, answer, retry,
edit-and-resend, switch between a chat's branches, compaction and rename is an operation, written to an OperationLog before it runs and at each change of its status
(queued -> running -> done | failed | canceled). The queue runs them one at a time per chat,
in order, whoever submitted them. The server's log is a file, so after a restart every
unfinished operation is known and can be failed (runner/local-runner.ts, restore); a
browser's log lives as long as the page.
\*/
import type { ValidCommand } from './commands';

/** The commands that wait in a chat's queue (runner/services/), and `resume`: a turn going on after its confirmations expired. */
export type QueuedCommand =
  | ValidCommand<'send' | 'decide' | 'answer' | 'retry' | 'edit' | 'switch-branch' | 'compact' | 'rename'>
  | { kind: 'resume'; chat: string };
export type OperationKind = QueuedCommand['kind'];
export type OperationStatus = 'queued' | 'running' | 'done' | 'failed' | 'canceled';

/** A queued command as it is persisted: the command's fields, and where it stands. */
export type Operation = QueuedCommand & {
  id: string;
  status: OperationStatus;
  /** Milliseconds since 1970. */
  created: number;
  error?: string;
};

export const FINISHED: readonly OperationStatus[] = ['done', 'failed', 'canceled'];

export interface OperationLog {
  /** Persist an operation as it is now; returns once it is safe (the server: on disk). */
  write(op: Operation): void;
  /** Operations that had not finished when the log was last open (restart recovery). */
  unfinished(): Operation[];
}

/** A log that lasts as long as this page or process. */
export class MemoryOperationLog implements OperationLog {
  readonly entries = new Map<string, Operation>();
  write(op: Operation): void {
    if (FINISHED.includes(op.status)) this.entries.delete(op.id);
    else this.entries.set(op.id, { ...op });
  }
  unfinished(): Operation[] {
    return [...this.entries.values()];
  }
}

interface Entry<R> {
  op: Operation;
  resolve(result: R): void;
}

/**
 * Runs each chat's operations one at a time, in the order they were submitted. `execute`
 * does the work; its result settles the submitter's promise. An operation is persisted
 * (queued) before `submit` returns.
 */
export class OperationQueue<R> {
  private queues = new Map<string, Entry<R>[]>();
  private running = new Map<string, Operation>();
  /** Chats renamed by their running operation: its queue continues under the new title. */
  private moved = new Map<string, string>();
  private seq = 0;

  constructor(
    private readonly log: OperationLog,
    private readonly execute: (op: Operation) => Promise<{ result: R; status: OperationStatus; error?: string }>,
    private readonly changed: (chat: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  newId(): string {
    return `${this.now().toString(36)}-${(++this.seq).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  }

  submit(command: QueuedCommand): { op: Operation; done: Promise<R> } {
    const op: Operation = { ...command, id: this.newId(), status: 'queued', created: this.now() };
    this.log.write(op);
    let resolve!: (result: R) => void;
    const done = new Promise<R>((r) => (resolve = r));
    const queue = this.queues.get(op.chat) ?? [];
    queue.push({ op, resolve });
    this.queues.set(op.chat, queue);
    this.pump(op.chat);
    if (op.status === 'queued') this.changed(op.chat);
    return { op, done };
  }

  /** The operation running for a chat, if any. */
  current(chat: string): Operation | undefined {
    return this.running.get(chat);
  }

  /** Operations waiting behind the running one, in order. */
  waiting(chat: string): Operation[] {
    return (this.queues.get(chat) ?? []).map((e) => e.op);
  }

  /** Cancel what waits (not the running operation); each submitter gets `result`. */
  cancelWaiting(chat: string, result: R): Operation[] {
    const queue = this.queues.get(chat) ?? [];
    this.queues.delete(chat);
    for (const entry of queue) {
      this.finish(entry.op, 'canceled');
      entry.resolve(result);
    }
    if (queue.length) this.changed(chat);
    return queue.map((e) => e.op);
  }

  /**
   * The chat `from` is now called `to` (its running operation renamed it): what waits behind
   * it is carried over, rewritten in the log, and runs under the new title.
   */
  /** A chat renamed by its running operation: what waits behind it follows, and names its messages and images by their new titles. */
  move(from: string, to: string, renamed: ReadonlyMap<string, string> = new Map()): void {
    const queue = this.queues.get(from) ?? [];
    this.queues.delete(from);
    const title = (t: string) => renamed.get(t) ?? t;
    for (const entry of queue) {
      const op = entry.op;
      op.chat = to;
      if ('message' in op) op.message = title(op.message);
      if (op.kind === 'send' && op.attachments) op.attachments = op.attachments.map(title);
      this.log.write(op);
    }
    if (queue.length) this.queues.set(to, [...queue, ...(this.queues.get(to) ?? [])]);
    const op = this.running.get(from);
    // Nothing starts under the new title before the renaming operation has finished.
    if (op) this.running.set(to, op);
    this.moved.set(from, to);
  }

  private finish(op: Operation, status: OperationStatus, error?: string): void {
    op.status = status;
    if (error) op.error = error;
    this.log.write(op);
  }

  private pump(chat: string): void {
    if (this.running.has(chat)) return;
    const queue = this.queues.get(chat);
    const entry = queue?.shift();
    if (!queue?.length) this.queues.delete(chat);
    if (!entry) return;
    const { op } = entry;
    this.running.set(chat, op);
    op.status = 'running';
    this.log.write(op);
    this.changed(chat);
    void this.execute(op)
      .then(
        (outcome) => outcome,
        (e: unknown) => ({ result: undefined as R, status: 'failed' as const, error: e instanceof Error ? e.message : String(e) }),
      )
      .then(({ result, status, error }) => {
        this.finish(op, status, error);
        const next = this.moved.get(chat) ?? chat;
        this.moved.delete(chat);
        this.running.delete(chat);
        this.running.delete(next);
        entry.resolve(result);
        this.changed(next);
        this.pump(next);
      });
  }
}
