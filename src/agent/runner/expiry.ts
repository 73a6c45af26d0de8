/*\
Confirmations that expire: a chat waiting for the user has one timer, set to the earliest
deadline of its waiting calls (runner/services/decisions.ts nextExpiry), so a confirmation nobody
answers is denied in time even when nobody looks at the chat. When it fires, the chat's turn
goes on (`resume`); a renamed chat's timer follows it.
\*/

export class ExpiryTimers {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    /** The earliest deadline of the chat's waiting calls (ms since 1970), if any. */
    private readonly nextExpiry: (chat: string) => number | undefined,
    /** A deadline passed. */
    private readonly expired: (chat: string) => void,
    private readonly now: () => number,
  ) {}

  schedule(chat: string): void {
    this.clear(chat);
    const expiry = this.nextExpiry(chat);
    if (expiry === undefined) return;
    this.timers.set(
      chat,
      setTimeout(
        () => {
          this.timers.delete(chat);
          this.expired(chat);
        },
        Math.max(0, expiry - this.now()),
      ),
    );
  }

  clear(chat: string): void {
    clearTimeout(this.timers.get(chat));
    this.timers.delete(chat);
  }

  move(chat: string, to: string): void {
    if (!this.timers.has(chat)) return;
    this.clear(chat);
    this.schedule(to);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
