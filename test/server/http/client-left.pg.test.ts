/**
 * Clients that leave while their request still waits on the database (the per-client rate, held here by
 * another connection's lock on the client's key): each request still ends in the log and the metrics, and
 * what it would have taken (an event stream's place) is not kept. Real Postgres, real HTTP, raw sockets.
 */
import net from 'node:net';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { newSession } from '../../harness/http';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { startTestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

/** Sends `request` on a fresh connection and resolves once it is written; reset() then cuts it (RST). */
async function sendAndHold(port: number, from: string, request: string): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  await new Promise<void>((resolve) => socket.write(request, () => resolve()));
  return socket;
}

const CLIENTS = [2, 3, 4, 5, 6, 7].map((n) => `127.0.0.${n}`);

/**
 * Six clients (127.0.0.2-7, each counted under a key of its own) ask GET /events while `hold` keeps their
 * requests waiting in the database, and reset their connections there; then `release` lets the database go.
 */
async function leaveWhileWaiting(
  hold: (db: pg.PoolClient) => Promise<void>,
  release: (db: pg.PoolClient) => Promise<void>,
  waitingOn: string,
) {
  const { url } = await freshDatabase(cleanup);
  const svc = cleanup.defer(await startTestService({ databaseUrl: url, eventStreamsPerSession: 2 }), (s) => s.close());
  const box = await newSession(svc.baseUrl);
  const port = Number(new URL(svc.baseUrl).port);
  const db = inspect(cleanup, url);
  const holder = await db.connect();
  cleanup.defer(holder, (c) => c.release());
  await hold(holder);
  const before = svc.ops.stats().http.requests;
  const sockets: net.Socket[] = [];
  for (const client of CLIENTS)
    sockets.push(await sendAndHold(port, client, `GET /events?token=${box.token} HTTP/1.1\r\nHost: x\r\n\r\n`));
  const waiting = async () =>
    Number(
      (
        await db.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [
          `%${waitingOn}%`,
        ])
      ).rows[0].n,
    );
  await waitFor(async () => (await waiting()) === CLIENTS.length, { message: 'six requests waiting in the database' });
  for (const socket of sockets) socket.resetAndDestroy();
  // The clients are gone (the service saw their connections close) before the database lets them on.
  await waitFor(() => svc.ops.stats().http.connectionsOpen === 0, { message: 'the connections closed' });
  await release(holder);
  await waitFor(() => svc.ops.stats().http.requests - before === CLIENTS.length, {
    message: 'the six requests counted in the metrics',
  });
  await waitFor(
    () => svc.logs.filter((l) => l.includes('http GET /events 499 client_left')).length === CLIENTS.length,
    { message: 'the six requests logged' },
  );
  // The session's two places are free: two streams open now.
  for (let i = 0; i < 2; i++) {
    const stream = cleanup.defer(await openEvents(svc.baseUrl, { query: { token: box.token } }), (s) => s.close());
    expect(stream.status).toBe(200);
  }
}

describe('a client that leaves while its request waits on Postgres', () => {
  it('while the rate table is locked: is logged and counted (499), and holds no event stream', async () => {
    await leaveWhileWaiting(
      async (db) => {
        for (const client of CLIENTS) await db.query('SELECT pg_advisory_lock(7239, hashtext($1))', [`http ${client}`]);
      },
      async (db) => void (await db.query('SELECT pg_advisory_unlock_all()')),
      'tempmail_rate_hit',
    );
  });

  it('while the session lookup waits: is logged and counted (499), and holds no event stream', async () => {
    await leaveWhileWaiting(
      async (db) => void (await db.query('BEGIN; LOCK TABLE tempmail_sessions IN ACCESS EXCLUSIVE MODE')),
      async (db) => void (await db.query('COMMIT')),
      'tempmail_sessions',
    );
  });
});
