/**
 * The admin API over real HTTP, with mail over real SMTP: only the admin token in a Bearer header opens
 * it; it counts, finds sessions and messages by recipient, sender and client address, deletes them, and
 * blocks senders, sender domains and client addresses, which SMTP then refuses at connect, MAIL FROM
 * and RCPT TO, also after a restart.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { call, newSession, type CallOptions } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';

const cleanup = cleanupAfterEach();
const TOKEN = 'admin-0123456789abcdef-0123456789';

async function withAdmin(dataDir?: string): Promise<TestService> {
  const dir = await cleanup.tempDir('tempmail-admin-');
  const tokenFile = join(dir, 'admin-token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  return cleanup.defer(await startTestService({ adminTokenFile: tokenFile, ...(dataDir ? { dataDir } : {}) }), (s) =>
    s.close(),
  );
}

const admin = (svc: TestService, path: string, options: CallOptions = {}) =>
  call(svc.baseUrl, path, { ...options, headers: { authorization: `Bearer ${TOKEN}`, ...options.headers } });

describe('the admin API', () => {
  it('opens only to the admin token in a Bearer header, and never logs it', async () => {
    const svc = await withAdmin();
    const box = await newSession(svc.baseUrl);
    for (const options of [
      {},
      { headers: { authorization: 'Bearer wrong-token-wrong-token' } },
      { headers: { authorization: `Bearer ${TOKEN}x` } },
      // In the URL it is not taken: a token there would reach proxies' logs.
      { query: { token: TOKEN } },
      // A session's token is no admin token.
      { headers: { authorization: `Bearer ${box.token}` } },
    ]) {
      const res = await call(svc.baseUrl, '/admin/stats', options);
      expect(res.status, JSON.stringify(options)).toBe(401);
      expect(res.json).toMatchObject({ status: 'error', error: 'invalid_token' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="tempmail-tui admin"');
      expect(res.bytes.toString()).not.toContain(TOKEN);
    }
    const ok = await admin(svc, '/admin/stats');
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ status: 'success', sessions: 1, messages: 0, bytes: 0, blocks: 0, event_streams: 0 });
    expect(svc.logs.join('\n')).not.toContain(TOKEN);
  });

  it('answers 401 to a request without the admin token before saying anything of its method or body', async () => {
    // 405 and 415 used to come first: an unauthenticated caller learnt which method and media type a route takes.
    const svc = await withAdmin();
    for (const [path, options] of [
      ['/admin/stats', { method: 'POST', form: { x: '1' } }],
      ['/admin/block', { method: 'GET' }],
      ['/admin/block', { method: 'POST', body: 'kind=ip', headers: { 'content-type': 'text/plain' } }],
      [
        '/admin/delete-session',
        { method: 'PUT', body: 'x', headers: { authorization: 'Bearer wrong-token-wrong-token' } },
      ],
    ] as [string, CallOptions][]) {
      const res = await call(svc.baseUrl, path, options);
      expect(res.status, `${options.method} ${path}`).toBe(401);
      expect(res.json).toMatchObject({ status: 'error', error: 'invalid_token' });
    }
    // With the token, the method and the body are judged as before.
    expect((await admin(svc, '/admin/stats', { method: 'POST', form: { x: '1' } })).status).toBe(405);
    expect(
      (await admin(svc, '/admin/block', { method: 'POST', body: 'kind=ip', headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(415);
  });

  it('counts, finds by recipient, sender and client address, and deletes a message and a session', async () => {
    const svc = await withAdmin();
    const [box, other] = [await newSession(svc.baseUrl), await newSession(svc.baseUrl)];
    await sendMail(svc, { from: 'Spam <spam@bad.example>', to: box.email, subject: 'one' });
    await sendMail(svc, { from: 'news@mail.bad.example', to: [box.email, other.email], subject: 'two' });
    await sendMail(svc, { from: 'friend@good.example', to: other.email, subject: 'three' });
    const stats = (await admin(svc, '/admin/stats')).json!;
    expect(stats).toMatchObject({ sessions: 2, messages: 4 });
    expect(stats.bytes).toBeGreaterThan(0);

    const subjects = async (query: Record<string, string>) => {
      const res = await admin(svc, '/admin/messages', { query });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json!.messages.map(
        (m: { subject: string; recipient: string }) => `${m.subject} ${m.recipient === box.email ? 'box' : 'other'}`,
      );
    };
    expect(await subjects({ recipient: box.email.toUpperCase() })).toEqual(['two box', 'one box']);
    // Newest first; the two copies of "two" came at the same moment.
    expect((await subjects({ sender: 'bad.example' })).slice(0, 2).sort()).toEqual(['two box', 'two other']);
    expect((await subjects({ sender: 'bad.example' }))[2]).toBe('one box');
    expect(await subjects({ sender: 'spam@bad.example' })).toEqual(['one box']);
    expect(await subjects({ client_ip: '127.0.0.1' })).toHaveLength(4);
    expect(await subjects({ client_ip: '10.0.0.0/8' })).toEqual([]);
    expect(await subjects({ recipient: other.email, sender: 'good.example' })).toEqual(['three other']);
    const [one] = (await admin(svc, '/admin/messages', { query: { sender: 'spam@bad.example' } })).json!.messages;
    expect(one).toMatchObject({
      recipient: box.email,
      id: 1,
      sender_email: 'spam@bad.example',
      envelope_from: 'spam@bad.example',
      client_ip: '127.0.0.1',
      subject: 'one',
    });

    const sessions = (await admin(svc, '/admin/sessions', { query: { sender: 'bad.example' } })).json!.sessions;
    expect(sessions.map((s: { email: string; messages: number }) => [s.email, s.messages]).sort()).toEqual(
      [
        [box.email, 2],
        [other.email, 2],
      ].sort(),
    );
    for (const query of [{}, { client_ip: 'not-an-address' }, { limit: '0' }] as Record<string, string>[]) {
      const res = await admin(svc, '/admin/messages', { query });
      expect(res.status, JSON.stringify(query)).toBe(400);
    }

    const stream = cleanup.defer(
      await openEvents(svc.baseUrl, { headers: { authorization: `Bearer ${box.token}` } }),
      (s) => s.close(),
    );
    expect((await admin(svc, '/admin/delete-message', { form: { session_id: one.session_id, id: 1 } })).status).toBe(
      200,
    );
    expect((await admin(svc, '/admin/delete-message', { form: { session_id: one.session_id, id: 1 } })).status).toBe(
      404,
    );
    expect((await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages).toHaveLength(1);
    expect((await admin(svc, '/admin/delete-session', { json: { session_id: one.session_id } })).status).toBe(200);
    // The session is gone for its holder, and its event stream ended.
    expect((await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).status).toBe(401);
    expect(await stream.ended).toBe('end');
    expect((await admin(svc, '/admin/stats')).json).toMatchObject({ sessions: 1, messages: 2 });
    // Who did what: the token's name (the single --admin-token-file is "admin"), the action, its target.
    expect(svc.logs).toEqual(
      expect.arrayContaining([
        `admin: admin deleted message 1 of session ${one.session_id} | actor=admin action=delete-message target="message 1 of session ${one.session_id}" result=done`,
        `admin: admin deleted session ${one.session_id} | actor=admin action=delete-session target="session ${one.session_id}" result=done`,
      ]),
    );
  });

  it('blocks a client address at connect, a sender at MAIL FROM, a domain at RCPT TO of an open connection; kept across a restart', async () => {
    // A data dir of the test's own: the service's would go with it when it closes.
    const dataDir = join(await cleanup.tempDir('tempmail-admin-data-'), 'data');
    const svc = await withAdmin(dataDir);
    const box = await newSession(svc.baseUrl);
    const block = (kind: string, value: string) => admin(svc, '/admin/block', { form: { kind, value } });

    expect((await block('sender', 'Spam@Bad.example')).json).toEqual({
      status: 'success',
      kind: 'sender',
      value: 'spam@bad.example',
      added: true,
    });
    expect((await block('sender', 'spam@bad.example')).json).toMatchObject({ added: false });
    const refused = await sendMail(svc, { from: 'spam@bad.example', to: box.email, subject: 'x' }).catch(
      (e: { response: string }) => e.response,
    );
    expect(refused).toMatch(/^550 5\.7\.1 Mail from this sender is refused/);

    // A domain blocked while a sender of a subdomain is connected: its next recipient is refused.
    const c = cleanup.defer(await openSmtp(svc), (x) => x.destroy());
    await c.command('EHLO client.test');
    expect(await c.command('MAIL FROM:<news@mail.other.example>')).toMatch(/^250 /);
    expect(await c.command(`RCPT TO:<${box.email}>`)).toMatch(/^250 /);
    await block('domain', 'other.example');
    expect(await c.command(`RCPT TO:<${box.email.replace('@', '+2@')}>`)).toMatch(/^550 5\.7\.1 /);

    // The client address: refused before the greeting.
    expect((await block('ip', '127.0.0.0/8')).status).toBe(200);
    const blocked = await openSmtp(svc);
    expect(blocked.greeting).toMatch(/^554 5\.7\.1 Connections from your address are refused/);
    blocked.destroy();
    for (const [kind, value, why] of [
      ['ip', '300.1.1.1', 'IP address'],
      ['domain', 'no dots', 'domain'],
      ['sender', 'nobody', 'address'],
      ['host', 'x', 'kind'],
    ]) {
      const res = await block(kind!, value!);
      expect(res.status, `${kind} ${value}`).toBe(400);
      expect(res.json!.message).toContain(why);
    }
    expect(
      (await admin(svc, '/admin/blocks')).json!.blocks.map(
        (b: { kind: string; value: string }) => `${b.kind} ${b.value}`,
      ),
    ).toEqual(['sender spam@bad.example', 'domain other.example', 'ip 127.0.0.0/8']);
    expect((await admin(svc, '/admin/stats')).json).toMatchObject({ blocks: 3 });
    expect(svc.logs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^admin: admin blocked ip 127\.0\.0\.0\/8 \| actor=admin action=block/),
        expect.stringMatching(
          /^smtp refused connection from 127\.0\.0\.1: blocked \(ip 127\.0\.0\.0\/8\)( \|.*reason=blocked.*)?$/,
        ),
      ]),
    );

    // Kept in the data dir: a restart applies them before its first connection.
    await svc.close();
    const again = await withAdmin(dataDir);
    const still = await openSmtp(again);
    expect(still.greeting).toMatch(/^554 5\.7\.1 /);
    still.destroy();
    expect((await admin(again, '/admin/unblock', { form: { kind: 'ip', value: '127.0.0.0/8' } })).status).toBe(200);
    expect((await admin(again, '/admin/unblock', { form: { kind: 'ip', value: '127.0.0.0/8' } })).status).toBe(404);
    expect((await sendMail(again, { from: 'friend@good.example', to: box.email, subject: 'let in' })).response).toMatch(
      /^250 /,
    );
  });

  it('blocks an international domain however the sender spells it, and a sender however it is quoted', async () => {
    // smtp-server hands the sender's domain over in Unicode (it decodes xn-- labels), and blocks were kept
    // in ASCII only: a block of xn--bcher-kva.example met no sender at all, and bücher.example was refused.
    const svc = await withAdmin();
    const box = await newSession(svc.baseUrl);
    const block = (kind: string, value: string) => admin(svc, '/admin/block', { form: { kind, value } });
    expect((await block('domain', 'Bücher.example')).json).toMatchObject({
      status: 'success',
      value: 'xn--bcher-kva.example',
    });
    expect((await block('domain', 'xn--mnchen-3ya.example')).json).toMatchObject({
      status: 'success',
      value: 'xn--mnchen-3ya.example',
    });
    expect((await block('sender', 'spam@evil.example')).json).toMatchObject({
      status: 'success',
      value: 'spam@evil.example',
    });
    const mailFrom = async (sender: string) => {
      const c = cleanup.defer(await openSmtp(svc), (x) => x.destroy());
      await c.command('EHLO client.test');
      const utf8 = /[^\x00-\x7f]/.test(sender) ? ' SMTPUTF8' : '';
      const said = await c.command(`MAIL FROM:<${sender}>${utf8}`);
      c.destroy();
      return said;
    };
    for (const sender of [
      'x@xn--bcher-kva.example',
      'x@bücher.example',
      'x@BÜCHER.EXAMPLE',
      'x@news.bücher.example',
      'x@münchen.example',
      'x@ｍünchen.example', // a full-width m: the same name to a resolver
      'x@XN--MNCHEN-3YA.example',
      '"spam"@evil.example',
      '"SPAM"@Evil.Example',
    ]) {
      expect(await mailFrom(sender), sender).toMatch(/^550 5\.7\.1 Mail from this sender is refused/);
    }
    for (const sender of ['x@bucher.example', 'x@xn--bcher-kva.example.other', '"spam.x"@evil.example']) {
      expect(await mailFrom(sender), sender).toMatch(/^250 /);
    }
    expect((await sendMail(svc, { from: 'friend@good.example', to: box.email, subject: 'let in' })).response).toMatch(
      /^250 /,
    );
    expect((await admin(svc, '/admin/unblock', { form: { kind: 'domain', value: 'bücher.example' } })).status).toBe(
      200,
    );
    expect(await mailFrom('x@bücher.example')).toMatch(/^250 /);
  });

  it('unblocks a block kept in another spelling of the value asked for (a blocks.json written by hand)', async () => {
    // parseBlock keeps a value in one form; a file written by hand (or by a version that kept what it
    // was given) may hold another. Unblock said 404 to each, so such a block could not be lifted.
    const dataDir = await cleanup.tempDir('tempmail-admin-data-');
    const legacy = [
      { kind: 'ip', value: '::FFFF:127.0.0.1', createdAt: 1 },
      { kind: 'ip', value: '::ffff:7f00:1', createdAt: 2 },
      { kind: 'ip', value: '127.0.0.1', createdAt: 5 },
      { kind: 'domain', value: 'Bücher.example', createdAt: 3 },
      { kind: 'sender', value: 'Spam@Evil.Example', createdAt: 4 },
    ];
    await writeFile(join(dataDir, 'blocks.json'), JSON.stringify({ blocks: legacy }));
    const svc = await withAdmin(dataDir);
    const box = await newSession(svc.baseUrl);
    const refused = await openSmtp(svc);
    expect(refused.greeting).toMatch(/^554 5\.7\.1 /);
    refused.destroy();
    const unblock = (kind: string, value: string) => admin(svc, '/admin/unblock', { form: { kind, value } });
    // All three spellings of 127.0.0.1 go with one unblock (the plain one alone left the others
    // blocking); an unrelated value still finds nothing.
    expect((await unblock('ip', '10.0.0.1')).status).toBe(404);
    expect((await unblock('ip', '127.0.0.1')).status).toBe(200);
    expect((await unblock('domain', 'xn--bcher-kva.example')).status).toBe(200);
    expect((await unblock('sender', 'spam@evil.example')).status).toBe(200);
    expect((await admin(svc, '/admin/blocks')).json!.blocks).toEqual([]);
    expect((await unblock('ip', '127.0.0.1')).status).toBe(404);
    expect((await sendMail(svc, { from: 'spam@evil.example', to: box.email, subject: 'let in' })).response).toMatch(
      /^250 /,
    );
  });
});
