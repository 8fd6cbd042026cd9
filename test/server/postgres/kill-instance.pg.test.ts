/**
 * kill -9 of one instance while mail flows through two: every message acknowledged (250) by either is
 * stored, none twice, and the other instance keeps serving SMTP and HTTP throughout. Each message gets
 * one try here, so "stored" and "acknowledged" can be compared one for one.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { duplicates, sendLoad } from '../../harness/mail-load';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const COUNT = 240;

describe('kill -9 of one of two instances under load', () => {
  it('loses no acknowledged message, stores none twice, and the other keeps serving', async () => {
    const { url } = await freshDatabase(cleanup);
    const [a, b] = await Promise.all([startInstance(cleanup, url, ['--inbox-limit', '10000']), startInstance(cleanup, url, ['--inbox-limit', '10000'])]);
    const box = await newSession(a!.baseUrl);
    let killedAt: number | undefined;
    // HTTP on B is asked all along: it must answer every time.
    let polls = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const res = await call(b!.baseUrl, '/check-mail', { query: { token: box.token } });
        expect(res.status).toBe(200);
        polls++;
      }
    })();
    const load = sendLoad([a!, b!], {
      to: box.email,
      count: COUNT,
      concurrency: 8,
      onAck: (acked) => {
        if (killedAt === undefined && acked >= COUNT / 3) {
          killedAt = acked;
          a!.child.kill('SIGKILL');
        }
      },
    });
    const result = await load;
    polling = false;
    await poller;
    expect(killedAt).toBeDefined();
    expect((await a!.exited).signal).toBe('SIGKILL');

    const stored = ((await call(b!.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as { subject: string }[]).map((m) => m.subject);
    const storedSet = new Set(stored);
    const lost = [...result.acked.keys()].filter((s) => !storedSet.has(s));
    expect(lost).toEqual([]);
    expect(duplicates(stored)).toEqual([]);
    // B answered every message sent to it: only messages sent to A failed (refused after the kill, or cut mid-DATA).
    expect([...result.failed.values()].filter((f) => f.target !== 0)).toEqual([]);
    const viaB = [...result.acked.values()].filter((t) => t === 1).length;
    expect(viaB + [...result.acked.values()].filter((t) => t === 0).length + result.failed.size).toBe(COUNT);
    expect(polls).toBeGreaterThan(0);
    // B is still fine afterwards.
    await waitFor(async () => (await call(b!.baseUrl, '/health')).status === 200);
    console.log(
      `kill -9: A killed after ${killedAt} acks; ${result.acked.size} acknowledged (${viaB} via B), ${result.failed.size} not; ` +
        `${stored.length} stored, 0 lost, 0 twice; B answered ${polls} check-mail polls meanwhile`,
    );
  });
});
