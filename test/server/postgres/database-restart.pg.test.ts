/**
 * The database goes away under two running instances: HTTP answers 503 with a JSON error, SMTP 451, the
 * instances keep running and recover by themselves once it is back. Restarted in the middle of a load
 * whose senders retry as an MTA does: in the end every message is acknowledged and stored exactly once.
 * These tests stop their own cluster, so they start one of their own (not the run's shared one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { duplicates, sendLoad } from '../../harness/mail-load';
import { createDatabase, findPostgresBin, restartServer, socketUrl, startCluster, startServer, stopCluster, stopServer, type ClusterInfo } from '../../harness/postgres/cluster';
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
  it('while down: 503 JSON and SMTP 451, serve keeps running; back up: both recover by themselves', async () => {
    const { a, b } = await pair();
    const box = await newSession(a.baseUrl);
    stopServer(own);
    try {
      const res = await call(a.baseUrl, '/check-mail', { query: { token: box.token } });
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ status: 'error', error: 'storage_unavailable' });
      expect(res.headers.get('retry-after')).toBe('30');
      const created = await call(b.baseUrl, '/create-session', { form: {} });
      expect(created.status).toBe(503);
      expect(created.json).toMatchObject({ status: 'error', error: 'storage_unavailable' });
      const health = await call(b.baseUrl, '/health');
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({ storage: 'failing' });
      const smtp = await openSmtp(b);
      await smtp.command('EHLO x');
      await smtp.command('MAIL FROM:<a@example.org>');
      expect(await smtp.command(`RCPT TO:<${box.email}>`)).toMatch(/^451 4\.3\.0 /);
      smtp.destroy();
      expect(a.child.exitCode).toBeNull();
      expect(b.child.exitCode).toBeNull();
    } finally {
      startServer(own);
    }
    for (const target of [a, b]) {
      await waitFor(async () => (await call(target.baseUrl, '/check-mail', { query: { token: box.token } })).status === 200, {
        timeoutMs: 15_000,
        message: 'the instance to serve again',
      });
      expect((await call(target.baseUrl, '/health')).json).toMatchObject({ status: 'success', storage: 'ok' });
    }
    expect(a.stderr()).toMatch(/storage failing: /);
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
    const stored = ((await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as { subject: string }[]).map((m) => m.subject);
    expect(duplicates(stored)).toEqual([]);
    expect(stored.sort()).toEqual([...result.sent].sort());
    expect(result.failedTries).toBeGreaterThan(0);
    console.log(`database restart mid-load: ${count} messages, ${result.failedTries} tries answered 4xx or cut and retried; ${stored.length} stored, 0 lost, 0 twice`);
  });
});
