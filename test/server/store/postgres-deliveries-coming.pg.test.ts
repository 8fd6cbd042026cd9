/**
 * Deliveries on their way (src/server/store/postgres/delivery/delivery-queue.ts, announce): while an SMTP client
 * of this instance is sending a message's body, a batch that could start waits for it, at most
 * gatherMs after its oldest delivery was queued, so the deliveries of several connections share one
 * COMMIT. With nothing on its way nothing waits. The stores here wait a minute unless the test is about
 * that bound: a delivery that went sooner went because what it waited for arrived (or never was).
 */
import { describe, expect, it } from 'vitest';
import type { BatchReport } from '../../../src/server/store/postgres/delivery/deliver';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { createMailService } from '../../../src/server/service/mail-service';
import { defaultServerConfig, type ServerConfig } from '../../../src/server/config/server-config';
import { createSmtpFront } from '../../../src/server/smtp/smtp-intake';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';
import { openSmtp, type SmtpDialog } from '../../harness/smtp-dialog';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

const MINUTE = 60_000;

async function openStore(gatherMs = MINUTE) {
  const { url } = await freshDatabase(cleanup);
  const batches: BatchReport[] = [];
  const store = cleanup.defer(
    new PostgresStore({ url, poolSize: 4, onBatch: (r) => batches.push(r), batch: { gatherMs } }),
    (s) => s.close(),
  );
  await store.open();
  const a = sessionRecord();
  const b = sessionRecord();
  await store.putSession(a);
  await store.putSession(b);
  return { store, batches, a, b };
}

/** Lets the loop turn twice: a batch that may start has started by then (the queue starts them on the next turn). */
const turns = async () => {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
};

const sizes = (batches: readonly BatchReport[]) => batches.map((b) => b.deliveries);

describe('deliveries on their way (Postgres)', () => {
  it('holds a batch for a delivery on its way and lets it go, together, when its body arrives', async () => {
    const { store, batches, a, b } = await openStore();
    const arrived = store.deliveryComing();
    const first = store.deliver([a.id], newMessage({ subject: 'first' }), 10);
    await turns();
    // Without the wait the first would be in the database now, and the second would go after it.
    const second = store.deliver([b.id], newMessage({ subject: 'second' }), 10);
    arrived();
    await Promise.all([first, second]);
    expect(sizes(batches)).toEqual([2]);
  });

  it('does not wait when nothing is on its way', async () => {
    const { store, batches, a } = await openStore();
    // A wait here would be a minute: longer than the test may take.
    await store.deliver([a.id], newMessage(), 10);
    expect(sizes(batches)).toEqual([1]);
  });

  it('waits gatherMs at most for a delivery that never comes; a second "arrived" changes nothing', async () => {
    const { store, batches, a, b } = await openStore(500);
    const never = store.deliveryComing();
    const first = store.deliver([a.id], newMessage({ subject: 'first' }), 10);
    await turns();
    // It waited (the second joins it) and went without the one announced.
    const second = store.deliver([b.id], newMessage({ subject: 'second' }), 10);
    await Promise.all([first, second]);
    expect(sizes(batches)).toEqual([2]);
    never();
    never();
    // Counted once: the next delivery on its way still holds a batch.
    const arrived = store.deliveryComing();
    const third = store.deliver([a.id], newMessage(), 10);
    await turns();
    const fourth = store.deliver([b.id], newMessage(), 10);
    arrived();
    await Promise.all([third, fourth]);
    expect(sizes(batches)).toEqual([2, 2]);
  });

  it('waits for what comes first: a batch that has ended does not keep the others to its minute', async () => {
    const { url } = await freshDatabase(cleanup);
    const batches: BatchReport[] = [];
    const store = cleanup.defer(
      new PostgresStore({ url, poolSize: 4, onBatch: (r) => batches.push(r), batch: { slowMs: MINUTE, gatherMs: 50 } }),
      (s) => s.close(),
    );
    await store.open();
    const a = sessionRecord();
    await store.putSession(a);
    const db = inspect(cleanup, url);
    // Another transaction holds a's row: the first batch waits in the database, "quick" for a minute.
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tempmail_sessions WHERE id = $1 FOR UPDATE', [a.id]);
    const first = store.deliver([a.id], newMessage({ subject: 'first' }), 10);
    await waitFor(
      async () =>
        (
          await db.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%tempmail_deliver_batch%'",
          )
        ).rowCount === 1,
    );
    // The second waits behind it, and for it to turn slow (a wait of a minute)...
    const second = store.deliver([a.id], newMessage({ subject: 'second' }), 10);
    const never = store.deliveryComing();
    await turns();
    await holder.query('ROLLBACK');
    holder.release();
    await first;
    // ...then, the first done, only for the delivery on its way: 50 ms, not what is left of the minute.
    await second;
    never();
    expect(sizes(batches)).toEqual([1, 1]);
  });
});

