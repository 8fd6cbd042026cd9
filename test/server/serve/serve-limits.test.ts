/**
 * The limit flags of `tempmail-tui serve` take effect: the built dist/cli.js as a child process, started
 * with every one of them at a value no default has, and each checked on the wire. --lifetime-seconds,
 * --max-message-bytes, --max-recipients, --create-per-minute and --extmail-account go to one child;
 * --lifetime-minutes (exclusive with --lifetime-seconds) to a second, started alongside.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../harness/http';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const LIFETIME_SECONDS = 754;
const MAX_BYTES = 4096;
const MAX_RECIPIENTS = 2;
const CREATE_PER_MINUTE = 3;
const LIFETIME_MINUTES = '1.5';

interface Created {
  email: string;
  token: string;
  expires_at: string;
  /** Date.now() just before and just after the request. */
  before: number;
  after: number;
}

let dirs: string[] = [];
let serve: ServeReady | undefined;
let minutes: ServeReady | undefined;
/** The CREATE_PER_MINUTE sessions the limit allows: two on the domain, one external-mail alias. */
let a: Created;
let b: Created;
let alias: Created;

async function create(target: ServeReady, form: Record<string, string> = {}): Promise<Created> {
  const before = Date.now();
  const res = await call(target.baseUrl, '/create-session', { form });
  const after = Date.now();
  expect(res.status, res.bytes.toString('utf8')).toBe(200);
  return { ...(res.json as { email: string; token: string; expires_at: string }), before, after };
}

/** Seconds from `created` to its expires_at (a wire time in UTC, whole seconds), as [low, high] bounds. */
function lifetimeBounds(created: Created): [number, number] {
  const expires = Date.parse(`${created.expires_at.replace(' ', 'T')}Z`);
  // The wire drops the milliseconds: the expiry can read up to a second early.
  return [(expires - created.after) / 1000, (expires + 1000 - created.before) / 1000];
}

async function subjects(target: ServeReady, token: string): Promise<string[]> {
  const res = await call(target.baseUrl, '/check-mail', { query: { token } });
  expect(res.status).toBe(200);
  return res.json!.messages.map((m: { subject: string }) => m.subject);
}

/** A message of exactly `size` bytes as DATA carries it (headers, blank line, body lines, final CRLF). */
function messageOfSize(to: string, subject: string, size: number): string {
  let text = `From: sizer@example.org\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\n`;
  while (text.length < size) {
    const room = size - text.length;
    // Lines of x (no leading dot, well under 998 characters); the last one fills to the byte.
    text += room > 72 ? `${'x'.repeat(70)}\r\n` : `${'y'.repeat(Math.max(0, room - 2))}\r\n`;
  }
  expect(Buffer.byteLength(text)).toBe(size);
  return text;
}

beforeAll(async () => {
  dirs = await Promise.all([mkdtemp(join(tmpdir(), 'tempmail-limits-')), mkdtemp(join(tmpdir(), 'tempmail-limits-'))]);
  // Both start together; each is kept as soon as it is up, so afterAll stops it even if the other failed.
  const started = await Promise.allSettled([
    startServeProcess([
      '--data-dir',
      dirs[0]!,
      '--domain',
      'limits.test',
      '--extmail-account',
      'j.doe@corp.example:dots',
      '--lifetime-seconds',
      String(LIFETIME_SECONDS),
      '--max-message-bytes',
      String(MAX_BYTES),
      '--max-recipients',
      String(MAX_RECIPIENTS),
      '--create-per-minute',
      String(CREATE_PER_MINUTE),
    ]).then((p) => (serve = p)),
    startServeProcess(['--data-dir', dirs[1]!, '--lifetime-minutes', LIFETIME_MINUTES]).then((p) => (minutes = p)),
  ]);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  a = await create(serve!);
  b = await create(serve!);
  alias = await create(serve!, { use_extmail: '1' });
});

