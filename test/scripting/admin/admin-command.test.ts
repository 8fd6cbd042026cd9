/**
 * `tempmail-tui admin`: against a real serve with an admin token, over real HTTP (mail over real SMTP).
 * In-process for the commands and their output; the built binary once, to show the token stays out of
 * its arguments and output. The token comes from a file or the environment, never from argv.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../../src/scripting/admin/admin-command';
import { cleanupAfterEach } from '../../harness/cleanup';
import { newSession } from '../../harness/http';
import { spawnCli } from '../../harness/serve-process';
import { closedPort } from '../../client/fixture-server';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { makeCa, makeServerCert } from '../../harness/tls-certs';

const cleanup = cleanupAfterEach();
const TOKEN = 'cli-admin-token-0123456789abcdef';

async function setup(): Promise<{ svc: TestService; tokenFile: string }> {
  const dir = await cleanup.tempDir('tempmail-admin-cli-');
  const tokenFile = join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const svc = cleanup.defer(await startTestService({ adminTokenFile: tokenFile }), (s) => s.close());
  return { svc, tokenFile };
}

async function admin(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  const code = await runAdmin(args, {
    stdout: { write: (s: string) => (out.stdout += s) },
    stderr: { write: (s: string) => (out.stderr += s) },
    env,
  });
  return { code, ...out };
}

describe('tempmail-tui admin', () => {
  it('lists, deletes and blocks, in lines or JSON, with the token from a file or the environment', async () => {
    const { svc, tokenFile } = await setup();
    const url = ['--url', svc.baseUrl];
    const box = await newSession(svc.baseUrl);
    await sendMail(svc, { from: 'Evil <spam@bad.example>', to: box.email, subject: 'Win \u001b[2J a prize \u202e' });

    const stats = await admin(['stats', ...url, '--token-file', tokenFile]);
    expect(stats).toMatchObject({ code: 0, stderr: '' });
    expect(stats.stdout).toMatch(/^sessions\t1\nmessages\t1\nbytes\t\d+\nblocks\t0\nevent_streams\t0\n$/);

    // The subject came from a stranger: no escape sequence or bidi control reaches the terminal.
    const messages = await admin(['messages', ...url, '--sender', 'bad.example'], { TEMPMAIL_ADMIN_TOKEN: TOKEN });
    expect(messages.code).toBe(0);
    const [line] = messages.stdout.trimEnd().split('\n');
    const [sessionId, id, , clientIp, envelopeFrom, sender, recipient, subject] = line!.split('\t');
    expect([id, clientIp, envelopeFrom, sender, recipient]).toEqual([
      '1',
      '127.0.0.1',
      'spam@bad.example',
      'spam@bad.example',
      box.email,
    ]);
    expect(subject).toContain('Win');
    expect(messages.stdout).not.toMatch(/[\u001b\u202e]/);
    const json = await admin(['sessions', ...url, '--recipient', box.email, '--json'], {
      TEMPMAIL_ADMIN_TOKEN_FILE: tokenFile,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'success',
      sessions: [{ id: sessionId, email: box.email, messages: 1 }],
    });

    expect(await admin(['block', 'domain', 'Bad.Example', ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).toMatchObject({
      code: 0,
      stderr: 'Blocked: domain bad.example\n',
    });
    expect(await admin(['block', 'domain', 'bad.example', ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).toMatchObject({
      code: 0,
      stderr: 'Already blocked: domain bad.example\n',
    });
    expect((await admin(['blocks', ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).stdout).toMatch(
      /^domain\tbad\.example\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n$/,
    );
    expect(await admin(['delete-message', sessionId!, '1', ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).toMatchObject({
      code: 0,
    });
    expect(await admin(['delete-message', sessionId!, '1', ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).toMatchObject({
      code: 1,
      stderr: 'tempmail-tui admin: No such message in that session\n',
    });
    expect(await admin(['delete-session', sessionId!, ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).toMatchObject({
      code: 0,
      stderr: `Deleted session ${sessionId}\n`,
    });
    expect(await admin(['unblock', 'domain', 'bad.example', ...url], { TEMPMAIL_ADMIN_TOKEN: TOKEN })).toMatchObject({
      code: 0,
    });
    expect(svc.logs.join('\n')).not.toContain(TOKEN);
  });

  it('takes --base-url like every command (--url kept as its alias); a missing filter names its flags; a URL with a password is refused without echoing it', async () => {
    const { svc } = await setup();
    const env = { TEMPMAIL_ADMIN_TOKEN: TOKEN };
    expect(await admin(['stats', '--base-url', svc.baseUrl], env)).toMatchObject({ code: 0, stderr: '' });
    expect(await admin(['stats', '--url', svc.baseUrl], env)).toMatchObject({ code: 0, stderr: '' });
    for (const command of ['sessions', 'messages']) {
      const bare = await admin([command, '--base-url', svc.baseUrl], env);
      expect(bare).toMatchObject({ code: 2, stdout: '' });
      expect(bare.stderr).toContain(`${command} needs --recipient, --sender or --client-ip`);
      expect(bare.stderr).not.toContain('client_ip');
    }
    const withPassword = svc.baseUrl.replace('http://', 'http://ops:hunter2secret@');
    for (const res of [
      await admin(['stats'], { ...env, TEMPMAIL_ADMIN_URL: withPassword }),
      await admin(['stats', '--base-url', withPassword], env),
    ]) {
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('must not contain a user name or password');
      expect(res.stderr).not.toContain('hunter2secret');
      expect(res.stderr).not.toContain('network');
    }
  });

  it('says what is wrong in words: no token, a wrong one, a token in argv, no admin API, nothing listening', async () => {
    const { svc, tokenFile } = await setup();
    const url = ['--url', svc.baseUrl];
    const nobody = `http://127.0.0.1:${await closedPort()}`;
    for (const [args, env, code, said] of [
      [
        ['stats', ...url],
        {},
        2,
        'tempmail-tui admin: no admin token: give --token-file FILE, or set TEMPMAIL_ADMIN_TOKEN_FILE or TEMPMAIL_ADMIN_TOKEN (see tempmail-tui admin --help)',
      ],
      [
        ['stats', ...url, `--token=${TOKEN}`],
        {},
        2,
        'tempmail-tui admin: the admin token is never given on the command line: use --token-file FILE or TEMPMAIL_ADMIN_TOKEN (see tempmail-tui admin --help)',
      ],
      [
        ['stats', ...url, '--token', TOKEN],
        {},
        2,
        'tempmail-tui admin: the admin token is never given on the command line: use --token-file FILE or TEMPMAIL_ADMIN_TOKEN (see tempmail-tui admin --help)',
      ],
      [
        ['stats', ...url],
        { TEMPMAIL_ADMIN_TOKEN: 'not-the-token-at-all' },
        1,
        `tempmail-tui admin: ${new URL(svc.baseUrl).origin} refused the admin token`,
      ],
      [
        ['stats', ...url, '--token-file', `${tokenFile}.missing`],
        {},
        2,
        `tempmail-tui admin: cannot read the admin token file ${tokenFile}.missing (ENOENT) (see tempmail-tui admin --help)`,
      ],
      [
        ['delete-message', 'abc', ...url],
        { TEMPMAIL_ADMIN_TOKEN: TOKEN },
        2,
        'tempmail-tui admin: delete-message takes SESSION_ID ID (see tempmail-tui admin --help)',
      ],
      [
        ['stats', '--sender', 'x', ...url],
        { TEMPMAIL_ADMIN_TOKEN: TOKEN },
        2,
        'tempmail-tui admin: stats takes no --recipient, --sender, --client-ip or --limit (see tempmail-tui admin --help)',
      ],
      [
        ['block', 'host', 'x', ...url],
        { TEMPMAIL_ADMIN_TOKEN: TOKEN },
        1,
        'tempmail-tui admin: kind must be sender, domain or ip',
      ],
      [
        ['messages', ...url],
        { TEMPMAIL_ADMIN_TOKEN: TOKEN },
        2,
        'tempmail-tui admin: messages needs --recipient, --sender or --client-ip (see tempmail-tui admin --help)',
      ],
      [
        ['stats', '--url', `${nobody}/`],
        { TEMPMAIL_ADMIN_TOKEN: TOKEN },
        1,
        `tempmail-tui admin: cannot reach ${nobody} (connection refused)`,
      ],
    ] as [string[], NodeJS.ProcessEnv, number, string][]) {
      const res = await admin(args, env);
      expect(res.code, args.join(' ')).toBe(code);
      expect(res.stderr, args.join(' ')).toBe(`${said}\n`);
      expect(res.stderr).not.toContain(TOKEN);
    }
    // A serve without an admin token has no admin API.
    const plain = cleanup.defer(await startTestService(), (s) => s.close());
    const none = await admin(['stats', '--url', plain.baseUrl], { TEMPMAIL_ADMIN_TOKEN: TOKEN });
    expect(none).toMatchObject({
      code: 1,
      stderr: `tempmail-tui admin: ${new URL(plain.baseUrl).origin} has no admin API (start serve with --admin-token-file), or this is not tempmail-tui serve\n`,
    });
  });

  it('says a certificate it cannot trust in words, as the app does, never its error code', async () => {
    // A server whose certificate comes from a CA nobody told the command about.
    const ca = makeCa(await cleanup.tempDir('tempmail-admin-ca-'));
    const pair = makeServerCert(ca, 'server', 'localhost');
    const server = createServer({ cert: await readFile(pair.cert), key: await readFile(pair.key) }, (_req, res) =>
      res.end('{}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.defer(server, (s) => new Promise<void>((resolve) => s.close(() => resolve())));
    const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
    const res = await admin(['stats', '--url', `${origin}/`], { TEMPMAIL_ADMIN_TOKEN: TOKEN });
    expect(res).toMatchObject({
      code: 1,
      stderr: `tempmail-tui admin: cannot reach ${origin} (its certificate cannot be checked)\n`,
    });
  });

  it('the built binary takes the token from the environment and never prints it', async () => {
    const { svc } = await setup();
    const proc = spawnCli(['admin', 'stats', '--json', '--url', svc.baseUrl], { TEMPMAIL_ADMIN_TOKEN: TOKEN });
    expect((await proc.exited).code).toBe(0);
    expect(JSON.parse(proc.stdout())).toMatchObject({ status: 'success', sessions: 0 });
    expect(proc.stdout() + proc.stderr()).not.toContain(TOKEN);
    const help = spawnCli(['admin', '--help']);
    expect((await help.exited).code).toBe(0);
    expect(help.stdout()).toContain('Never on the command line');
  });
});
