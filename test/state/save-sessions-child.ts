/**
 * A second process for the saved-sessions concurrency test: saves `count` sessions named
 * `<tag>-<i>@example.test` into the store in `dir` as fast as it can.
 */
import { openSavedSessions } from '../../src/state/saved-sessions';

const [dir, tag, count] = process.argv.slice(2);
const store = openSavedSessions({ dir });
const expiresAt = new Date(Date.now() + 3_600_000);
for (let i = 0; i < Number(count); i++) {
  store.save({ email: `${tag}-${i}@example.test`, token: `tok-${tag}-${i}`, expiresAt }, 'http://127.0.0.1:9/');
}
