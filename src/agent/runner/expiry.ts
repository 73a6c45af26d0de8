/*\
Waits that run out: a chat waiting for the user has one timer, set to the earliest deadline of
its waiting calls (runner/services/turn-unattended.ts waitDeadline: a confirmation's
`approval-expires`, and in a turn no user started every waiting call's `unattended-expires`),
so it runs out in time even when nobody looks at the chat. When it fires, the chat's turn goes
on with the expired confirmations denied or, when no user started it, ends (`resume`); a
renamed chat's timer follows it. Timers come from an injected clock.
\*/
import { systemClock, type Clock } from '../clock';

export class ExpiryTimers {
  private readonly timers = new Map<string, unknown>();

  constructor(
    /** The earliest deadline of the chat's waiting calls (ms since 1970), if any. */
    private readonly nextExpiry: (chat: string) => number | undefined,
    /** A deadline passed. */
    private readonly expired: (chat: string) => void,
    private readonly clock: Clock = systemClock,
  ) {}

  schedule(chat: string): void {
    this.clear(chat);
    const expiry = this.nextExpiry(chat);
    if (expiry === undefined) return;
    this.timers.set(
      chat,
      this.clock.setTimeout(
        () => {
          this.timers.delete(chat);
          this.expired(chat);
        },
        Math.max(0, expiry - this.clock.now()),
      ),
    );
  }

  clear(chat: string): void {
    if (this.timers.has(chat)) this.clock.clearTimeout(this.timers.get(chat));
    this.timers.delete(chat);
  }

  move(chat: string, to: string): void {
    if (!this.timers.has(chat)) return;
    this.clear(chat);
    this.schedule(to);
  }

  dispose(): void {
    for (const timer of this.timers.values()) this.clock.clearTimeout(timer);
    this.timers.clear();
  }
}
