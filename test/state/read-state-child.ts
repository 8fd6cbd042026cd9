/**
 * A second process for the read-state concurrency test: marks `count` messages (ids from `first`) read,
 * one save each, on one shared address in the store in `dir`, as fast as it can.
 */
import { openReadState } from '../../src/state/read-state';

const [dir, first, count] = process.argv.slice(2);
const store = openReadState({ dir });
const expiresAt = new Date(Date.now() + 3_600_000);
for (let i = 0; i < Number(count); i++)
  store.save('http://127.0.0.1:8025/', 'shared@x.test', expiresAt, [String(Number(first) + i)]);
