/**
 * Closing the mail notices while their connection listens (postgres/mail-notices.ts): close() ends the
 * connection, which then emits 'end', and the notices' own handler released it a second time: pg-pool
 * throws on that, outside any promise, and the process died (seen when the bench closed a store it had
 * seeded). Whoever comes first now releases it, once.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

describe('mail notices on Postgres', () => {
  it('close while listening ends the connection once, with no uncaught error', async () => {
    const { url } = await freshDatabase(cleanup);
    const store = cleanup.defer(new PostgresStore({ url }), (s) => s.close());
    await store.open();
    const admin = inspect(cleanup, url);
    const listening = async () =>
      Number(
        (
          await admin.query(
            "select count(*) as n from pg_stat_activity where datname = current_database() and query like 'LISTEN tempmail%'",
          )
        ).rows[0].n,
      );
    const notices = store.listenForMail({ onMail: () => undefined, onGap: () => undefined });
    await waitFor(async () => (await listening()) === 1, { message: 'the notices listening' });
    await notices.close();
    // The connection's 'end' comes after close() has returned; the second release threw then, uncaught,
    // which vitest reports as an error of the run (checked: "Release called on client which has already
    // been released to the pool" before the fix).
    await waitFor(async () => (await listening()) === 0, { message: 'the listening connection gone' });
    expect(await listening()).toBe(0);
  });
});
