/**
 * A window that stops while it holds a lock (a slow disk, SIGSTOP): takes the lock of `name` in `dir`,
 * says "held" on stdout, keeps it `ms` milliseconds without writing anything, then releases it.
 */
import { withFileLock } from '../../../src/state/file-lock';

const [dir, name, ms] = process.argv.slice(2);
const cell = new Int32Array(new SharedArrayBuffer(4));
withFileLock(dir!, name!, () => {
  process.stdout.write('held\n');
  Atomics.wait(cell, 0, 0, Number(ms));
});
