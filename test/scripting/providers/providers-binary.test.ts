/**
 * Done-when of issue 13, through the built program (`node dist/cli.js`), against the public providers'
 * conformance fakes on loopback: `new --provider mailtm --json` and `--provider guerrilla` create an
 * address, `wait` gets the code of a mail that arrives, `read` shows it, `delete` removes it, and
 * `forget --delete-account` deletes it at the provider. The password (mail.tm) and the tokens are in the
 * private sessions file only: never in output, never in argv.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { neutralEnv } from '../../e2e/flow';
import { spawnCli, type ServeProcess } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';

let home: string;
let mailtm: MailtmFake;
let guerrilla: GuerrillaFake;
const transcript: string[] = [];
const argvs: string[][] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tempmail-providers-bin-'));
  mailtm = await startMailtmFake();
  guerrilla = await startGuerrillaFake();
});
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await mailtm?.close();
  await guerrilla?.close();
});

const env = () => ({ ...neutralEnv(), TEMPMAIL_TUI_HOME: home });

function start(args: string[]): ServeProcess {
  argvs.push(args);
  return spawnCli(args, env());
}

async function cli(args: string[]) {
  const proc = start(args);
  const { code } = await proc.exited;
  transcript.push(proc.stdout(), proc.stderr());
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Runs `wait` until it says it is waiting, then `send`s; resolves with what `wait` printed. */
async function waitWhile(args: string[], send: () => void) {
  const proc = start(['wait', ...args]);
  await waitFor(() => proc.stderr().includes('Waiting for') || proc.child.exitCode !== null, {
    timeoutMs: 20_000,
    message: 'wait to start',
  });
  send();
  const { code } = await proc.exited;
  transcript.push(proc.stdout(), proc.stderr());
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

const CODE_MAIL = {
  subject: 'Your Acme verification code',
  text: 'Your verification code is 640215. It expires in 10 minutes.',
};

describe('the built program on the public providers (fakes)', () => {
  it('providers lists them with base URLs and offline; domains --provider guerrilla lists its fixed domains', async () => {
    const listed = await cli(['providers']);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ['tempmail', 'https://mailtemp.us/api/', 'offline yes'],
      ['mailtm', 'https://api.mail.tm/', 'offline no'],
      ['guerrilla', 'https://api.guerrillamail.com/', 'offline no'],
      ['tempmaillol', 'https://api.tempmail.lol/', 'offline no'],
    ]);
    const json = JSON.parse(
      (await cli(['providers', '--json', '--provider', 'mailtm', '--base-url', 'https://api.mail.gw'])).stdout,
    );
    expect(json.providers.find((p: { name: string }) => p.name === 'mailtm')).toMatchObject({
      baseUrl: 'https://api.mail.gw/',
      configured: true,
      offline: false,
      requestsPerSecond: 8,
      lifetimeMinutes: null,
    });
    const domains = await cli(['domains', '--provider', 'guerrilla', '--base-url', guerrilla.baseUrl]);
    expect(domains.code).toBe(0);
    expect(domains.stdout.split('\n')[0]).toBe('1\tdomain\tguerrillamail.com');
    expect(domains.stdout).toContain('\tdomain\tsharklasers.com\n');
  });

  it('mail.tm: new --json, wait for a code, read, delete, forget --delete-account', async () => {
    const made = await cli(['new', '--provider', 'mailtm', '--base-url', mailtm.baseUrl, '--json']);
    expect(made.code).toBe(0);
    const session = JSON.parse(made.stdout);
    expect(session).toEqual({
      email: expect.stringMatching(/@(mailtm|inbox-tm)\.test$/),
      expiresAt: null,
      provider: 'mailtm',
      baseUrl: mailtm.baseUrl,
      createdAt: expect.any(String),
    });
    expect(made.stderr).toContain(`Saved ${session.email} on mail.tm; no expiry`);
    const saved = openSavedSessions({ env: env() })
      .listLive()
      .find((s) => s.email === session.email)!;
    expect(saved).toMatchObject({ provider: 'mailtm', expiresAt: null, accountId: mailtm.accounts()[0]!.id });
    expect(saved.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(openSavedSessions({ env: env() }).file).mode & 0o777).toBe(0o600);

    // No --provider now: the saved address carries its own.
    const waited = await waitWhile(['--print', 'code', '--timeout', '30'], () =>
      mailtm.deliver(session.email, {
        from: { name: 'Acme Accounts', address: 'accounts@acme.example' },
        ...CODE_MAIL,
      }),
    );
    expect(waited).toMatchObject({ code: 0, stdout: '640215\n' });

    const listed = JSON.parse((await cli(['list', '--json'])).stdout);
    expect(listed.address).toBe(session.email);
    const id = listed.messages[0].id as string;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const read = await cli(['read', id, '--json']);
    expect(JSON.parse(read.stdout)).toMatchObject({
      id,
      subject: CODE_MAIL.subject,
      code: '640215',
      senderEmail: 'accounts@acme.example',
    });
    expect((await cli(['delete', id])).code).toBe(0);
    expect(JSON.parse((await cli(['list', '--json'])).stdout).messages).toEqual([]);

    const forgot = await cli(['forget', '--delete-account']);
    expect(forgot).toMatchObject({ code: 0 });
    expect(forgot.stderr).toContain(`Deleted ${session.email} at mail.tm`);
    expect(mailtm.accounts()).toEqual([]);
    expect(
      openSavedSessions({ env: env() })
        .listLive()
        .some((s) => s.email === session.email),
    ).toBe(false);
    // The password and tokens never left the sessions file.
    const secrets = [saved.password!, saved.token];
    for (const text of [...transcript, ...argvs.flat()])
      for (const secret of secrets) expect(text.includes(secret)).toBe(false);
  });

  it('Guerrilla Mail: new --json, wait for a code, read, delete', async () => {
    const made = await cli([
      'new',
      '--provider',
      'guerrilla',
      '--base-url',
      guerrilla.baseUrl,
      '--domain',
      'sharklasers.com',
      '--json',
    ]);
    expect(made.code).toBe(0);
    const session = JSON.parse(made.stdout);
    expect(session).toMatchObject({
      email: expect.stringMatching(/@sharklasers\.com$/),
      provider: 'guerrilla',
      baseUrl: guerrilla.baseUrl,
    });
    expect(Date.parse(session.expiresAt) - Date.now()).toBeGreaterThan(58 * 60_000);
    const waited = await waitWhile(['--print', 'code', '--timeout', '30', '--address', session.email], () =>
      guerrilla.deliver(session.email, {
        from: 'Acme Accounts <accounts@acme.example>',
        subject: CODE_MAIL.subject,
        body: `<p>${CODE_MAIL.text}</p>`,
      }),
    );
    expect(waited).toMatchObject({ code: 0, stdout: '640215\n' });
    const listed = JSON.parse((await cli(['list', '--json', '--address', session.email])).stdout);
    // The welcome message is not listed: only the mail sent to the address.
    expect(listed.messages).toHaveLength(1);
    const id = listed.messages[0].id as number;
    expect(typeof id).toBe('number');
    const read = await cli(['read', String(id), '--address', session.email]);
    expect(read.stdout).toContain('Code: 640215\n');
    expect(read.stdout).toContain('From: Acme Accounts <accounts@acme.example>\n');
    expect((await cli(['delete', String(id), '--address', session.email])).code).toBe(0);
    expect(guerrilla.inbox(session.email)).toEqual([1]);
    const saved = openSavedSessions({ env: env() })
      .listLive()
      .find((s) => s.email === session.email)!;
    for (const text of [...transcript, ...argvs.flat()]) expect(text.includes(saved.token)).toBe(false);
  });

  it('a provider that is down: a line in words, exit 1, and a hint to try another', async () => {
    mailtm.failNext(503, 10);
    const res = await cli(['new', '--provider', 'mailtm', '--base-url', mailtm.baseUrl]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^tempmail-tui new: The service failed \(HTTP 503\).*; or try another provider \(tempmail-tui providers\)\n$/,
    );
  });
});
