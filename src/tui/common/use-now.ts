/** A ticking clock for countdowns: re-renders only the component that asks, once per period. */
import { useEffect, useState } from 'react';

/** Milliseconds since the epoch from `clock`, refreshed every `periodMs`. */
export function useNow(clock: () => number, periodMs = 1000): number {
  const [now, setNow] = useState(clock);
  useEffect(() => {
    const timer = setInterval(() => setNow(clock()), periodMs);
    return () => clearInterval(timer);
  }, [clock, periodMs]);
  return now;
}
