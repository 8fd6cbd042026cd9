/**
 * The storage cap across two instances on one database (issue 36): the database keeps it where it
 * stores, so bursts of transactions sent to both at once never store past the cap, of messages or of
 * bytes, and every recipient past it hears 452 4.3.1 (at RCPT TO, or its transaction's DATA). Room a
 * delete on one instance makes is seen by the other at once; the totals the database keeps stay right
 * after the purge of expired sessions and across a restart, and a total that drifted is corrected.
 */
import { describe, expect, it } from 'vitest';
import { capBurst } from '../../harness/cap-burst';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';
import type { ServerConfig } from '../../../src/server/config/server-config';

const cleanup = cleanupAfterEach();

/** Two instances on a fresh database, each with `caps`; measured a minute apart (the cap must not wait for it). */
async function pair(caps: Partial<ServerConfig>): Promise<{ url: string; a: TestService; b: TestService }> {
  const { url } = await freshDatabase(cleanup);
  const start = () => startTestService({ databaseUrl: url, storageUsageIntervalMs: 60_000, ...caps });
  const a = cleanup.defer(await start(), (s) => s.close());
  const b = cleanup.defer(await start(), (s) => s.close());
  return { url, a, b };
}

/** One whole transaction: MAIL FROM, an RCPT TO per box, and DATA when any was taken; the replies' codes. */
async function transaction(
  target: TestService,
  boxes: { email: string }[],
  body: string,
): Promise<{ rcpt: string[]; data?: string }> {
  const smtp = await openSmtp(target);
  try {
    await smtp.command('EHLO shared.test');
    expect(await smtp.command('MAIL FROM:<a@example.org>')).toMatch(/^(250|452 4\.3\.1) /);
    const rcpt: string[] = [];
    for (const box of boxes) rcpt.push(await smtp.command(`RCPT TO:<${box.email}>`));
    if (!rcpt.some((r) => r.startsWith('250'))) return { rcpt };
    expect(await smtp.command('DATA')).toMatch(/^354/);
    smtp.write(body);
    return { rcpt, data: await smtp.reply() };
  } finally {
    smtp.destroy();
  }
}

/** How many messages the inboxes list in all. */
async function listed(svc: TestService, boxes: { token: string }[]): Promise<number> {
  let messages = 0;
  for (const box of boxes)
    messages += (await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages.length;
  return messages;
}

describe('the storage cap across instances on one database', () => {
  it('keeps a burst at DATA on both instances within the cap, of messages and of bytes: the others hear 452 4.3.1', async () => {
    // Each instance alone would let two transactions of five copies through (10 messages, ~500 KB).
    for (const caps of [{ maxStoredMessages: 12 }, { maxStoredBytes: 520_000 }]) {
      const { a, b } = await pair(caps);
      expect(await capBurst(a, [b])).toEqual({ stored: 2, listed: 10 });
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('answers 452 4.3.1 to every recipient past the cap when many connections send to both at once', async () => {
    const cap = { messages: 20, bytes: 60_000 };
    const { url, a, b } = await pair({ maxStoredMessages: cap.messages, maxStoredBytes: cap.bytes });
    const boxes: { email: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) boxes.push(await newSession(a.baseUrl));
    for (const svc of [a, b])
      await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    const body = `Subject: many\r\n\r\n${'m'.repeat(4000)}\r\n.\r\n`;
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => transaction(i % 2 ? b : a, boxes, body)));
    let accepted = 0;
    for (const { rcpt, data } of outcomes) {
      for (const r of rcpt) expect(r).toMatch(/^(250|452 4\.3\.1) /);
      if (data === undefined) continue;
      expect(data).toMatch(/^(250|452 4\.3\.1) /);
      if (data.startsWith('250')) accepted += rcpt.filter((r) => r.startsWith('250')).length;
    }
    expect(await listed(a, boxes)).toBe(accepted);
    const [stored] = (
      await inspect(cleanup, url).query(
        'SELECT count(*)::int AS messages, sum(size)::int AS bytes FROM tempmail_messages',
      )
    ).rows;
    expect(stored.messages).toBe(accepted);
    expect(stored.messages).toBeLessThanOrEqual(cap.messages);
    expect(stored.bytes).toBeLessThanOrEqual(cap.bytes);
    // 64 copies of ~4 KB against room for 14: some were stored, and the cap was met.
    expect(accepted).toBeGreaterThan(0);
    expect(outcomes.flatMap((o) => [...o.rcpt, o.data ?? '']).some((r) => r.startsWith('452 4.3.1'))).toBe(true);
  });

  it('sees room a delete on the other instance made at once, not at the next measure', async () => {
    const { a, b } = await pair({ maxStoredMessages: 2 });
    const box = await newSession(a.baseUrl);
    for (const svc of [a, b])
      await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    await sendMail(b, { to: box.email, subject: 'one', text: 'x' });
    await sendMail(b, { to: box.email, subject: 'two', text: 'x' });
    // A measured an empty database a minute ago; the database says it is full.
    await expect(sendMail(a, { to: box.email, subject: 'three', text: 'x' })).rejects.toThrow(
      /452 4\.3\.1 Insufficient system storage/,
    );
    const id = (await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages[0].id;
    expect((await call(b.baseUrl, '/delete-mail', { form: { token: box.token, id } })).status).toBe(200);
    expect((await sendMail(a, { to: box.email, subject: 'three', text: 'x' })).response).toMatch(/^250 /);
    expect(await listed(a, [box])).toBe(2);
  });

  it('keeps the totals right after the purge of expired sessions and across a restart; a total that drifted is corrected', async () => {
    let now = Date.now();
    const { url } = await freshDatabase(cleanup);
    const config = { databaseUrl: url, storageUsageIntervalMs: 60_000, maxStoredMessages: 2, lifetimeSeconds: 60 };
    const a = cleanup.defer(await startTestService(config, { clock: () => now }), (s) => s.close());
    const box = await newSession(a.baseUrl);
    await waitFor(() => a.ops.stats().storage.messages === 0, { message: 'the first measure' });
    await sendMail(a, { to: box.email, subject: 'one', text: 'x'.repeat(100) });
    await sendMail(a, { to: box.email, subject: 'two', text: 'x'.repeat(100) });
    now += 61_000;
    expect(await a.service.purgeExpired()).toBe(1);
    const db = inspect(cleanup, url);
    const totals = async () =>
      (await db.query('SELECT sum(messages)::int AS n, sum(bytes)::int AS b FROM tempmail_usage')).rows[0];
    expect(await totals()).toEqual({ n: 0, b: 0 });
    // Room at once: the purge's cascade took the messages off the totals in its own transaction.
    const next = await newSession(a.baseUrl);
    await sendMail(a, { to: next.email, subject: 'three', text: 'x' });
    await a.close();
    // A total off by hand (as a restore or a TRUNCATE would leave it): the recount at start corrects it.
    await db.query('UPDATE tempmail_usage SET messages = messages + 5, bytes = bytes + 999 WHERE slot = 3');
    const again = cleanup.defer(await startTestService(config, { clock: () => now }), (s) => s.close());
    await waitFor(() => again.ops.stats().storage.messages === 1, { message: 'the recount at start' });
    expect(again.logs.join('\n')).toMatch(/stored-mail totals were off by -5 messages and -999 bytes/);
    const [real] = (await db.query('SELECT count(*)::int AS n, sum(size)::int AS b FROM tempmail_messages')).rows;
    expect(await totals()).toEqual(real);
    expect((await sendMail(again, { to: next.email, subject: 'four', text: 'x' })).response).toMatch(/^250 /);
  });
});
