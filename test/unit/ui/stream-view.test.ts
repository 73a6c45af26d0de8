// The streaming bubble's two seams that need no DOM: the render throttle (at most one render
// per interval, whatever the rate of the deltas, driven here by a fake clock) and the
// incremental settled-length scanner (the same answer as a scan of the whole text).
import fc from 'fast-check';
import { SettledScanner, settledLength } from '../../../src/agent/ui/settled';
import type { Clock } from '../../../src/agent/clock';
import { STREAM_RENDER_INTERVAL_MS, Throttle } from '../../../src/agent/ui/stream-view';

/** A clock whose time moves only when the test says so; timers fire in time order. */
function fakeClock() {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id) => void timers.delete(id as number),
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return { clock, advance, pending: () => timers.size };
}

describe('Throttle', () => {
  test('100 requests a second run it at most 10 times a second, the first at once', () => {
    const { clock, advance } = fakeClock();
    const runs: number[] = [];
    const throttle = new Throttle(() => runs.push(clock.now()), STREAM_RENDER_INTERVAL_MS, clock);
    for (let i = 0; i < 300; i++) {
      throttle.request();
      advance(10);
    }
    advance(1000);
    expect(runs[0]).toBe(0);
    expect(runs.length).toBeLessThanOrEqual(31);
    expect(runs.length).toBeGreaterThanOrEqual(29);
    for (let i = 1; i < runs.length; i++) expect(runs[i]! - runs[i - 1]!).toBeGreaterThanOrEqual(STREAM_RENDER_INTERVAL_MS);
  });

  test('requests while a run waits share it; a request after a quiet spell runs at once', () => {
    const { clock, advance, pending } = fakeClock();
    let runs = 0;
    const throttle = new Throttle(() => runs++, 100, clock);
    throttle.request();
    advance(0);
    expect(runs).toBe(1);
    throttle.request();
    throttle.request();
    throttle.request();
    expect(pending()).toBe(1);
    advance(99);
    expect(runs).toBe(1);
    advance(1);
    expect(runs).toBe(2);
    advance(500);
    throttle.request();
    advance(0);
    expect(runs).toBe(3);
  });

  test('cancel drops the waiting run', () => {
    const { clock, advance, pending } = fakeClock();
    let runs = 0;
    const throttle = new Throttle(() => runs++, 100, clock);
    throttle.request();
    advance(0);
    throttle.request();
    expect(throttle.pending).toBe(true);
    throttle.cancel();
    expect(pending()).toBe(0);
    advance(1000);
    expect(runs).toBe(1);
  });
});

describe('SettledScanner', () => {
  test('scanning a growing text chunk by chunk gives the whole-text answer at every step', () => {
    const pieces = fc.constantFrom('word ', 'more text', '\n', '\n\n', '```', '```js\n', '  \n', '* item\n', "''bold''");
    fc.assert(
      fc.property(fc.array(fc.array(pieces, { maxLength: 6 }), { maxLength: 30 }), (chunks) => {
        const scanner = new SettledScanner();
        let text = '';
        for (const chunk of chunks) {
          text += chunk.join('');
          expect(scanner.scan(text)).toBe(settledLength(text));
        }
      }),
    );
  });

  test('each scan reads only what it has not seen whole', () => {
    const scanner = new SettledScanner();
    let text = 'Intro.\n\n';
    expect(scanner.scan(text)).toBe(8);
    text += 'A line without an end';
    expect(scanner.scan(text)).toBe(8);
    text += ' yet.\n\nNext';
    expect(text.slice(0, scanner.scan(text))).toBe('Intro.\n\nA line without an end yet.\n\n');
  });

  test('a text that is not a continuation starts the scan again', () => {
    const scanner = new SettledScanner();
    expect(scanner.scan('One.\n\nTwo.\n\n')).toBe(12);
    expect(scanner.scan('New.\n\n')).toBe(6);
  });
});
