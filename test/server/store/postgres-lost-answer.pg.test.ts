/**
 * A batch of deliveries whose answer never arrives (postgres/delivery/deliver.ts). The store reaches the database
 * through a TCP relay in this test that passes everything until the batch's statement goes by, then
 * keeps the database's answers from the store and cuts both connections when told: the statement has
 * run (or not) as the database saw it, and the store must find out which before it answers. Committed:
 * the deliveries resolve with what the batch decided (so SMTP says 250, and a retry stores nothing
 * twice); not committed: they reject (SMTP says 451, and the retry stores the message once).
 */
import { createServer, connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { TCP_PASSWORD, TCP_USER } from '../../harness/postgres/cluster';
import { cluster, freshDatabase, inspect } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

/** A relay to the cluster's TCP port that holds back a connection's answers once a batch statement has passed on it. */
async function relay() {
  const sockets = new Set<Socket>();
  let seen!: () => void;
  const batchSent = new Promise<void>((resolve) => (seen = resolve));
  const server = createServer((client) => {
    const upstream = connect(cluster().port, '127.0.0.1');
    // Only the connection that carried the batch: the store's next connections (asking what became of
    // it) pass as usual.
    let holding = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (chunk.includes('tempmail_deliver_batch')) {
        holding = true;
        seen();
      }
    });
    upstream.on('data', (chunk: Buffer) => void (holding || client.write(chunk)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.defer(server, (s) => new Promise<void>((resolve) => s.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    batchSent,
    /** Cuts every connection relayed so far (the one holding back answers among them). */
    cut: () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}

async function setUp() {
  const { name, url } = await freshDatabase(cleanup);
  // Migrated and filled directly: only the store under test goes through the relay.
  const direct = cleanup.defer(new PostgresStore({ url }), (s) => s.close());
  await direct.open();
  const s = sessionRecord();
  await direct.putSession(s);
  const r = await relay();
  const relayed = `postgres://${TCP_USER}:${TCP_PASSWORD}@127.0.0.1:${r.port}/${name}`;
  const store = cleanup.defer(new PostgresStore({ url: relayed, poolSize: 1, commitCheckMs: 20_000 }), (x) =>
    x.close(),
  );
  await store.open();
  return { s, r, store, direct, db: inspect(cleanup, url) };
}

describe('a batch whose answer is lost', () => {
  it('committed: resolves with what the batch decided, stored once', async () => {
    const { s, r, store, direct, db } = await setUp();
    const outcome = store.deliver([s.id, 'gone'], newMessage({ subject: 'kept' }), 10);
    await r.batchSent;
    // The database has committed the batch (its record is there); its answer is still held back.
    await waitFor(async () => (await db.query('SELECT count(*)::int AS n FROM tempmail_deliveries')).rows[0].n === 1);
    r.cut();
    const delivered = await outcome;
    expect([...delivered.stored.keys()]).toEqual([s.id]);
    expect(delivered.stored.get(s.id)).toMatchObject({ subject: 'kept' });
    expect((await store.listMessages(s.id)).map((m) => m.id)).toEqual([delivered.stored.get(s.id)!.id]);
    expect(delivered.gone).toEqual(['gone']);
    expect((await direct.listMessages(s.id)).map((m) => m.subject)).toEqual(['kept']);
  });

  it('not committed: rejects, and nothing is stored', async () => {
    const { s, r, store, direct, db } = await setUp();
    // Another transaction holds the session's row: the batch waits for it, uncommitted.
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tempmail_sessions WHERE id = $1 FOR UPDATE', [s.id]);
    const outcome = store.deliver([s.id], newMessage({ subject: 'never' }), 10);
    const settled = outcome.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await r.batchSent;
    let waiting: number | undefined;
    await waitFor(async () => {
      const found = await db.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%tempmail_deliver_batch%'",
      );
      waiting = found.rows[0]?.pid;
      return waiting !== undefined;
    });
    // The database ends that backend (its transaction rolls back); the store hears nothing of it.
    await db.query('SELECT pg_terminate_backend($1)', [waiting]);
    r.cut();
    expect(await settled).toBeInstanceOf(Error);
    await holder.query('ROLLBACK');
    holder.release();
    expect(await direct.listMessages(s.id)).toEqual([]);
    expect((await db.query('SELECT count(*)::int AS n FROM tempmail_deliveries')).rows[0].n).toBe(0);
  });
});
