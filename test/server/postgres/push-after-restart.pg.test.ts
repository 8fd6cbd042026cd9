/**
 * Push between instances comes back promptly after the database does: a client holds GET /events on A,
 * the database is away for an outage of some seconds, and once it is back a message delivered through
 * B's SMTP port reaches A's client. A listens again within about a second of the database's return
 * (its retries are at most a second apart while it is down), not after a backoff grown to many seconds.
 * The outage is this test's input (how long the database stays stopped), not a wait for a result.
 * The test stops its own cluster, so it starts one of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { call, newSession } from '../../harness/http';
import {
  createDatabase,
  findPostgresBin,
  socketUrl,
  startCluster,
  startServer,
  stopCluster,
  stopServer,
  type ClusterInfo,
} from '../../harness/postgres/cluster';
import { startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
let own: ClusterInfo;

beforeAll(async () => {
  own = await startCluster(findPostgresBin()!);
}, 60_000);
afterAll(() => own && stopCluster(own));

/** How long the database stays stopped: long enough that a retry delay doubling from 0.5 s reaches 8 s. */
const OUTAGE_MS = 8000;

describe('push between instances after the database comes back', () => {
  it('a message delivered through B after a database outage reaches a GET /events client on A', async () => {
    const url = socketUrl(own, createDatabase(own, 'push'));
    const [a, b] = (await Promise.all([startInstance(cleanup, url), startInstance(cleanup, url)])) as [
      Awaited<ReturnType<typeof startInstance>>,
      Awaited<ReturnType<typeof startInstance>>,
    ];
    const box = await newSession(a.baseUrl);
    const stream = cleanup.defer(
      await openEvents(a.baseUrl, { headers: { authorization: `Bearer ${box.token}` } }),
      (s) => s.close(),
    );
    expect(stream.status).toBe(200);
    const before = a.stderr().length;
    stopServer(own);
    try {
      await waitFor(() => a.stderr().slice(before).includes('database connection of the mail notices lost'), {
        message: 'A to see its listening connection lost',
      });
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    } finally {
      startServer(own);
    }
    const back = Date.now();
    // B stores the message once its own connections are back (an MTA would retry a 4xx the same way).
    const heard = stream.events().length;
    await waitFor(
      async () => {
        try {
          return (await sendMail(b, { to: box.email, subject: 'after the outage' })).response.startsWith('250');
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, message: 'B to store mail again' },
    );
    const stored = Date.now();
    // A tells its client: by the notice of B's delivery, or by its own "mail may have come" on listening
    // again. Either way within a few seconds; the failure timeout is not a claim on how fast.
    await waitFor(() => stream.events().length > heard, {
      timeoutMs: 5000,
      message: `an event on A's stream after B stored the message; A's log: ${a.stderr().slice(before)}`,
    });
    const told = Date.now();
    const listening = a.stderr().slice(before).includes('mail notices: listening again');
    console.log(
      `push after a ${OUTAGE_MS / 1000} s database outage: B stored ${stored - back} ms after the database was back, A's client told ${told - back} ms after it (A listening again: ${listening})`,
    );
    const listed = await call(a.baseUrl, '/check-mail', { query: { token: box.token } });
    expect((listed.json!.messages as { subject: string }[]).map((m) => m.subject)).toEqual(['after the outage']);
    expect(stream.events().every((e) => e === 'mail')).toBe(true);
  });
});
