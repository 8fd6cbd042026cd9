import { describe, expect, it } from 'vitest';
import { SchemaTooNewError, SWEEP_LOCK } from '../../../src/server/store/postgres/schema/migrations';
import { MIGRATIONS } from '../../../src/server/store/postgres/schema/schema';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import type { Store } from '../../../src/server/store/store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { runStoreAdminSuite } from './store-admin-suite';
import { newMessage, runStoreSuite, sessionRecord, type StoreHarness } from './store-suite';

const cleanup = cleanupAfterEach();

async function postgresHarness(): Promise<StoreHarness> {
  const { url } = await freshDatabase(cleanup);
  const open = async () => {
    const store = new PostgresStore({ url, poolSize: 4 });
    await store.open();
    return store;
  };
  const twins: Store[] = [];
  const harness: StoreHarness = {
    store: await open(),
    async reopen() {
      await harness.store.close();
      harness.store = await open();
      return harness.store;
    },
    async twin() {
      const twin = await open();
      twins.push(twin);
      return twin;
    },
    async cleanup() {
      for (const twin of twins) await twin.close();
      await harness.store.close();
    },
  };
  return harness;
}

runStoreSuite('PostgresStore', postgresHarness, { shared: true });
runStoreAdminSuite('PostgresStore', postgresHarness, { shared: true });

