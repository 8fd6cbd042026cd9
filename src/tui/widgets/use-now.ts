/**
 * A ticking clock for countdowns: re-renders only the component that asks, once per period, on the
 * clock's whole periods. Countdowns floor (src/platform/time.ts), so their shown second changes exactly when
 * the clock passes a whole second (expiry times on the wire are whole seconds); a ticker started at
 * x.999 s and ticking every 1000 ms from there would show a value one second high for most of each second.
 * A count of whole minutes to an expiry turns on the expiry's own minute, not the clock's: `phaseMs` (the
 * expiry time) moves the boundaries to every `periodMs` before and after it.
 */
import { useEffect, useState } from 'react';

// Never sooner than this: a clock frozen just before a boundary (a test's) must not spin the timer.
const MIN_WAIT_MS = 20;

/** Milliseconds since the epoch from `clock`, refreshed just after each time `phaseMs` + k * `periodMs`. */
export function useNow(clock: () => number, periodMs = 1000, phaseMs = 0): number {
  const [now, setNow] = useState(clock);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const schedule = (at: number) => {
      const intoPeriod = (((at - phaseMs) % periodMs) + periodMs) % periodMs;
      // 1 ms past the boundary: at the whole second itself `expires - now` is still exactly N s.
      timer = setTimeout(tick, Math.max(MIN_WAIT_MS, periodMs - intoPeriod + 1));
    };
    const tick = () => {
      const at = clock();
      setNow(at);
      schedule(at);
    };
    // No tick now: the first render read the clock a moment ago, and an extra render right after the
    // first frame would hold the next real change back by Ink's render throttle.
    schedule(clock());
    return () => clearTimeout(timer);
  }, [clock, periodMs, phaseMs]);
  return now;
}
