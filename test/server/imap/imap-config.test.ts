/**
 * The `imap` object of an external account in the --config file: what it means, its defaults, and every
 * mistake refused with a clear message (exit 2) rather than an account that silently never fetches.
 * Plus the pieces that keep secrets out of logs and pick recipients out of headers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../src/server/imap/account-config';
import { describeImapError, maskSecret } from '../../../src/server/imap/describe-error';
import { readPassword } from '../../../src/server/imap/password';
import { recipientsOf } from '../../../src/server/imap/recipients';
import { buildServerConfig, UsageError } from '../../../src/server/config/serve-config';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempFile(name: string, content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tempmail-imap-config-'));
  dirs.push(dir);
  const file = join(dir, name);
  await writeFile(file, content, { mode: 0o600 });
  return file;
}

const ENV = { KEEPER_IMAP_PASSWORD: 'app-pass-1234' };

async function load(accounts: unknown[], env: NodeJS.ProcessEnv = ENV) {
  const file = await tempFile('serve.json', JSON.stringify({ extmailAccounts: accounts }));
  return buildServerConfig({ config: file }, env);
}

async function refusal(accounts: unknown[], env: NodeJS.ProcessEnv = ENV): Promise<string> {
  try {
    await load(accounts, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

const imap = (extra: Record<string, unknown> = {}) => ({
  host: 'imap.ext.test',
  passwordEnv: 'KEEPER_IMAP_PASSWORD',
  ...extra,
});

describe('extmailAccounts with imap in the config file', () => {
  it('reads the example of docs/server/imap.md and issue 18', async () => {
    const config = await load([
      {
        email: 'keeper@ext.test',
        dotInsensitive: false,
        imap: {
          host: 'imap.ext.test',
          port: 993,
          tls: 'tls',
          user: 'keeper',
          passwordEnv: 'KEEPER_IMAP_PASSWORD',
          folders: ['INBOX', 'Junk'],
        },
      },
      'plain@gmail.com',
    ]);
    expect(config.extmailAccounts).toEqual([
      {
        email: 'keeper@ext.test',
        dotInsensitive: false,
        imap: {
          host: 'imap.ext.test',
          port: 993,
          tls: 'tls',
          user: 'keeper',
          password: { env: 'KEEPER_IMAP_PASSWORD' },
          folders: ['INBOX', 'Junk'],
          pollSeconds: 30,
        },
      },
      { email: 'plain@gmail.com', dotInsensitive: true },
    ]);
    // The password itself is nowhere in the settings.
    expect(JSON.stringify(config)).not.toContain(ENV.KEEPER_IMAP_PASSWORD);
  });

  it('defaults: TLS on 993 (143 for starttls and none), the address as user, INBOX and \\Junk, a check every 30 s', async () => {
    const file = await tempFile('password', 'secret\n');
    const [a, b, c] = (
      await load([
        { email: 'Me@Gmail.com', imap: { host: 'imap.gmail.com', passwordFile: file } },
        { email: 'b@ext.test', imap: imap({ tls: 'starttls' }) },
        { email: 'c@ext.test', imap: imap({ tls: 'none', host: '127.0.0.1', pollSeconds: 5 }) },
      ])
    ).extmailAccounts;
    expect(a).toEqual({
      email: 'me@gmail.com',
      dotInsensitive: true,
      imap: {
        host: 'imap.gmail.com',
        port: 993,
        tls: 'tls',
        user: 'me@gmail.com',
        password: { file },
        pollSeconds: 30,
      },
    });
    expect(b!.imap).toMatchObject({ port: 143, tls: 'starttls' });
    expect(c!.imap).toMatchObject({ port: 143, tls: 'none', pollSeconds: 5 });
  });

  it('refuses unknown keys inside an account and inside its imap object', async () => {
    expect(await refusal([{ email: 'keeper@ext.test', dotInsensitve: true }])).toMatch(
      /extmailAccounts keeper@ext\.test: unknown key "dotInsensitve" \(did you mean "dotInsensitive"\?\) \(in .*serve\.json\)$/,
    );
    expect(await refusal([{ email: 'keeper@ext.test', imap: imap({ password_env: 'X' }) }])).toMatch(
      /keeper@ext\.test imap: unknown key "password_env" \(did you mean "passwordEnv"\?\)/,
    );
    // Nothing close: the keys, listed (an object of a few keys).
    expect(await refusal([{ email: 'keeper@ext.test', imap: imap({ mailbox: 'INBOX' }) }])).toMatch(
      /keeper@ext\.test imap: unknown key "mailbox" \(known: host, port, tls, user, passwordEnv, passwordFile, folders, pollSeconds\)/,
    );
  });

  it('names the key and what is wanted for a missing key or a value of the wrong type, nested or not', async () => {
    const at = '--config extmailAccounts k@ext.test imap';
    expect(await refusal([{ email: 'k@ext.test', imap: { passwordEnv: 'KEEPER_IMAP_PASSWORD' } }])).toMatch(
      new RegExp(`^${at} host: expected the IMAP server's host name or address \\(in `),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ folders: ['INBOX', 3] }) }])).toMatch(
      new RegExp(`^${at} folders: expected a list of folder names`),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ folders: 'INBOX' }) }])).toMatch(
      new RegExp(`^${at} folders: expected a list of folder names`),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ tls: 5 }) }])).toMatch(
      new RegExp(`^${at} tls: expected "tls", "starttls" or "none", got 5 `),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ pollSeconds: '5s' }) }])).toMatch(
      new RegExp(`^${at} pollSeconds: expected a whole number from 1 to 3600, got "5s" `),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ user: 7 }) }])).toMatch(
      new RegExp(`^${at} user: expected the login name `),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ passwordEnv: ['X'] }) }])).toMatch(
      new RegExp(`^${at} passwordEnv: expected the name of an environment variable `),
    );
    expect(await refusal([{ email: 'k@ext.test', imap: null }])).toMatch(new RegExp(`^${at}: expected an object `));
    // A list is no object, though JavaScript's typeof says so.
    expect(await refusal([{ email: 'k@ext.test', imap: [] }])).toMatch(new RegExp(`^${at}: expected an object `));
    expect(await refusal([{ email: 'k@ext.test', dotInsensitive: 'yes' }])).toMatch(
      /^--config extmailAccounts: each account is "name@provider" or \{"email"/,
    );
    expect(await refusal([3])).toMatch(/^--config extmailAccounts: each account is "name@provider"/);
  });

  it('takes a port and a poll interval given as strings of digits, as the flags give numbers', async () => {
    const config = await load([{ email: 'k@ext.test', imap: imap({ port: '1993', pollSeconds: '9' }) }]);
    expect(config.extmailAccounts[0]!.imap).toMatchObject({ port: 1993, pollSeconds: 9 });
  });

  it('refuses a password given other than by exactly one of passwordEnv and passwordFile, or not there now', async () => {
    expect(await refusal([{ email: 'k@ext.test', imap: { host: 'h.test' } }])).toContain(
      'give the password by "passwordEnv"',
    );
    const file = await tempFile('pw', 'x');
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ passwordFile: file }) }])).toContain('one of them');
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ passwordEnv: 'NOT_SET_ANYWHERE' }) }])).toContain(
      'the environment variable NOT_SET_ANYWHERE is not set',
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ passwordEnv: 'A-B' }) }])).toContain(
      "is not an environment variable's name",
    );
    expect(
      await refusal([{ email: 'k@ext.test', imap: { host: 'h.test', passwordFile: '/nonexistent/pw' } }]),
    ).toContain('passwordFile: cannot read "/nonexistent/pw" (ENOENT)');
  });

  it('refuses a bad tls mode, port, folder list, poll interval, and an account listed twice', async () => {
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ tls: 'ssl' }) }])).toContain(
      'tls: expected "tls", "starttls" or "none", got "ssl"',
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ port: 0 }) }])).toContain(
      'port: expected a whole number from 1 to 65535',
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ folders: [] }) }])).toContain(
      'expected a list of folder names',
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ folders: ['INBOX', 'inbox'] }) }])).toContain(
      'a folder is listed twice',
    );
    expect(await refusal([{ email: 'k@ext.test', imap: imap({ pollSeconds: 0 }) }])).toContain(
      'pollSeconds: expected a whole number from 1 to 3600',
    );
    expect(await refusal([{ email: 'k@ext.test', imap: 'imap.ext.test' }])).toContain('imap: expected an object');
    expect(await refusal(['k@ext.test', { email: 'K@ext.test' }])).toContain(
      'the account "k@ext.test" is listed twice',
    );
  });
});

describe('secrets and headers', () => {
  it('reads a password file without its trailing line break, and says which source is missing without any content', async () => {
    const file = await tempFile('pw', 'abcd efgh ijkl mnop\r\n');
    expect(await readPassword({ file }, {})).toBe('abcd efgh ijkl mnop');
    expect(await readPassword({ env: 'P' }, { P: 'from-env' })).toBe('from-env');
    await expect(readPassword({ env: 'P' }, {})).rejects.toThrow('the environment variable P is not set (or empty)');
    await expect(readPassword({ file: await tempFile('empty', '\n') }, {})).rejects.toThrow('is empty');
  });

  it('masks the password in any form it could take in an error', () => {
    const secret = 'Sup3r-Secret!';
    const b64 = Buffer.from(secret).toString('base64');
    const error = Object.assign(new Error(`LOGIN keeper ${secret} failed`), {
      responseText: `echo ${b64} "${secret}"`,
      code: 'X',
    });
    const text = describeImapError(error, 'imap.ext.test:993', secret);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(b64);
    expect(text).toContain('***');
    expect(maskSecret('a%20b a b', 'a b')).toBe('*** ***');
    expect(
      describeImapError(
        Object.assign(new Error('Command failed'), {
          authenticationFailed: true,
          responseText: '[AUTHENTICATIONFAILED] Authentication failed.',
        }),
        'h:1',
        secret,
      ),
    ).toBe('login refused by h:1: [AUTHENTICATIONFAILED] Authentication failed.; check the user and the password');
  });

  it('finds every address in Delivered-To, X-Original-To, To and Cc (folded, quoted, grouped), and none elsewhere', () => {
    const headers = [
      'Delivered-To: Keeper+One@Ext.Test',
      'X-Original-To: keeper+two@ext.test',
      'To: "Keeper, the <third>" <keeper+three@ext.test>,',
      '\tfriends: a@example.org, b@example.org;',
      'Cc: keeper+four@ext.test (a comment)',
      'From: keeper+sender@ext.test',
      '',
    ].join('\r\n');
    expect(recipientsOf(Buffer.from(headers))).toEqual([
      'keeper+one@ext.test',
      'keeper+two@ext.test',
      'keeper+three@ext.test',
      'a@example.org',
      'b@example.org',
      'keeper+four@ext.test',
    ]);
    expect(recipientsOf(undefined)).toEqual([]);
  });

  it('knows a loopback host (clear text allowed without a warning) from any other', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', 'imap.localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['imap.gmail.com', '10.0.0.1', '::ffff:8.8.8.8', 'localhost.example.com', '1270.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