afterAll(async () => {
  for (const proc of [serve, minutes]) if (proc) await stopServe(proc);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('serve limit flags, on the built program', () => {
  it('--lifetime-seconds: expires_at is that many seconds away', () => {
    for (const s of [a, b, alias]) {
      const [low, high] = lifetimeBounds(s);
      expect(low).toBeLessThanOrEqual(LIFETIME_SECONDS);
      expect(high).toBeGreaterThanOrEqual(LIFETIME_SECONDS);
      expect(high - low).toBeLessThan(3);
    }
  });

  it('--lifetime-minutes (fractions allowed): expires_at is that many minutes away', async () => {
    const s = await create(minutes!);
    const [low, high] = lifetimeBounds(s);
    const seconds = Number(LIFETIME_MINUTES) * 60;
    expect(low).toBeLessThanOrEqual(seconds);
    expect(high).toBeGreaterThanOrEqual(seconds);
  });

  it('--extmail-account: listed, and use_extmail=1 gives an alias of it (dot variants with :dots)', async () => {
    const domains = (await call(serve!.baseUrl, '/domains')).json!;
    expect(domains.domains).toEqual([{ id: 1, domain: 'limits.test' }]);
    expect(domains.extmail_accounts).toEqual([{ id: 1, email: 'j.doe@corp.example' }]);
    const [local = '', domain] = alias.email.split('@');
    expect(domain).toBe('corp.example');
    const [name = '', tag] = local.split('+');
    expect(name.replaceAll('.', '')).toBe('jdoe');
    expect(tag).toMatch(/^[a-z0-9._-]+$/);
    expect(a.email).toMatch(/@limits\.test$/);
  });

  it('--max-message-bytes: SIZE in EHLO, a message of exactly the limit is stored, one byte more is 552', async () => {
    const smtp = await openSmtp(serve!);
    try {
      const ehlo = await smtp.command('EHLO limits.client');
      expect(ehlo).toMatch(new RegExp(`^250[- ]SIZE ${MAX_BYTES}$`, 'm'));

      // Declared too big in MAIL FROM: refused before any byte is sent.
      expect(await smtp.command(`MAIL FROM:<sizer@example.org> SIZE=${MAX_BYTES + 1}`)).toMatch(/^552 5\.3\.4 /);

      for (const [size, expected] of [
        [MAX_BYTES, /^250 /],
        [MAX_BYTES + 1, new RegExp(`^552 5\\.3\\.4 Message too big \\(limit ${MAX_BYTES} bytes\\)`)],
      ] as const) {
        expect(await smtp.command('MAIL FROM:<sizer@example.org>')).toMatch(/^250 /);
        expect(await smtp.command(`RCPT TO:<${a.email}>`)).toMatch(/^250 /);
        expect(await smtp.command('DATA')).toMatch(/^354 /);
        smtp.write(`${messageOfSize(a.email, `size ${size}`, size)}.\r\n`);
        expect(await smtp.reply(), `a message of ${size} bytes`).toMatch(expected);
      }
      await smtp.command('QUIT');
    } finally {
      smtp.destroy();
    }
    expect(await subjects(serve!, a.token)).toEqual([`size ${MAX_BYTES}`]);

    // nodemailer, a real sender, hears the same refusal.
    const refused = await sendMail(serve!, { to: a.email, subject: 'too big', text: 'z'.repeat(MAX_BYTES) }).then(
      () => undefined,
      (e: { responseCode?: number }) => e,
    );
    expect(refused?.responseCode).toBe(552);
    expect(await subjects(serve!, a.token)).not.toContain('too big');
  });

  it('--max-recipients: recipient N+1 of one transaction gets 452, the first N get the message', async () => {
    const info = await sendMail(serve!, { to: [a.email, alias.email, b.email], subject: 'for two', text: 'hello' });
    expect(info.accepted).toEqual([a.email, alias.email]);
    expect(info.rejected).toEqual([b.email]);
    const errors = (info as { rejectedErrors?: { responseCode?: number; response?: string }[] }).rejectedErrors ?? [];
    expect(errors.map((e) => e.responseCode)).toEqual([452]);
    expect(errors[0]?.response).toMatch(
      new RegExp(`^452 4\\.5\\.3 Too many recipients \\(at most ${MAX_RECIPIENTS} per message\\)`),
    );
    await waitFor(async () => (await subjects(serve!, alias.token)).includes('for two'), {
      message: 'the message at the alias',
    });
    expect(await subjects(serve!, a.token)).toContain('for two');
    expect(await subjects(serve!, b.token)).not.toContain('for two');
  });

  it('--create-per-minute: creation N+1 is 429 with Retry-After', async () => {
    const res = await call(serve!.baseUrl, '/create-session', { form: {} });
    expect(res.status).toBe(429);
    expect(res.json).toMatchObject({ status: 'error', error: 'rate_limited' });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The other child has its own limit: one creation there is nowhere near it.
    expect((await call(minutes!.baseUrl, '/create-session', { form: {} })).status).toBe(200);
  });
});
