/**
 * The per-client limits and the storage cap hold across two built `serve` instances on one database:
 * a client that spreads its requests or its mail over both meets one limit, and another client (another
 * loopback address) is served meanwhile. The cap counts the database's messages, whoever stored them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, callFrom, newSession } from '../../harness/http';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

async function pair(args: string[]) {
  const { url } = await freshDatabase(cleanup);
  const [a, b] = await Promise.all([startInstance(cleanup, url, args), startInstance(cleanup, url, args)]);
  return { a: a!, b: b! };
}

/** MAIL FROM over a fresh connection from `from`; its reply. */
async function mailFrom(target: Parameters<typeof openSmtp>[0], from: string): Promise<string> {
  const smtp = await openSmtp(target, 10_000, from);
  try {
    expect(await smtp.command('EHLO pair.test')).toMatch(/^250/);
    return await smtp.command('MAIL FROM:<a@example.org>');
  } finally {
    smtp.destroy();
  }
}

describe('per-client limits across two instances on one database', () => {
  it("counts a client's HTTP requests on both: past the limit both answer 429, another client is served", async () => {
    const { a, b } = await pair(['--http-requests-per-minute', '6']);
    for (let i = 0; i < 6; i++)
      expect((await callFrom('127.0.0.5', (i % 2 ? a : b).baseUrl, '/domains')).status).toBe(200);
    for (const target of [a, b]) {
      const refused = await callFrom('127.0.0.5', target.baseUrl, '/domains');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await callFrom('127.0.0.6', target.baseUrl, '/domains')).status).toBe(200);
    }
  });

  it("counts a client's messages on both: the third MAIL FROM in a minute hears 451 4.7.1 wherever it goes", async () => {
    const { a, b } = await pair(['--smtp-messages-per-minute', '2']);
    expect(await mailFrom(a, '127.0.0.5')).toMatch(/^250/);
    expect(await mailFrom(b, '127.0.0.5')).toMatch(/^250/);
    expect(await mailFrom(a, '127.0.0.5')).toMatch(/^451 4\.7\.1 Too many messages from your address/);
    expect(await mailFrom(b, '127.0.0.5')).toMatch(/^451 4\.7\.1 /);
    expect(await mailFrom(b, '127.0.0.6')).toMatch(/^250/);
  });

  it('caps the messages stored in the database: 452 4.3.1 on both once full, said in the log and the metrics; room again after a delete', async () => {
    const dir = await cleanup.tempDir('tempmail-cap-');
    const config = join(dir, 'serve.json');
    // The usage is measured every second here (30 s by default).
    await writeFile(config, JSON.stringify({ storageUsageIntervalMs: 1000 }));
    const { a, b } = await pair(['--config', config, '--max-stored-messages', '2', '--metrics']);
    const box = await newSession(a.baseUrl);
    await sendMail(a, { to: box.email, subject: 'one', text: 'x' });
    await sendMail(b, { to: box.email, subject: 'two', text: 'x' });
    // B learns of A's message at its next measure.
    for (const target of [a, b]) {
      await waitFor(async () => /^452 4\.3\.1 /.test(await mailFrom(target, '127.0.0.5')), {
        message: 'MAIL FROM to hear 452 4.3.1 once full',
      });
      await waitFor(() => /storage full: 2 messages stored, the cap is 2/.test(target.stderr()), {
        message: 'the storage-full line',
      });
      const metrics = await call(target.baseUrl, '/metrics');
      expect(metrics.bytes.toString()).toMatch(/^tempmail_storage_full 1$/m);
      expect(metrics.bytes.toString()).toMatch(/^tempmail_stored_messages 2$/m);
      expect(metrics.bytes.toString()).toMatch(/^tempmail_messages_refused_total\{reason="storage_full"\} [1-9]/m);
    }
    const id = (await call(a.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages[0].id;
    expect((await call(b.baseUrl, '/delete-mail', { form: { token: box.token, id } })).status).toBe(200);
    for (const target of [a, b]) {
      await waitFor(async () => /^250/.test(await mailFrom(target, '127.0.0.5')), {
        message: 'MAIL FROM to be taken again once there is room',
      });
      // Said at the instance's next measure (each second here): the 250 may come first, from room it already knew of.
      await waitFor(() => /storage has room again: 1 messages/.test(target.stderr()), {
        message: 'the room-again line',
      });
    }
  });
});
