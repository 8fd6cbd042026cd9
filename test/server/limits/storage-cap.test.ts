/**
 * The cap on stored mail on a data dir, over real SMTP and HTTP: past --max-stored-bytes (or messages)
 * MAIL FROM hears 452 4.3.1 and the log says the storage is full; once a delete makes room (seen at the
 * next measure) mail is taken again and the log says so.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
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
  it('refuses new mail with 452 4.3.1 once the message files pass --max-stored-bytes, and takes it again once there is room', async () => {
    const svc = cleanup.defer(await startTestService({ maxStoredBytes: 4000, storageUsageIntervalMs: 1000 }), (s) => s.close());
    const box = await newSession(svc.baseUrl);
    await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    await sendMail(svc, { to: box.email, subject: 'big', text: 'x'.repeat(5000) });
    expect(await mailFrom(svc)).toBe('452 4.3.1 Insufficient system storage, try again later');
    expect(svc.logs.some((l) => /^storage full: \d+ bytes stored, the cap is 4000; new mail is refused \(452 4\.3\.1\)/.test(l))).toBe(true);
    expect(svc.ops.stats().storage).toMatchObject({ full: true, messages: 1 });
    const id = (await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages[0].id;
    expect((await call(svc.baseUrl, '/delete-mail', { form: { token: box.token, id } })).status).toBe(200);
    await waitFor(async () => /^250/.test(await mailFrom(svc)), { message: 'mail taken again after the delete' });
    expect(svc.logs.some((l) => l.startsWith('storage has room again: 0 messages, 0 bytes stored'))).toBe(true);
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
