import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { COMMAND_OPTIONS, COMMON_OPTIONS } from '../../src/scripting/args';
import { SCRIPT_COMMANDS } from '../../src/scripting/commands-list';
import { sendMail, startTestService, type TestService } from '../harness/service';
import { BIG_HTML_END, bigHtml, makeRunner, type Runner } from './run';

let svc: TestService;
let r: Runner;
let base: string[];

beforeAll(async () => {
  svc = await startTestService({
    domains: ['tempmail.test', 'inbox.test'],
    extmailAccounts: [{ email: 'owner@extmail.test', dotInsensitive: false }],
    createPerMinute: 1000,
  });
  r = makeRunner();
  base = ['--base-url', svc.baseUrl];
});
afterAll(async () => {
  // No token of any saved session ever reached stdout or stderr in this file (only --show-token may).
  const tokens = openSavedSessions({ env: r.env })
    .listLive()
    .map((s) => s.token);
  const all = r.transcript.join('');
  const shown = tokens.filter((t) => all.includes(t));
  expect(shown.length).toBeLessThanOrEqual(1);
  r.cleanup();
  await svc.close();
});

describe('new', () => {
  it('refuses to run without a configured service (exit 2)', async () => {
    const res = await r.run('new', []);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      'tempmail-tui new: no service configured: pass --provider mailtm, tempmaillol or guerrilla for a public inbox, --provider tempmail for mailtemp.us, or --base-url for another service of the interface (`tempmail-tui serve` runs one and prints its URL)\n',
    );
  });

  it('names all four provider families in the hint of a missing service', async () => {
    const res = await r.run('new', []);
    expect(res.stderr).toMatch(/mailtm, tempmaillol or guerrilla/);
    expect(res.stderr).toContain('--provider tempmail for mailtemp.us');
  });

  it("a name the service refuses (--prefix 'Bad Name') is a usage error: exit 2, the rule said", async () => {
    const res = await r.run('new', [...base, '--prefix', 'Bad Name']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('prefix may only contain the letters a-z');
  });

  it('creates, saves (0600) and prints the address only', async () => {
    const res = await r.run('new', base);
    expect(res.code).toBe(0);
    const email = res.stdout.trim();
    expect(email).toMatch(/^[a-z0-9._-]+@(tempmail|inbox)\.test$/);
    expect(res.stdout).toBe(`${email}\n`);
    expect(res.stderr).toMatch(new RegExp(`^Saved ${email}; expires in \\d+:\\d\\d`));
    const store = openSavedSessions({ env: r.env });
    const saved = store.listLive().find((s) => s.email === email)!;
    expect(saved.baseUrl).toBe(svc.baseUrl);
    expect(res.stdout + res.stderr).not.toContain(saved.token);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('--prefix and --domain by name; a taken prefix is exit 1 with the reason', async () => {
    const res = await r.run('new', [...base, '--prefix', 'alice', '--domain', 'inbox.test', '--json']);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ email: 'alice@inbox.test', baseUrl: svc.baseUrl });
    expect(Date.parse(out.expiresAt)).toBeGreaterThan(Date.now());
    expect(out).not.toHaveProperty('token');
    const again = await r.run('new', [...base, '--prefix', 'alice', '--domain', 'inbox.test']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('tempmail-tui new: alice@inbox.test is taken; try another name\n');
    const unknown = await r.run('new', [...base, '--domain', 'nope.test']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('no domain "nope.test" on this service (available: tempmail.test, inbox.test)');
  });

  it('--show-token prints the token, on the second line or in JSON', async () => {
    const text = await r.run('new', [...base, '--show-token', '--quiet']);
    const [email, token] = text.stdout.trim().split('\n');
    expect(text.stderr).toBe('');
    const saved = openSavedSessions({ env: r.env })
      .listLive()
      .find((s) => s.email === email)!;
    expect(token).toBe(saved.token);
    expect(token!.length).toBeGreaterThan(20);
  });

  it('--extmail and --account make external-mail aliases', async () => {
    const auto = await r.run('new', [...base, '--extmail', '-q']);
    expect(auto.code).toBe(0);
    expect(auto.stdout).toMatch(/^owner\+[^@]+@extmail\.test\n$/);
    const chosen = await r.run('new', [...base, '--account', 'OWNER@extmail.test', '-q']);
    expect(chosen.stdout).toMatch(/^owner\+[^@]+@extmail\.test\n$/);
    const bad = await r.run('new', [...base, '--extmail', '--account', 'x@y.test']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('no external-mail account "x@y.test" on this service (available: owner@extmail.test)');
    expect((await r.run('new', [...base, '--extmail', '--domain', 'inbox.test'])).code).toBe(2);
  });
});

describe('domains', () => {
  it('lists domains and accounts as lines and as JSON', async () => {
    const text = await r.run('domains', base);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^\d+\tdomain\ttempmail\.test\n\d+\tdomain\tinbox\.test\n\d+\textmail\towner@extmail\.test\n$/,
    );
    const json = JSON.parse((await r.run('domains', [...base, '--json'])).stdout);
    expect(json.domains.map((d: { domain: string }) => d.domain)).toEqual(['tempmail.test', 'inbox.test']);
    expect(json.extmailAccounts).toEqual([{ id: expect.any(Number), email: 'owner@extmail.test' }]);
  });

  it('takes the service from TEMPMAIL_BASE_URL and from config.json', async () => {
    expect((await r.run('domains', [], { env: { TEMPMAIL_BASE_URL: svc.baseUrl } })).code).toBe(0);
    const { mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    mkdirSync(join(r.home, 'config'), { recursive: true });
    writeFileSync(join(r.home, 'config', 'config.json'), JSON.stringify({ baseUrl: svc.baseUrl }));
    try {
      expect((await r.run('domains', [])).code).toBe(0);
      writeFileSync(join(r.home, 'config', 'config.json'), '{"pollIntervalSeconds": "fast"}');
      const bad = await r.run('domains', []);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('config.json: pollIntervalSeconds must be a number of seconds >= 1, got "fast"');
    } finally {
      rmSync(join(r.home, 'config', 'config.json'));
    }
  });

  it('says the service is unreachable, exit 1, no stack', async () => {
    const res = await r.run('domains', ['--base-url', 'http://127.0.0.1:9/']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^tempmail-tui domains: .*unreachable/i);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('list and read', () => {
  it('list: nothing yet, then the messages of the newest saved address; read: text and JSON', async () => {
    const created = await r.run('new', [...base, '-q']);
    const email = created.stdout.trim();
    const empty = await r.run('list', []);
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toBe(`No messages yet for ${email}\n`);

    await sendMail(svc, {
      from: 'GitHub <noreply@github.test>',
      to: email,
      subject: '[GitHub] Please verify your device',
      text: 'Hey!\n\nVerification code: 482913\n\nIf you did not try to sign in, change your password at https://github.test/settings.\n',
    });
    const list = await r.run('list', ['--address', email.toUpperCase()]);
    expect(list.code).toBe(0);
    const [line, ...rest] = list.stdout.split('\n');
    expect(rest).toEqual(['']);
    const [id, when, from, subject] = line!.split('\t');
    expect(id).toMatch(/^\d+$/);
    expect(when).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(from).toBe('GitHub <noreply@github.test>');
    expect(subject).toBe('[GitHub] Please verify your device');
    const listJson = JSON.parse((await r.run('list', ['--json'])).stdout);
    expect(listJson).toEqual({
      address: email,
      messages: [
        { id: Number(id), senderName: 'GitHub', senderEmail: 'noreply@github.test', subject, receivedAt: when },
      ],
    });

    const read = await r.run('read', [id!]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('From: GitHub <noreply@github.test>\n');
    expect(read.stdout).toContain('Subject: [GitHub] Please verify your device\n');
    expect(read.stdout).toContain('Code: 482913\n');
    expect(read.stdout).toContain('Verification code: 482913');
    const readJson = JSON.parse((await r.run('read', [id!, '--json'])).stdout);
    expect(readJson).toMatchObject({ id: Number(id), code: '482913', subject, to: [email], attachments: [] });
    expect(readJson.text).toContain('Verification code: 482913');
  });

  it('read prints the whole of a 600 KB HTML message (no viewer cap in a script), its last paragraph too', async () => {
    const email = (await r.run('new', [...base, '-q'])).stdout.trim();
    await sendMail(svc, { to: email, subject: 'long newsletter', html: bigHtml() });
    const id = (await r.run('list', [])).stdout.split('\t')[0]!;
    const read = await r.run('read', [id]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain(BIG_HTML_END);
    expect(read.stdout).not.toContain('message truncated');
    expect(JSON.parse((await r.run('read', [id, '--json'])).stdout).text).toContain(BIG_HTML_END);
  });

  it('read: unknown id is exit 1; a bad or missing id is exit 2', async () => {
    await r.run('new', [...base, '-q']);
    const missing = await r.run('read', ['99999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^tempmail-tui read: /);
    expect((await r.run('read', ['abc'])).code).toBe(2);
    expect((await r.run('read', [])).code).toBe(2);
    expect((await r.run('read', ['1', '2'])).code).toBe(2);
  });

  it('an address that is not saved is exit 1', async () => {
    const res = await r.run('list', ['--address', 'nobody@tempmail.test']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('"nobody@tempmail.test" is not a saved live address');
  });
});

describe('usage', () => {
  it('unknown options, missing values and --help', async () => {
    const unknown = await r.run('list', ['--frobnicate']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe('tempmail-tui list: unknown option --frobnicate (see tempmail-tui list --help)\n');
    const missing = await r.run('new', ['--prefix']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('option --prefix needs a value');
    const help = await r.run('wait', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tempmail-tui wait');
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 timeout / not found / service error, 2 usage');
    expect((await r.run('bogus', [])).code).toBe(2);
  });

  it('--show-token is for new alone: the other commands refuse it as an unknown option (exit 2, nothing asked)', async () => {
    for (const [command, args] of [
      ['list', []],
      ['domains', []],
      ['read', ['1']],
      ['wait', ['--timeout', '1']],
    ] as const) {
      const res = await r.run(command, [...base, ...args, '--show-token']);
      expect(res, command).toMatchObject({ code: 2, stdout: '' });
      expect(res.stderr).toBe(
        `tempmail-tui ${command}: unknown option --show-token (see tempmail-tui ${command} --help)\n`,
      );
    }
  });

  it("each command's --help lists exactly the options it takes", async () => {
    for (const command of SCRIPT_COMMANDS) {
      const help = (await r.run(command, ['--help'])).stdout;
      const listed = new Set([...help.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]));
      const taken = Object.keys({ ...COMMON_OPTIONS, ...COMMAND_OPTIONS[command] });
      expect([...listed].sort(), command).toEqual(taken.sort());
    }
    expect((await r.run('new', ['--help'])).stdout).toContain('--show-token');
  });

  it('the saved sessions file is shared with the app format', () => {
    const file = openSavedSessions({ env: r.env }).file;
    const data = JSON.parse(readFileSync(file, 'utf8'));
    expect(data.version).toBe(1);
    expect(Object.keys(data.sessions[0]).sort()).toEqual([
      'baseUrl',
      'createdAt',
      'email',
      'expiresAt',
      'provider',
      'token',
      'usedAt',
    ]);
  });
});