describe('SMTP bodies on their way (Postgres)', () => {
  /** The SMTP front over a mail service on the store: a and b are addresses it takes mail for. */
  async function openService() {
    const opened = await openStore();
    const config: ServerConfig = { ...defaultServerConfig({}), domains: ['tempmail.test'], maxMessageBytes: 10_000 };
    const smtp = cleanup.defer(createSmtpFront(createMailService({ store: opened.store, config }), config), (s) =>
      s.close(),
    );
    const target = { smtpHost: '127.0.0.1', smtpPort: await smtp.listen(0, '127.0.0.1') };
    /** A connection at DATA for `to`, its 354 heard: the service has announced the body by then. */
    const atData = async (to: string): Promise<SmtpDialog> => {
      const c = cleanup.defer(await openSmtp(target), (d) => d.destroy());
      expect(await c.command('EHLO coming.test')).toMatch(/^250/);
      expect(await c.command('MAIL FROM:<ann@example.org>')).toMatch(/^250/);
      expect(await c.command(`RCPT TO:<${to}>`)).toMatch(/^250/);
      expect(await c.command('DATA')).toMatch(/^354/);
      return c;
    };
    return { ...opened, atData };
  }

  it('holds a delivery for a body still arriving, and stores both in one batch when it ends', async () => {
    const { store, batches, a, b, atData } = await openService();
    const slow = await atData(a.email);
    slow.write('Subject: slow\r\n\r\nhalf of it');
    const other = store.deliver([b.id], newMessage({ subject: 'other' }), 10);
    await turns();
    // Plain mail reaches the store in the turn its body ends: it joins the delivery that waited for it.
    slow.write(' and the rest\r\n.\r\n');
    expect(await slow.reply()).toMatch(/^250 2\.0\.0 Ok: stored/);
    await other;
    expect(sizes(batches)).toEqual([2]);
    expect((await store.listMessages(a.id)).map((m) => m.subject)).toEqual(['slow']);
  });

  it('lets the others go at once when a body ends refused or its sender vanishes', async () => {
    const { store, batches, a, b, atData } = await openService();
    const tooBig = await atData(a.email);
    tooBig.write(`Subject: big\r\n\r\n${'x'.repeat(990)}\r\n`.repeat(2));
    const vanishing = await atData(a.email);
    vanishing.write('Subject: gone\r\n\r\nhalf');
    const other = store.deliver([b.id], newMessage({ subject: 'other' }), 10);
    await turns();
    tooBig.write(`${`${'x'.repeat(990)}\r\n`.repeat(10)}.\r\n`);
    expect(await tooBig.reply()).toMatch(/^552 /);
    vanishing.destroy();
    // Neither reaches the store: waiting the minute for them would outlast the test.
    await other;
    expect(sizes(batches)).toEqual([1]);
    expect(await store.listMessages(a.id)).toEqual([]);
  });
});
