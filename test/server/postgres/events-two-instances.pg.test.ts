/**
 * GET /events across instances: two built `serve` processes on one database, a stream held on A, mail
 * delivered through B's SMTP port. B's delivery reaches A's stream by Postgres LISTEN/NOTIFY; when A's
 * listening connection is cut, A listens again and tells every stream that mail may have come; a session
 * deleted through A's admin API ends its stream on B, and so does one whose deletion B could not hear
 * (once B listens again).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { call, newSession } from '../../harness/http';
import { freshDatabase, inspect, startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

async function pair() {
  const { url } = await freshDatabase(cleanup);
  const [a, b] = await Promise.all([startInstance(cleanup, url), startInstance(cleanup, url)]);
  return { url, a: a!, b: b! };
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('GET /events with two instances on one database', () => {
  it("tells a stream on A of mail delivered through B's SMTP port, and only its own session's", async () => {
    const { url, a, b } = await pair();
    const [box, other] = [await newSession(a.baseUrl), await newSession(b.baseUrl)];
    const stream = cleanup.defer(await openEvents(a.baseUrl, bearer(box.token)), (s) => s.close());
    expect(stream.status).toBe(200);
    await bothListening(inspect(cleanup, url));
    await sendMail(b, { to: other.email, subject: 'for the other one' });
    const sent = Date.now();
    const info = await sendMail(b, { to: box.email, subject: 'through B' });
    const acknowledged = Date.now();
    expect(info.response).toMatch(/^250 /);
    await stream.waitForEvent('mail', 1, 5000);
    // Said for the record (no assertion on time): from B's 250 to A's event.
    console.log(
      `events across instances: "mail" on A ${Date.now() - acknowledged} ms after B's 250 (${acknowledged - sent} ms of SMTP)`,
    );
    expect(stream.events()).toEqual(['mail']);
    // Mail delivered through A itself is said once, not twice (its own notice is skipped).
    await sendMail(a, { to: box.email, subject: 'through A' });
    await stream.waitForEvent('mail', 2);
    await sendMail(b, { to: box.email, subject: 'through B again' });
    await stream.waitForEvent('mail', 3);
    expect(stream.events()).toEqual(['mail', 'mail', 'mail']);
  });

  it("listens again when A's listening connection is cut, and tells A's streams that mail may have come", async () => {
    const { url, a, b } = await pair();
    const box = await newSession(a.baseUrl);
    const stream = cleanup.defer(await openEvents(a.baseUrl, bearer(box.token)), (s) => s.close());
    const pool = inspect(cleanup, url);
    const listeners = await bothListening(pool);
    const before = a.stderr().length;
    await pool.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [listeners.map((r) => r.pid)]);
    await waitFor(() => a.stderr().slice(before).includes('mail notices: listening again'), {
      timeoutMs: 10_000,
      message: 'A to listen again',
    });
    // The gap is said to the stream; after it, news flows again.
    await stream.waitForEvent('mail', 1);
    await sendMail(b, { to: box.email, subject: 'after the gap' });
    await stream.waitForEvent('mail', 2);
    expect(a.stderr()).toContain('database connection of the mail notices lost');
  });

  it("ends a session's stream on B when A's admin API deletes the session, and no other stream", async () => {
    const { url } = await freshDatabase(cleanup);
    const tokenFile = join(await cleanup.tempDir('tempmail-pg-events-admin-'), 'token');
    const adminToken = 'pg-events-admin-token-0123456789';
    await writeFile(tokenFile, adminToken, { mode: 0o600 });
    const [a, b] = await Promise.all([
      startInstance(cleanup, url, ['--admin-token-file', tokenFile]),
      startInstance(cleanup, url),
    ]);
    const [box, other] = [await newSession(b!.baseUrl), await newSession(b!.baseUrl)];
    const stream = cleanup.defer(await openEvents(b!.baseUrl, bearer(box.token)), (s) => s.close());
    const kept = cleanup.defer(await openEvents(b!.baseUrl, bearer(other.token)), (s) => s.close());
    expect([stream.status, kept.status]).toEqual([200, 200]);
    // B must be listening when the deletion's notice goes out (a missed one is the next test's case).
    await bothListening(inspect(cleanup, url));
    const admin = (path: string, form: Record<string, string>) =>
      call(a!.baseUrl, path, { form, headers: { authorization: `Bearer ${adminToken}` } });
    const [found] = (
      await call(a!.baseUrl, '/admin/sessions', {
        query: { recipient: box.email },
        headers: { authorization: `Bearer ${adminToken}` },
      })
    ).json!.sessions;
    expect(found).toMatchObject({ email: box.email });
    expect((await admin('/admin/delete-session', { session_id: found.id })).status).toBe(200);
    // B hears of the deletion by its notice and ends the stream cleanly; the client is told nothing more.
    expect(await withTimeout(stream.ended, 5000)).toBe('end');
    expect(stream.events()).toEqual([]);
    // The other session's stream on B is still open and still told of its mail.
    await sendMail(b!, { to: other.email, subject: 'still here' });
    await kept.waitForEvent('mail', 1);
  });

  it('ends the stream of a session deleted while its notice could not be heard, once B listens again', async () => {
    const { url, b } = await pair();
    const [box, other] = [await newSession(b.baseUrl), await newSession(b.baseUrl)];
    const stream = cleanup.defer(await openEvents(b.baseUrl, bearer(box.token)), (s) => s.close());
    const kept = cleanup.defer(await openEvents(b.baseUrl, bearer(other.token)), (s) => s.close());
    const pool = inspect(cleanup, url);
    const listeners = await bothListening(pool);
    // Deleted without a notice: as if it had been sent while B's listening connection was down.
    const { rowCount } = await pool.query('DELETE FROM tempmail_sessions WHERE email = $1', [box.email]);
    expect(rowCount).toBe(1);
    const before = b.stderr().length;
    await pool.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [listeners.map((r) => r.pid)]);
    await waitFor(() => b.stderr().slice(before).includes('mail notices: listening again'), {
      timeoutMs: 10_000,
      message: 'B to listen again',
    });
    // B looked its watched sessions up again: the deleted one's stream ends, the other's stays.
    expect(await withTimeout(stream.ended, 5000)).toBe('end');
    await kept.waitForEvent('mail', 1);
    await sendMail(b, { to: other.email, subject: 'still here' });
    await kept.waitForEvent('mail', 2);
  });
});

/** Waits until both instances listen for notices; their listening connections' pids. */
function bothListening(pool: ReturnType<typeof inspect>) {
  return waitFor(
    async () => {
      const { rows } = await pool.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN tempmail_mail%'",
      );
      return rows.length === 2 ? rows : undefined;
    },
    { message: 'both instances listening' },
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'timed out'>((done) => {
    timer = setTimeout(() => done('timed out'), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
