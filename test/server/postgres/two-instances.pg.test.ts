/**
 * Two built `serve` processes on one Postgres database, each with its own HTTP and SMTP listeners, as
 * behind a load balancer: what one does, the other sees, and every limit holds across both.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { raceIntoInbox } from '../../harness/inbox-race';
import { TCP_PASSWORD, tcpUrl } from '../../harness/postgres/cluster';
import { cluster, freshDatabase, startInstance } from '../../harness/postgres/database';
import { spawnCli } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

/** Two instances on a fresh database, started together (they migrate it at the same moment). */
async function pair(args: string[] = []) {
  const { url } = await freshDatabase(cleanup);
  const [a, b] = await Promise.all([startInstance(cleanup, url, args), startInstance(cleanup, url, args)]);
  return { url, a: a!, b: b! };
}

async function subjects(baseUrl: string, token: string): Promise<string[]> {
  const res = await call(baseUrl, '/check-mail', { query: { token } });
  expect(res.status, res.bytes.toString()).toBe(200);
  return (res.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

describe('two serve instances on one database', () => {
  it('create on A, deliver through B, read and delete on A', async () => {
    const { a, b } = await pair();
    const box = await newSession(a.baseUrl);
    const info = await sendMail(b, { to: box.email, subject: 'through B', text: 'hello from B' });
    expect(info.response).toMatch(/^250 /);
    const list = (await call(a.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages;
    expect(list).toHaveLength(1);
    const read = await call(a.baseUrl, '/read-mail', { query: { token: box.token, id: list[0].id } });
    expect(read.json!.message).toMatchObject({
      subject: 'through B',
      body_text: expect.stringContaining('hello from B'),
    });
    expect(
      (await call(b.baseUrl, '/raw-mail', { query: { token: box.token, id: list[0].id } })).bytes.toString(),
    ).toContain('hello from B');
    expect((await call(a.baseUrl, '/delete-mail', { form: { token: box.token, id: list[0].id } })).status).toBe(200);
    expect(await subjects(b.baseUrl, box.token)).toEqual([]);
    // Mail through A reaches a session B created, and ids go on where they were (never reused).
    const other = await newSession(b.baseUrl);
    await sendMail(a, { to: [box.email, other.email], subject: 'through A' });
    expect(await subjects(b.baseUrl, box.token)).toEqual(['through A']);
    expect(await subjects(a.baseUrl, other.token)).toEqual(['through A']);
    expect(
      (await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages[0].id,
    ).toBeGreaterThan(list[0].id);
    // Exactly one of the two (either) migrated: the other found the work done.
    expect(`${a.stderr()}${b.stderr()}`.match(/database schema migrated to version \d+/g)).toHaveLength(1);
  });

  it('keeps the inbox limit exact under parallel deliveries through A and B', async () => {
    const { a, b } = await pair(['--inbox-limit', '4']);
    const box = await newSession(a.baseUrl);
    const { replies, subjects: sent } = await raceIntoInbox([a, b], [box.email], 12);
    const accepted = sent.filter((_, i) => replies[i]!.startsWith('250 '));
    expect(accepted, replies.join('\n')).toHaveLength(4);
    expect(replies.filter((r) => /^452 4\.2\.2 /.test(r))).toHaveLength(8);
    expect(await subjects(b.baseUrl, box.token)).toEqual(accepted.sort());
  });

  it('takes mail through A at once for an inbox emptied through B (a refusal is never made on a kept RCPT answer)', async () => {
    const { a, b } = await pair(['--inbox-limit', '2']);
    const box = await newSession(a.baseUrl);
    for (const subject of ['one', 'two'])
      expect((await sendMail(a, { to: box.email, subject })).response).toMatch(/^250 /);
    // Full: A refuses at RCPT (from a read made now, not from what it kept).
    await expect(sendMail(a, { to: box.email, subject: 'three' })).rejects.toMatchObject({ responseCode: 452 });
    const [first] = (await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as {
      id: number;
    }[];
    expect((await call(b.baseUrl, '/delete-mail', { form: { token: box.token, id: first!.id } })).status).toBe(200);
    // A kept "2 messages" a moment ago: a refusal is never made on that, so the next message goes in.
    expect((await sendMail(a, { to: box.email, subject: 'three' })).response).toMatch(/^250 /);
  });

  it('hands a custom name out once, and counts the create rate across both', async () => {
    const { a, b } = await pair(['--create-per-minute', '5']);
    const tries = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        call(i % 2 ? a.baseUrl : b.baseUrl, '/create-session', { form: { prefix: 'only-once' } }),
      ),
    );
    expect(tries.map((t) => t.status).sort()).toEqual([200, 409, 409, 409]);
    // 4 calls counted (a 409 counts); one more on A is the 5th, then both refuse.
    expect((await call(a.baseUrl, '/create-session', { form: {} })).status).toBe(200);
    for (const target of [a, b]) {
      const refused = await call(target.baseUrl, '/create-session', { form: {} });
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ status: 'error', error: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('answers an expired session as the file store does: 410 and 550 until the sweep, then 401', async () => {
    const { url, a, b } = await pair(['--lifetime-seconds', '1']);
    const box = await newSession(a.baseUrl);
    await waitFor(async () => (await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).status === 410, {
      timeoutMs: 10_000,
    });
    const expired = await call(a.baseUrl, '/check-mail', { query: { token: box.token } });
    expect(expired.json).toMatchObject({ status: 'error', error: 'session_expired' });
    const smtp = await openSmtp(b);
    await smtp.command('EHLO x');
    await smtp.command('MAIL FROM:<a@example.org>');
    expect(await smtp.command(`RCPT TO:<${box.email}>`)).toMatch(/^550 5\.1\.1 Mailbox expired/);
    smtp.destroy();
    // A third instance sweeps at its start (A and B's next sweep is a minute away): then 401 everywhere.
    await startInstance(cleanup, url);
    await waitFor(async () => (await call(a.baseUrl, '/check-mail', { query: { token: box.token } })).status === 401, {
      timeoutMs: 10_000,
    });
    expect((await call(b.baseUrl, '/check-mail', { query: { token: box.token } })).json).toMatchObject({
      error: 'invalid_token',
    });
  });
});

describe('the database password', () => {
  it('comes from PGPASSWORD over loopback (scram) and never reaches the output', async () => {
    const { name } = await freshDatabase(cleanup);
    const url = tcpUrl(cluster(), name);
    const a = await startInstance(cleanup, url, [], { PGPASSWORD: TCP_PASSWORD });
    const box = await newSession(a.baseUrl);
    await sendMail(a, { to: box.email, subject: 'over tcp' });
    expect(await subjects(a.baseUrl, box.token)).toEqual(['over tcp']);
    expect(a.stderr()).toContain(`data in database ${url}`);
    expect(`${a.stdout()}${a.stderr()}`).not.toContain(TCP_PASSWORD);
  });

  it('in the URL on the command line: works, is warned about, and is shown as *** only', async () => {
    const { name } = await freshDatabase(cleanup);
    const url = tcpUrl(cluster(), name).replace('@', `:${TCP_PASSWORD}@`);
    const a = await startInstance(cleanup, url, [], { PGPASSWORD: '' });
    expect((await call(a.baseUrl, '/create-session', { form: {} })).status).toBe(200);
    expect(a.stderr()).toMatch(/warning: the --database-url on the command line holds a password/);
    expect(a.stderr()).toContain(url.replace(TCP_PASSWORD, '***'));
    expect(`${a.stdout()}${a.stderr()}`).not.toContain(TCP_PASSWORD);
  });

  it('a wrong one or an unreachable database: exit 1, one line naming the database without a password', async () => {
    const { name } = await freshDatabase(cleanup);
    const wrong = 'Wrong-Password-123';
    const proc = spawnCli(
      ['serve', '--database-url', tcpUrl(cluster(), name), '--http-port', '0', '--smtp-port', '0'],
      { PGPASSWORD: wrong },
    );
    expect((await proc.exited).code).toBe(1);
    expect(proc.stderr()).toMatch(
      /^tempmail-tui serve: cannot open the database postgres:\/\/tempmail_tcp@127\.0\.0\.1:\d+\/\w+: password authentication failed/m,
    );
    expect(proc.stderr()).not.toContain(wrong);
    const dir = await cleanup.tempDir();
    const config = join(dir, 'serve.json');
    await writeFile(
      config,
      JSON.stringify({ databaseUrl: `postgres://u:${wrong}@127.0.0.1:1/db`, httpPort: 0, smtpPort: 0 }),
    );
    const down = spawnCli(['serve', '--config', config]);
    expect((await down.exited).code).toBe(1);
    expect(down.stderr()).toMatch(/cannot open the database postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db: .*ECONNREFUSED/);
    expect(down.stderr()).not.toContain(wrong);
  });
});
