/**
 * The per-client limits over real sockets: each client is a loopback address of its own (127.0.0.5,
 * 127.0.0.6 ... connecting to the service on 127.0.0.1), as distinct as two hosts are to the service.
 * One client over its limit is refused; another client at the same moment is not.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { callFrom, newSession } from '../../harness/http';
import { sendMail, startTestService } from '../../harness/service';
import { openSmtp, type SmtpDialog } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

describe('SMTP connections per client', () => {
  it("answers 421 past a client's share, logs that client once, and leaves other clients and a freed slot alone", async () => {
    const svc = cleanup.defer(await startTestService({ smtpConnectionsPerClient: 3 }), (s) => s.close());
    const open = async (from: string) => cleanup.defer(await openSmtp(svc, 10_000, from), (c) => c.destroy());
    const held: SmtpDialog[] = [];
    for (let i = 0; i < 3; i++) held.push(await open('127.0.0.5'));
    expect(held.every((c) => /^220 /.test(c.greeting))).toBe(true);
    for (let i = 0; i < 4; i++) {
      const refused = await open('127.0.0.5');
      expect(refused.greeting).toBe(
        '421 4.7.0 Too many connections from your address (at most 3 at once), try again later',
      );
      await refused.closed;
    }
    // Another client is not held back by the first one's flood.
    const other = await open('127.0.0.6');
    expect(other.greeting).toMatch(/^220 /);
    expect(await other.command('EHLO other.test')).toMatch(/^250/);
    // Four refusals, one line (a client is named at most once a minute).
    const lines = svc.logs.filter((l) => l.includes('refused a connection from 127.0.0.5'));
    expect(lines).toEqual([
      'smtp refused a connection from 127.0.0.5: 421 4.7.0 Too many connections from your address (at most 3 at once), try again later | client=127.0.0.5 reason=per-client',
    ]);
    expect(svc.ops.stats().smtp.connectionsRefused).toEqual({ 'per-client': 4 });
    // One of the three leaves: the client may connect again.
    await held[0]!.command('QUIT');
    await held[0]!.closed;
    const again = await waitFor(
      async () => {
        const c = await open('127.0.0.5');
        if (/^220 /.test(c.greeting)) return c;
        await c.closed;
        return null;
      },
      { message: 'a slot for 127.0.0.5 once one of its connections left' },
    );
    expect(await again.command('NOOP')).toMatch(/^250/);
  });
});

/** One SMTP transaction from `from`: MAIL FROM, then each RCPT; the replies. */
async function transaction(svc: Parameters<typeof openSmtp>[0], from: string, rcpts: string[]): Promise<string[]> {
  const smtp = await openSmtp(svc, 10_000, from);
  try {
    expect(await smtp.command('EHLO rate.test')).toMatch(/^250/);
    const replies = [await smtp.command('MAIL FROM:<a@example.org>')];
    if (replies[0]!.startsWith('250')) for (const r of rcpts) replies.push(await smtp.command(`RCPT TO:<${r}>`));
    await smtp.command('QUIT');
    return replies;
  } finally {
    smtp.destroy();
  }
}

describe('SMTP messages and recipients per client per minute', () => {
  it("refuses the third MAIL FROM of a client allowed two a minute, 451 4.7.1, and not another client's", async () => {
    const svc = cleanup.defer(await startTestService({ smtpMessagesPerMinute: 2 }), (s) => s.close());
    const box = await newSession(svc.baseUrl);
    expect((await transaction(svc, '127.0.0.5', [box.email]))[0]).toMatch(/^250/);
    expect((await transaction(svc, '127.0.0.5', [box.email]))[0]).toMatch(/^250/);
    const third = await transaction(svc, '127.0.0.5', [box.email]);
    expect(third[0]).toMatch(
      /^451 4\.7\.1 Too many messages from your address \(at most 2 a minute\), try again in \d+ s$/,
    );
    expect((await transaction(svc, '127.0.0.6', [box.email]))[0]).toMatch(/^250/);
    expect(
      svc.logs.some(
        (l) =>
          l.startsWith('smtp refused MAIL FROM a@example.org: 451 4.7.1') &&
          l.endsWith('client=127.0.0.5 tls=no reason=rate_limit_messages'),
      ),
    ).toBe(true);
    expect(svc.ops.stats().smtp.refused).toMatchObject({ rate_limit_messages: 1 });
  });

  it("refuses recipients past a client's per-minute count, across its transactions", async () => {
    const svc = cleanup.defer(await startTestService({ smtpRecipientsPerMinute: 3 }), (s) => s.close());
    const a = await newSession(svc.baseUrl);
    const b = await newSession(svc.baseUrl);
    expect(await transaction(svc, '127.0.0.7', [a.email, b.email])).toEqual([
      expect.stringMatching(/^250/),
      expect.stringMatching(/^250/),
      expect.stringMatching(/^250/),
    ]);
    const next = await transaction(svc, '127.0.0.7', [a.email, b.email]);
    expect(next[1]).toMatch(/^250/);
    expect(next[2]).toMatch(
      /^451 4\.7\.1 Too many recipients from your address \(at most 3 a minute\), try again in \d+ s$/,
    );
    expect((await transaction(svc, '127.0.0.8', [a.email]))[1]).toMatch(/^250/);
  });

  it('takes mail from a client within its limits as before (nodemailer, whole messages)', async () => {
    const svc = cleanup.defer(await startTestService({ smtpMessagesPerMinute: 5, smtpRecipientsPerMinute: 5 }), (s) =>
      s.close(),
    );
    const box = await newSession(svc.baseUrl);
    for (let i = 0; i < 3; i++)
      expect((await sendMail(svc, { to: box.email, subject: `m${i}`, text: 'x' })).response).toMatch(/^250/);
  });
});

describe('HTTP requests per client per minute', () => {
  it("answers 429 with Retry-After past a client's count, on every route, and not to another client", async () => {
    const svc = cleanup.defer(await startTestService({ httpRequestsPerMinute: 4 }), (s) => s.close());
    const created = await callFrom('127.0.0.5', svc.baseUrl, '/create-session', {});
    expect(created.status).toBe(200);
    expect((await callFrom('127.0.0.5', svc.baseUrl, `/check-mail?token=${created.json!.token}`)).status).toBe(200);
    expect((await callFrom('127.0.0.5', svc.baseUrl, '/domains')).status).toBe(200);
    expect((await callFrom('127.0.0.5', svc.baseUrl, '/no-such-route')).status).toBe(404);
    for (const path of ['/domains', '/domains', '/domains', '/health', '/no-such-route']) {
      const refused = await callFrom('127.0.0.5', svc.baseUrl, path);
      expect(refused.status, path).toBe(429);
      expect(refused.json).toMatchObject({ status: 'error', error: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await callFrom('127.0.0.6', svc.baseUrl, '/domains')).status).toBe(200);
    expect(svc.ops.stats().http.limited).toBe(5);
    // Refusals are folded by route: the three of /domains are one line, then one with the count of the
    // repeats when the second is over.
    await waitFor(
      () => svc.logs.some((l) => l.startsWith('http GET /domains 429 rate_limited') && l.includes('repeats=2')),
      { message: `the folded 429 lines in ${svc.logs.join('\n')}` },
    );
    expect(svc.logs.filter((l) => l.startsWith('http GET /domains 429'))).toHaveLength(2);
    expect(svc.logs.filter((l) => l.startsWith('http GET /health 429'))).toHaveLength(1);
  });
});
