/**
 * A process using a pacing file in `dir` (provider `name`, 1000 starts a second): `hang` says "held" on
 * stdout from inside its first turn (the clock is read under the lock) and stays there until killed;
 * `race <n>` starts n calls at once on a clock standing at T0, then exits.
 */
import { createFilePacer } from '../../../../src/client/pacing/pacing-file';

const [dir, name, mode, count] = process.argv.slice(2) as [string, string, string, string?];
export const T0 = 1_700_000_000_000;
const cell = new Int32Array(new SharedArrayBuffer(4));

if (mode === 'hang') {
  const now = () => {
    process.stdout.write('held\n');
    for (;;) Atomics.wait(cell, 0, 0, 60_000);
  };
  void createFilePacer(dir, name, 1000, { now }).run(async () => undefined);
} else {
  // A bound far above any wait here: what is tested is that no two turns are taken at once.
  const pacer = createFilePacer(dir, name, 1000, { now: () => T0, lockWaitMs: 30_000 });
  await Promise.all(Array.from({ length: Number(count) }, () => pacer.run(async () => undefined)));
}
