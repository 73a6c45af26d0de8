/*\
Time and timers, injected so tests can drive them without waiting (the scheduler, the
stream view's throttle); `coalesced` makes the asks for a run that come before it one run.
\*/
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * `fn` as one run at the next turn of `schedule` (a zero timeout, an animation frame), however
 * often it is asked for before then.
 */
export function coalesced(schedule: (run: () => void) => void, fn: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    schedule(() => {
      pending = false;
      fn();
    });
  };
}
