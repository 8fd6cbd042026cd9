/**
 * The database goes away under two running instances: HTTP answers 503 with a JSON error that names no
 * internal address, /health and /ready say "unavailable", EHLO answers 421 (an SMTP health check moves
 * traffic away), the instances keep running, recover by themselves once it is back and say so in one
 * line. The outage's failures are folded in the log, not one line each. Restarted in the middle of a load
 * whose senders retry as an MTA does: in the end every message is acknowledged and stored exactly once.
 * These tests stop their own cluster, so they start one of their own (not the run's shared one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { duplicates, sendLoad } from '../../harness/mail-load';
import {
  createDatabase,
  findPostgresBin,
  restartServer,
  socketUrl,
  startCluster,
  startServer,
  stopCluster,
  stopServer,
  type ClusterInfo,
} from '../../harness/postgres/cluster';
import { startInstance } from '../../harness/postgres/database';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
let own: ClusterInfo;

beforeAll(async () => {
  own = await startCluster(findPostgresBin()!);
}, 60_000);
afterAll(() => own && stopCluster(own));

/** A running database with two instances on it. */
async function pair() {
  const url = socketUrl(own, createDatabase(own, 'restart'));
  const [a, b] = await Promise.all([startInstance(cleanup, url), startInstance(cleanup, url)]);
  return { a: a!, b: b! };
}

describe('the database down or restarting', () => {
  it('while down: 503 JSON without detail, /health and /ready 503, EHLO 421; back up: both recover by themselves and say so', async () => {
    const { a, b } = await pair();
    const box = await newSession(a.baseUrl);
    stopServer(own);
    try {
      const res = await call(a.baseUrl, '/check-mail', { query: { token: box.token } });
      expect(res.status).toBe(503);
      expect(res.json).toEqual({
        status: 'error',
        error: 'storage_unavailable',
        message: 'Mail storage is unavailable; try again later',
      });
      expect(res.headers.get('retry-after')).toBe('30');
      const created = await call(b.baseUrl, '/create-session', { form: {} });
      expect(created.status).toBe(503);
      expect(created.json).toMatchObject({ status: 'error', error: 'storage_unavailable' });
      // Nothing a client hears names the database: not its socket, its port, nor the driver's words.
      for (const answer of [res, created])
        expect(answer.bytes.toString()).not.toMatch(/ECONN|127\.0\.0\.1|\/tmp|\.s\.PGSQL|\d{4,5}\b/);
      for (const route of ['/health', '/ready']) {
        const health = await call(b.baseUrl, route);
        expect(health.status, route).toBe(503);
        expect(health.json).toEqual({ status: 'unavailable' });
      }
      // B knows its storage fails: EHLO hears 421 and the connection is closed.
      const smtp = await openSmtp(b);
      expect(await smtp.command('EHLO x')).toBe('421 4.3.0 Mail storage is unavailable, try again later');
      await smtp.closed;
      // A flood of requests while it is down: each is answered, each is counted in the log, but the
      // lines are folded (one, then one a second with the repeats), not one a request.
      const flood = 200;
      for (let i = 0; i < flood; i += 20) {
        const batch = await Promise.all(
          Array.from({ length: 20 }, () => call(a.baseUrl, '/check-mail', { query: { token: box.token } })),
        );
        expect(batch.every((r) => r.status === 503)).toBe(true);
      }
      const counted = () => {
        const lines = a
          .stderr()
          .split('\n')
          .filter((l) => l.includes('http GET /check-mail 503 storage_unavailable'));
        // A line with repeats=N stands for the N requests folded into it; a line without, for one.
        return {
          lines: lines.length,
          requests: lines.reduce((n, l) => n + Number(/repeats=(\d+)/.exec(l)?.[1] ?? 1), 0),
        };
      };
      await waitFor(() => counted().requests === flood + 1, { message: 'every 503 counted in the log' }).catch(
        (e: unknown) => {
          throw new Error(`${String(e)}: ${JSON.stringify(counted())}\n${a.stderr().slice(-4000)}`);
        },
      );
      expect(counted().lines).toBeLessThan(flood / 10);
      console.log(`database down: ${flood + 1} answers 503 took ${counted().lines} log lines`);
      expect(a.child.exitCode).toBeNull();
      expect(b.child.exitCode).toBeNull();
    } finally {
      startServer(own);
    }
    for (const target of [a, b]) {
      await waitFor(
        async () => (await call(target.baseUrl, '/check-mail', { query: { token: box.token } })).status === 200,
        {
          timeoutMs: 15_000,
          message: 'the instance to serve again',
        },
      );
      await waitFor(async () => (await call(target.baseUrl, '/ready')).status === 200, {
        timeoutMs: 10_000,
        message: '/ready 200 again',
      });
      expect((await call(target.baseUrl, '/health')).json).toEqual({ status: 'ok' });
      const smtp = await openSmtp(target);
      expect(await smtp.command('EHLO x')).toMatch(/^250/);
      smtp.destroy();
      // The reason is the log's, and so is the end of the outage.
      expect(target.stderr()).toMatch(/storage failing: /);
      expect(target.stderr()).toMatch(/storage is back after [\d.]+ s/);
    }
  });

  it('restarted mid-load: nothing acknowledged is lost and nothing is stored twice', async () => {
    const { a, b } = await pair();
    const box = await newSession(a.baseUrl);
    let restarted: Promise<void> | undefined;
    const count = 200;
    const load = sendLoad([a, b], {
      to: box.email,
      count,
      concurrency: 8,
      retries: 100,
      retryDelayMs: 100,
      onAck: (acked) => {
        // pg_ctl restart -m fast: open transactions rolled back, connections cut, then started again.
        if (!restarted && acked >= count / 4) restarted = restartServer(own);
      },
    });
    const result = await load;
    await restarted;
    expect(restarted).toBeDefined();
    expect([...result.failed.keys()]).toEqual([]);
    expect(result.acked.size).toBe(count);
    const stored = (
      (await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as { subject: string }[]
    ).map((m) => m.subject);
    expect(duplicates(stored)).toEqual([]);
    expect(stored.sort()).toEqual([...result.sent].sort());
    expect(result.failedTries).toBeGreaterThan(0);
    // The outage's failures are folded: a line for the first, then one a second carrying the count.
    const lines = `${a.stderr()}${b.stderr()}`.split('\n');
    const failing = lines.filter((l) => l.includes('storage failing: '));
    const failures = failing.reduce((n, l) => n + Number(/repeats=(\d+)/.exec(l)?.[1] ?? 1), 0);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThanOrEqual(failures);
    console.log(
      `database restart mid-load: ${count} messages, ${result.failedTries} tries answered 4xx or cut and retried; ${stored.length} stored, 0 lost, 0 twice; ` +
        `${lines.length} log lines in all, ${failing.length} of them for ${failures} storage failures`,
    );
  });
});