describe('PostgresStore on the database', () => {
  it('is migrated once when several instances open a fresh database at the same moment', async () => {
    const { url } = await freshDatabase(cleanup);
    const lines: string[] = [];
    const stores = Array.from({ length: 4 }, () => new PostgresStore({ url, poolSize: 2, log: (l) => lines.push(l) }));
    await Promise.all(stores.map((s) => s.open()));
    for (const s of stores) cleanup.defer(s, (x) => x.close());
    expect(lines.filter((l) => l.includes('migrated'))).toEqual([
      `database schema migrated to version ${MIGRATIONS.length}`,
    ]);
    const pool = inspect(cleanup, url);
    const { rows } = await pool.query('SELECT version FROM tempmail_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('migrates a database of an earlier version in place, keeping what it holds', async () => {
    const { url } = await freshDatabase(cleanup);
    const first = new PostgresStore({ url });
    await first.open();
    await undoMigration8(inspect(cleanup, url));
    await first.putFetchCursor('a@ext.test', 'INBOX', { uidValidity: 7, lastUid: 41 });
    const s = sessionRecord();
    await first.putSession(s);
    await first.addMessage(s.id, newMessage({ subject: 'from before' }));
    for (let i = 0; i < 2; i++) await first.addMessage(s.id, newMessage());
    await first.deleteMessage(s.id, 2);
    await first.close();
    // Back to the schema before migrations 3 to 6, as an earlier tempmail-tui left it.
    const pool = inspect(cleanup, url);
    await undoMigration6(pool);
    await pool.query('DROP FUNCTION tempmail_rate_hit');
    await pool.query('ALTER TABLE tempmail_create_hits SET LOGGED');
    await pool.query('ALTER TABLE tempmail_fetch_cursors DROP COLUMN renumbered_at');
    await pool.query('ALTER TABLE tempmail_messages DROP COLUMN client_ip, DROP COLUMN envelope_from');
    await pool.query('DROP TABLE tempmail_blocks');
    await pool.query('DELETE FROM tempmail_migrations WHERE version >= 3');
    const lines: string[] = [];
    const store = cleanup.defer(new PostgresStore({ url, log: (l) => lines.push(l) }), (x) => x.close());
    await store.open();
    expect(lines.filter((l) => l.includes('migrated'))).toEqual([
      `database schema migrated to version ${MIGRATIONS.length}`,
    ]);
    expect(await store.getFetchCursor('a@ext.test', 'INBOX')).toEqual({ uidValidity: 7, lastUid: 41 });
    await store.putFetchCursor('a@ext.test', 'INBOX', { uidValidity: 8, lastUid: 0, renumberedAt: 5000 });
    expect(await store.getFetchCursor('a@ext.test', 'INBOX')).toEqual({
      uidValidity: 8,
      lastUid: 0,
      renumberedAt: 5000,
    });
    // Migration 4: the per-client hits are counted by one function, in a table that writes no WAL.
    expect(await store.hitRateLimit('http 192.0.2.1', 1000, { limit: 1, windowMs: 60_000 })).toBe(0);
    expect(await store.hitRateLimit('http 192.0.2.1', 2000, { limit: 1, windowMs: 60_000 })).toBe(59);
    const kind = await pool.query("SELECT relpersistence FROM pg_class WHERE relname = 'tempmail_create_hits'");
    expect(kind.rows[0].relpersistence).toBe('u');
    // A message stored before version 5 keeps everything and says nothing of where it came from.
    const [before] = await store.listMessages(s.id);
    expect(before).toMatchObject({ id: 1, subject: 'from before' });
    expect(before).not.toHaveProperty('clientIp');
    expect(await store.listBlocks()).toEqual([]);
    // Migration 6: each session's count is taken from the messages it holds, and kept from then on.
    expect(await store.countMessages(s.id)).toBe(2);
    expect(await store.inboxVersion(s.id)).toBe('3.2');
    // Migration 8: the ids handed out before are kept; the next comes from the clock, above them.
    expect((await store.deliver([s.id], newMessage(), 3)).stored.get(s.id)!.id).toBeGreaterThan(3);
    expect((await store.deliver([s.id], newMessage(), 3)).full).toEqual([s.id]);
  });

  it('migrates a database at version 5 (where each message came from) to 6 (counts, batches) and on, keeping both', async () => {
    const { url } = await freshDatabase(cleanup);
    const first = new PostgresStore({ url });
    await first.open();
    await undoMigration8(inspect(cleanup, url));
    const s = sessionRecord();
    await first.putSession(s);
    await first.putBlock({ kind: 'ip', value: '198.51.100.0/24', createdAt: 1000 });
    for (let i = 0; i < 3; i++)
      await first.addMessage(s.id, newMessage({ clientIp: '192.0.2.7', envelopeFrom: 'bounce@example.org' }));
    await first.deleteMessage(s.id, 1);
    await first.close();
    // Back to version 5 as a tempmail-tui with the admin API but without group commit left it.
    const pool = inspect(cleanup, url);
    await undoMigration6(pool);
    await pool.query('DELETE FROM tempmail_migrations WHERE version >= 6');
    const lines: string[] = [];
    const store = cleanup.defer(new PostgresStore({ url, log: (l) => lines.push(l) }), (x) => x.close());
    await store.open();
    expect(lines.filter((l) => l.includes('migrated'))).toEqual([
      `database schema migrated to version ${MIGRATIONS.length}`,
    ]);
    expect(await store.countMessages(s.id)).toBe(2);
    // Migration 7 counted what was stored (the storage cap's totals).
    expect(await store.usage()).toEqual({ messages: 2, bytes: 2 * newMessage().raw.length });
    expect(await store.inboxVersion(s.id)).toBe('3.2');
    expect((await store.listMessages(s.id)).map((m) => [m.id, m.clientIp, m.envelopeFrom])).toEqual([
      [2, '192.0.2.7', 'bounce@example.org'],
      [3, '192.0.2.7', 'bounce@example.org'],
    ]);
    expect(await store.listBlocks()).toEqual([{ kind: 'ip', value: '198.51.100.0/24', createdAt: 1000 }]);
    const next = await store.deliver([s.id], newMessage({ clientIp: '2001:db8::1', envelopeFrom: '' }), 3);
    expect(next.stored.get(s.id)).toMatchObject({ clientIp: '2001:db8::1', envelopeFrom: '' });
    expect(next.stored.get(s.id)!.id).toBeGreaterThan(3);
    expect((await store.deliver([s.id], newMessage(), 3)).full).toEqual([s.id]);
    expect(await store.findMessages({ clientIp: '2001:db8::/32' }, 10)).toHaveLength(1);
  });

  it('refuses a database migrated by a newer tempmail-tui', async () => {
    const { url } = await freshDatabase(cleanup);
    const first = new PostgresStore({ url });
    await first.open();
    await first.close();
    const pool = inspect(cleanup, url);
    await pool.query("INSERT INTO tempmail_migrations (version, name) VALUES (99, 'from the future')");
    await expect(new PostgresStore({ url }).open()).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('sweeps one instance at a time: a sweep while another holds the lock removes nothing', async () => {
    const { url } = await freshDatabase(cleanup);
    const store = cleanup.defer(new PostgresStore({ url }), (s) => s.close());
    await store.open();
    const gone = sessionRecord({ expiresAt: 1000 });
    await store.putSession(gone);
    const other = await inspect(cleanup, url).connect();
    await other.query('SELECT pg_advisory_lock($1)', [SWEEP_LOCK]);
    expect(await store.purgeExpired(2000)).toBe(0);
    expect(await store.getSession(gone.id)).toBeDefined();
    await other.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
    other.release();
    expect(await store.purgeExpired(2000)).toBe(1);
    expect(await store.getSession(gone.id)).toBeUndefined();
  });

  it('keeps a NUL and a lone surrogate in a subject (text columns could not)', async () => {
    const { url } = await freshDatabase(cleanup);
    const store = cleanup.defer(new PostgresStore({ url }), (s) => s.close());
    await store.open();
    const s = sessionRecord();
    await store.putSession(s);
    const subject = 'a\u0000b \ud800 c \\u0000 "q"';
    const { id } = await store.addMessage(
      s.id,
      newMessage({ subject, senderName: '\u0000', headers: { 'X-A': '\u0000\ud83d' } }),
    );
    const [meta] = await store.listMessages(s.id);
    expect(meta!.subject).toBe(subject);
    expect((await store.getMessage(s.id, id))!.headers).toEqual({ 'X-A': '\u0000\ud83d' });
  });
});

/**
 * Takes migration 8 (message ids from the clock) out of a database no message was stored in yet, as an
 * earlier tempmail-tui left it: integer ids counted 1, 2, 3... by migrations 6 and 7's functions.
 */
async function undoMigration8(pool: ReturnType<typeof inspect>): Promise<void> {
  const fromSql = (sql: string) =>
    sql.slice(sql.indexOf('CREATE FUNCTION tempmail_deliver_batch'), sql.lastIndexOf('$fn$;') + 5);
  await pool.query('DROP FUNCTION tempmail_deliver_batch(text[], integer[], integer[])');
  await pool.query('DROP FUNCTION tempmail_deliver_batch(text[], integer[], integer[], bigint[], bigint[], integer[])');
  await pool.query('ALTER TABLE tempmail_sessions ALTER COLUMN last_message_id TYPE integer');
  await pool.query('ALTER TABLE tempmail_messages ALTER COLUMN id TYPE integer');
  await pool.query(fromSql(MIGRATIONS[5]!.sql));
  await pool.query(fromSql(MIGRATIONS[6]!.sql));
  await pool.query('DELETE FROM tempmail_migrations WHERE version >= 8');
}

/** Takes migration 6 (message counts, group commit) out of a database's schema, as before it existed. */
async function undoMigration6(pool: ReturnType<typeof inspect>): Promise<void> {
  await undoMigration7(pool);
  await pool.query('DROP TRIGGER tempmail_messages_counted_in ON tempmail_messages');
  await pool.query('DROP TRIGGER tempmail_messages_counted_out ON tempmail_messages');
  await pool.query('DROP FUNCTION tempmail_count_messages');
  await pool.query('DROP FUNCTION tempmail_deliver_batch(text[], integer[], integer[])');
  await pool.query('ALTER TABLE tempmail_deliveries DROP COLUMN decided');
  await pool.query('ALTER TABLE tempmail_sessions DROP COLUMN message_count');
}

/** Back to the schema before migration 7 (the totals for the storage cap). */
async function undoMigration7(pool: ReturnType<typeof inspect>): Promise<void> {
  await pool.query('DROP FUNCTION tempmail_deliver_batch(text[], integer[], integer[], bigint[], bigint[], integer[])');
  await pool.query('DROP TABLE tempmail_usage');
}
