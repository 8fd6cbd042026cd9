/**
 * Loaded into the built program with `node --import` for the documentation's screen captures
 * (test/e2e/capture.ts): the wall clock starts at a fixed instant and runs a thousand times slower, so
 * every time the program shows (the countdown, "last checked", a message's time) comes out the same in
 * every capture, however long the machine takes. Monotonic and still moving, so code that waits for
 * the clock to pass a point gets there; timers (setTimeout, setInterval) are not touched and run at
 * their real pace. Only `Date` changes: `Date.now()`, `new Date()` and `Date()`.
 */
const RealDate = Date;
/** 2026-05-14 09:41:00 UTC. */
export const FIXED_INSTANT = RealDate.UTC(2026, 4, 14, 9, 41, 0);
const SLOWER = 1000;
// Half a second in: a time rounded to seconds (up, down or to the nearest) never sits on a boundary, so
// it comes out the same whether the program reads the clock one real second after its start or forty.
const START = FIXED_INSTANT + 500;
const start = performance.now();
const now = () => START + Math.floor((performance.now() - start) / SLOWER);

function FixedDate(...args) {
  if (!new.target) return new RealDate(now()).toString();
  return Reflect.construct(
    RealDate,
    args.length === 0 ? [now()] : args,
    new.target === FixedDate ? RealDate : new.target,
  );
}
Object.setPrototypeOf(FixedDate, RealDate);
FixedDate.prototype = RealDate.prototype;
FixedDate.now = now;
globalThis.Date = FixedDate;
