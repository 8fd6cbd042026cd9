/**
 * One of several processes that meet a lock left by a dead process at the same moment: for each round
 * r, waits for `dir/go-r`, marks message `<first + r>` read (in the store in `dir/state`), then writes
 * `dir/done-r-<first>`.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openReadState } from '../../../src/state/read-state';

const [dir, first, rounds] = process.argv.slice(2) as [string, string, string];
const store = openReadState({ dir: join(dir, 'state') });
const expiresAt = new Date(Date.now() + 3_600_000);
const cell = new Int32Array(new SharedArrayBuffer(4));
for (let r = 0; r < Number(rounds); r++) {
  // A short poll, so every process sees the go at nearly the same moment (the race is microseconds wide).
  while (!existsSync(join(dir, `go-${r}`))) Atomics.wait(cell, 0, 0, 0.2);
  store.save('http://127.0.0.1:8025/', 'shared@x.test', expiresAt, [String(Number(first) + r)]);
  writeFileSync(join(dir, `done-${r}-${first}`), '');
}
