/**
 * The storage cap on Postgres, one instance: the burst of issue 36 (ten transactions at DATA together,
 * five recipients, 50 KB each) against a cap of 12 messages stores two transactions, not ten.
 */
import { describe, expect, it } from 'vitest';
import { capBurst } from '../../harness/cap-burst';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase } from '../../harness/postgres/database';
import { startTestService } from '../../harness/service';

const cleanup = cleanupAfterEach();

describe('the storage cap on Postgres', () => {
  it('keeps a burst of transactions within --max-stored-messages on one instance', async () => {
    const { url } = await freshDatabase(cleanup);
    const svc = cleanup.defer(
      await startTestService({ databaseUrl: url, maxStoredMessages: 12, storageUsageIntervalMs: 60_000 }),
      (s) => s.close(),
    );
    expect(await capBurst(svc)).toEqual({ stored: 2, listed: 10 });
  });
});
