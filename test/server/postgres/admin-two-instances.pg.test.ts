/**
 * The admin API with two built `serve` processes on one database: a block added through A is applied by
 * B's SMTP port at once (B hears of it by LISTEN/NOTIFY), a message stored through B is found through A
 * with B's client address, and a session deleted through A is gone on B.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const TOKEN = 'pg-admin-token-0123456789abcdef';

describe('the admin API with two instances on one database', () => {
  it('blocks through A apply on B at once; messages and sessions are one set', async () => {
    const { url } = await freshDatabase(cleanup);
    const tokenFile = join(await cleanup.tempDir('tempmail-pg-admin-'), 'token');
    await writeFile(tokenFile, TOKEN, { mode: 0o600 });
    const [a, b] = await Promise.all([
      startInstance(cleanup, url, ['--admin-token-file', tokenFile]),
      startInstance(cleanup, url),
    ]);
    const admin = (path: string, options: Parameters<typeof call>[2] = {}) =>
      call(a!.baseUrl, path, { ...options, headers: { authorization: `Bearer ${TOKEN}` } });
    // B was started without a token: it has no admin API at all.
    expect((await call(b!.baseUrl, '/admin/stats', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      404,
    );

    const box = await newSession(b!.baseUrl);
    await sendMail(b!, { from: 'spam@bad.example', to: box.email, subject: 'through B' });
    const [found] = (await admin('/admin/messages', { query: { client_ip: '127.0.0.1' } })).json!.messages;
    expect(found).toMatchObject({
      recipient: box.email,
      subject: 'through B',
      client_ip: '127.0.0.1',
      envelope_from: 'spam@bad.example',
    });

    expect((await admin('/admin/block', { form: { kind: 'domain', value: 'bad.example' } })).status).toBe(200);
    // B reads the blocks again on the notice: the next MAIL FROM from that domain is refused.
    const c = cleanup.defer(await openSmtp(b!), (x) => x.destroy());
    await c.command('EHLO client.test');
    await waitFor(
      async () => {
        await c.command('RSET');
        return /^550 5\.7\.1 /.test(await c.command('MAIL FROM:<other@mail.bad.example>'));
      },
      { message: 'B to refuse the blocked domain' },
    );
    // The line comes through B's stderr pipe, the reply through the SMTP socket: either may be read first here.
    await waitFor(
      () =>
        /smtp refused MAIL FROM other@mail\.bad\.example: 550 5\.7\.1 Mail from this sender is refused.*reason=blocked/.test(
          b!.stderr(),
        ),
      {
        message: "B's log line of the refusal",
      },
    );

    expect((await admin('/admin/delete-session', { form: { session_id: found.session_id } })).status).toBe(200);
    expect((await call(b!.baseUrl, '/check-mail', { query: { token: box.token } })).status).toBe(401);
    // B took mail for the address a moment ago (and keeps that answer): it refuses it at RCPT once it hears of the delete.
    await waitFor(
      () =>
        sendMail(b!, { to: box.email, subject: 'after the delete' }).then(
          () => false,
          (e: { response?: string }) => /^550 5\.1\.1 No such mailbox/.test(e.response ?? ''),
        ),
      { message: 'B to refuse the deleted address' },
    );
    expect(`${a!.stderr()}${b!.stderr()}`).not.toContain(TOKEN);
  });
});
