/**
 * kill -9 of one instance while mail flows through two: every message acknowledged (250) by either is
 * stored, none twice, and the other instance keeps serving SMTP and HTTP throughout. Each message gets
 * one try here, so "stored" and "acknowledged" can be compared one for one. The mail goes to three
 * addresses at once, so each instance has several batches in the database when the kill lands (one per
 * set of sessions, postgres/delivery/delivery-queue.ts), and each inbox must hold its mail in the order it was
 * acknowledged on each connection.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { duplicates, sendLoad, type LoadResult } from '../../harness/mail-load';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const COUNT = 240;
const BOXES = 3;

describe('kill -9 of one of two instances under load', () => {
  it('loses no acknowledged message, stores none twice, and the other keeps serving', async () => {
    const { url } = await freshDatabase(cleanup);
    // The poller below asks B back to back for the whole test: the per-client HTTP rate (1,200 a minute by
    // default) is off, or a fast run would meet it and hear 429, which is not what this test is about.
    const args = ['--inbox-limit', '10000', '--http-requests-per-minute', '0'];
    const [a, b] = await Promise.all([startInstance(cleanup, url, args), startInstance(cleanup, url, args)]);
    const boxes = [];
    for (let i = 0; i < BOXES; i++) boxes.push(await newSession(a!.baseUrl));
    let killedAt: number | undefined;
    let acked = 0;
    // HTTP on B is asked all along: it must answer every time.
    let polls = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const res = await call(b!.baseUrl, '/check-mail', { query: { token: boxes[polls % BOXES]!.token } });
        expect(res.status).toBe(200);
        polls++;
      }
    })();
    const results: LoadResult[] = await Promise.all(
      boxes.map((box, i) =>
        sendLoad([a!, b!], {
          to: box.email,
          count: COUNT / BOXES,
          concurrency: 4,
          prefix: `box${i}`,
          onAck: () => {
            acked++;
            if (killedAt === undefined && acked >= COUNT / 3) {
              killedAt = acked;
              a!.child.kill('SIGKILL');
            }
          },
        }),
      ),
    );
    polling = false;
    await poller;
    expect(killedAt).toBeDefined();
    expect((await a!.exited).signal).toBe('SIGKILL');

    let storedAll = 0;
    let ackedAll = 0;
    let viaB = 0;
    for (const [i, box] of boxes.entries()) {
      const result = results[i]!;
      const listed = (await call(b!.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as {
        id: number;
        subject: string;
      }[];
      const stored = listed.map((m) => m.subject);
      const storedSet = new Set(stored);
      expect(
        [...result.acked.keys()].filter((s) => !storedSet.has(s)),
        `box ${i}: acknowledged, not stored`,
      ).toEqual([]);
      expect(duplicates(stored), `box ${i}: stored twice`).toEqual([]);
      // B answered every message sent to it: only messages sent to A failed (refused after the kill, or cut mid-DATA).
      expect([...result.failed.values()].filter((f) => f.target !== 0)).toEqual([]);
      const throughB = [...result.acked.values()].filter((t) => t === 1).length;
      expect(throughB + [...result.acked.values()].filter((t) => t === 0).length + result.failed.size).toBe(
        COUNT / BOXES,
      );
      // Acknowledged in this order on one connection, so stored in this order: ids rise with the sends.
      const idOf = new Map(listed.map((m) => [m.subject, m.id]));
      for (const order of result.ackOrder) {
        const ids = order.map((subject) => idOf.get(subject)!);
        expect(ids, `box ${i}: ids of one sender in the order of its 250s`).toEqual([...ids].sort((x, y) => x - y));
      }
      storedAll += stored.length;
      ackedAll += result.acked.size;
      viaB += throughB;
    }
    expect(polls).toBeGreaterThan(0);
    // B is still fine afterwards.
    await waitFor(async () => (await call(b!.baseUrl, '/health')).status === 200);
    console.log(
      `kill -9: A killed after ${killedAt} acks; ${ackedAll} acknowledged (${viaB} via B) into ${BOXES} inboxes; ` +
        `${storedAll} stored, 0 lost, 0 twice; B answered ${polls} check-mail polls meanwhile`,
    );
  });
});
