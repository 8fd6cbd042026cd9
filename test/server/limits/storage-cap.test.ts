/**
 * The cap on stored mail on a data dir, over real SMTP and HTTP: a message whose copies would pass
 * --max-stored-bytes (or messages), beside what other transactions hold, hears 452 4.3.1 before anything
 * is stored; a full store refuses MAIL FROM; room a delete makes is seen at once.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { capBurst } from '../../harness/cap-burst';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

async function mailFrom(svc: TestService): Promise<string> {
  const smtp = await openSmtp(svc);
  try {
    await smtp.command('EHLO cap.test');
    return await smtp.command('MAIL FROM:<a@example.org>');
  } finally {
    smtp.destroy();
  }
}

describe('the storage cap on a data dir', () => {
  it('refuses a message that would pass --max-stored-bytes with 452 4.3.1, and takes it at once after a delete makes room', async () => {
    // A measure a minute apart: the room a delete makes is seen without waiting for it.
    const svc = cleanup.defer(await startTestService({ maxStoredBytes: 4000, storageUsageIntervalMs: 60_000 }), (s) =>
      s.close(),
    );
    const box = await newSession(svc.baseUrl);
    await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    await sendMail(svc, { to: box.email, subject: 'first', text: 'x'.repeat(2000) });
    await expect(sendMail(svc, { to: box.email, subject: 'second', text: 'y'.repeat(2000) })).rejects.toThrow(
      /452 4\.3\.1 Insufficient system storage/,
    );
    const id = (await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages[0].id;
    expect((await call(svc.baseUrl, '/delete-mail', { form: { token: box.token, id } })).status).toBe(200);
    const info = await sendMail(svc, { to: box.email, subject: 'second', text: 'y'.repeat(2000) });
    expect(info.response).toMatch(/^250 /);
  });

  it('keeps a burst of transactions within the cap: what each will add and what others hold are counted before 250', async () => {
    for (const caps of [{ maxStoredMessages: 12 }, { maxStoredBytes: 520_000 }]) {
      const svc = await startTestService({ ...caps, storageUsageIntervalMs: 60_000 });
      try {
        // Two transactions of five copies fit either cap (12 messages; 2 x 5 x ~50 KB of 520 KB); a third does not.
        expect(await capBurst(svc)).toEqual({ stored: 2, listed: 10 });
      } finally {
        await svc.close();
      }
    }
  });

  it("answers 452 4.3.1 to each recipient past the cap, counting the transaction's earlier ones and its declared SIZE", async () => {
    const svc = cleanup.defer(
      await startTestService({ maxStoredMessages: 3, maxStoredBytes: 10_000, storageUsageIntervalMs: 60_000 }),
      (s) => s.close(),
    );
    const boxes: { email: string; token: string }[] = [];
    for (let i = 0; i < 5; i++) boxes.push(await newSession(svc.baseUrl));
    await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    const rcpts = async (from: string) => {
      const smtp = cleanup.defer(await openSmtp(svc), (d) => d.destroy());
      await smtp.command('EHLO cap.test');
      expect(await smtp.command(from)).toMatch(/^250/);
      const replies = [];
      for (const box of boxes) replies.push((await smtp.command(`RCPT TO:<${box.email}>`)).slice(0, 3));
      return replies;
    };
    expect(await rcpts('MAIL FROM:<a@example.org>')).toEqual(['250', '250', '250', '452', '452']);
    // 4,000 bytes declared: two copies fit 10,000 bytes, a third does not.
    expect(await rcpts('MAIL FROM:<a@example.org> SIZE=4000')).toEqual(['250', '250', '452', '452', '452']);
  });

  it('counts messages against --max-stored-messages, what this instance stores counted at once', async () => {
    const svc = cleanup.defer(await startTestService({ maxStoredMessages: 2 }), (s) => s.close());
    const box = await newSession(svc.baseUrl);
    await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    await sendMail(svc, { to: box.email, subject: 'one', text: 'x' });
    expect(await mailFrom(svc)).toMatch(/^250/);
    await sendMail(svc, { to: box.email, subject: 'two', text: 'x' });
    expect(await mailFrom(svc)).toMatch(/^452 4\.3\.1 /);
  });
});
