/**
 * The log answers "why didn't my mail arrive?": one line per refused recipient (with the reply the sender
 * got) and a stored line naming the sender and the recipients. Real SMTP to the real service; the
 * in-process logger for the refusal kinds (a moved clock for "expired"), the built `serve` for the
 * terminal-safe stderr and the token that must never appear there.
 */
import { describe, expect, it } from 'vitest';
import { isTerminalSafe } from '../../../src/text/safe-text';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { sendMail, startTestService, type SmtpTarget } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
/** `text` as a literal inside a RegExp. */
const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The fields a refusal's line ends with: who asked (this test's loopback client), over TLS or not, why. */
const refusedBy = (reason: string) => ` | client=127.0.0.1 tls=no reason=${reason}`;
/** The fields of a stored line: the client, TLS, and the Message-ID nodemailer gave the message. */
const STORED_FIELDS = ' \\| client=127\\.0\\.0\\.1 tls=no message_id=<[^>\\s]+>';

async function session(baseUrl: string, prefix: string): Promise<{ email: string; token: string }> {
  const res = await call(baseUrl, '/create-session', { form: { prefix } });
  expect(res.status).toBe(200);
  return res.json as { email: string; token: string };
}

/** One SMTP transaction that only asks: MAIL FROM, then each RCPT; resolves with the RCPT replies. */
async function askRcpts(target: SmtpTarget, from: string, rcpts: string[]): Promise<string[]> {
  const smtp = await openSmtp(target);
  try {
    expect(await smtp.command('EHLO log.test')).toMatch(/^250/);
    expect(await smtp.command(`MAIL FROM:<${from}>`)).toMatch(/^250/);
    const replies: string[] = [];
    for (const rcpt of rcpts) replies.push(await smtp.command(`RCPT TO:<${rcpt}>`));
    await smtp.command('QUIT');
    return replies;
  } finally {
    smtp.destroy();
  }
}

describe('SMTP log lines', () => {
  it("keeps a sender's Message-ID to its own field: it cannot write fields of its own into a text line", async () => {
    // The text line's fields are `key=value` after a bar: a Message-ID with a space, a bar or an `=` in it
    // wrote a second client= and tls=yes, which a reader (or a grep for client=) took for the service's.
    const svc = cleanup.defer(await startTestService(), (s) => s.close());
    const bob = await session(svc.baseUrl, 'bob');
    const forged = '<a@b.example> | client=10.9.9.9 tls=yes';
    const raw = `From: a@x.org\r\nTo: ${bob.email}\r\nSubject: x\r\nMessage-ID: ${forged}\r\n\r\nhi\r\n`;
    await sendMail(svc, { from: 'a@x.org', to: bob.email, raw });
    const stored = svc.logs.filter((l) => l.startsWith('smtp stored'));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(
      / \| client=127\.0\.0\.1 tls=no message_id="<a@b\.example> \| client=10\.9\.9\.9 tls=yes"$/,
    );
    // Read as a reader of the format does (a value is a word, or a quoted string): three fields, the id whole.
    const suffix = stored[0]!.slice(stored[0]!.indexOf(' | ') + 3);
    const fields = [...suffix.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)].map((m) => [
      m[1],
      m[2]!.startsWith('"') ? JSON.parse(m[2]!) : m[2],
    ]);
    expect(fields).toEqual([
      ['client', '127.0.0.1'],
      ['tls', 'no'],
      ['message_id', forged],
    ]);
  });

  it('logs every refused recipient with its reply, and a stored message with sender and recipients', async () => {
    let now = Date.now();
    const svc = cleanup.defer(
      await startTestService({ inboxLimit: 1, maxRecipients: 3, lifetimeSeconds: 600 }, { clock: () => now }),
      (s) => s.close(),
    );
    const old = await session(svc.baseUrl, 'old');
    now += 300_000;
    const bob = await session(svc.baseUrl, 'bob');

    await sendMail(svc, { from: 'a@x.org', to: bob.email, subject: 'first', text: 'hi' });
    const stored = svc.logs.filter((l) => l.startsWith('smtp stored'));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(
      new RegExp(`^smtp stored \\d+ bytes from a@x\\.org for ${esc(bob.email)}${STORED_FIELDS}$`),
    );

    // Bob's inbox (limit 1) is full now; old's session is moved past its end (bob's is not).
    now += 301_000;
    const replies = await askRcpts(svc, 'a@x.org', [
      bob.email,
      'nobody@tempmail.test',
      'someone@elsewhere.example',
      old.email,
    ]);
    expect(replies.map((r) => r.slice(0, 9))).toEqual(['452 4.2.2', '550 5.1.1', '550 5.7.1', '550 5.1.1']);
    const refused = svc.logs.filter((l) => l.startsWith('smtp refused'));
    expect(refused).toEqual([
      `smtp refused RCPT ${bob.email} from a@x.org: 452 4.2.2 Mailbox full, try again later${refusedBy('mailbox_full')}`,
      `smtp refused RCPT nobody@tempmail.test from a@x.org: 550 5.1.1 No such mailbox${refusedBy('no_such_mailbox')}`,
      `smtp refused RCPT someone@elsewhere.example from a@x.org: 550 5.7.1 Relay access denied${refusedBy('relay_denied')}`,
      `smtp refused RCPT ${old.email} from a@x.org: 550 5.1.1 Mailbox expired${refusedBy('expired')}`,
    ]);
  });

  it('logs too many recipients, and a bounce (null sender) as <>', async () => {
    const svc = cleanup.defer(await startTestService({ maxRecipients: 1 }), (s) => s.close());
    const carol = await session(svc.baseUrl, 'carol');
    const dave = await session(svc.baseUrl, 'dave');
    const replies = await askRcpts(svc, '', [carol.email, dave.email]);
    expect(replies.map((r) => r.slice(0, 9))).toEqual(['250 Accep', '452 4.5.3']);
    expect(svc.logs.filter((l) => l.startsWith('smtp refused'))).toEqual([
      `smtp refused RCPT ${dave.email} from <>: 452 4.5.3 Too many recipients (at most 1 per message)${refusedBy('too_many_recipients')}`,
    ]);
  });

  it('names several recipients on the stored line', async () => {
    const svc = cleanup.defer(await startTestService(), (s) => s.close());
    const one = await session(svc.baseUrl, 'one');
    const two = await session(svc.baseUrl, 'two');
    await sendMail(svc, { from: 'list@lists.example', to: [one.email, two.email], text: 'both' });
    expect(svc.logs.find((l) => l.startsWith('smtp stored'))).toMatch(
      new RegExp(
        `^smtp stored \\d+ bytes from list@lists\\.example for ${esc(one.email)}, ${esc(two.email)}${STORED_FIELDS}$`,
      ),
    );
  });

  it("writes them to serve's stderr terminal-safe, and never the token", async () => {
    const dir = await cleanup.tempDir('tempmail-smtp-log-');
    const serve = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p, 'SIGKILL'));
    const erin = await session(serve.baseUrl, 'erin');
    await call(serve.baseUrl, '/check-mail', { query: { token: erin.token } });
    // smtp-server refuses C0/C1 controls in an address itself (501), but a bidi override gets through
    // to our RCPT check: it reaches the log only through the terminal-safe boundary.
    const hostile = '\u202egnp@tempmail.test';
    const replies = await askRcpts(serve, 'a@x.org', [hostile, 'ghost@tempmail.test']);
    expect(replies.every((r) => /^5\d\d /.test(r))).toBe(true);
    await sendMail(serve, { from: 'a@x.org', to: erin.email, text: 'hello' });
    const err = await waitFor(() => (/smtp stored/.test(serve.stderr()) ? serve.stderr() : undefined), {
      message: 'the stored line',
    });
    expect(err).toMatch(
      / smtp refused RCPT ghost@tempmail\.test from a@x\.org: 550 5\.1\.1 No such mailbox \| client=127\.0\.0\.1 tls=no reason=no_such_mailbox\n/,
    );
    expect(err).toMatch(new RegExp(` smtp stored \\d+ bytes from a@x\\.org for ${esc(erin.email)}${STORED_FIELDS}\\n`));
    expect(err).toMatch(
      / smtp refused RCPT .*gnp@tempmail\.test from a@x\.org: 550 5\.1\.1 No such mailbox \| client=127\.0\.0\.1 tls=no reason=no_such_mailbox\n/,
    );
    expect(err).not.toContain('\u202e');
    expect(isTerminalSafe(err.replace(/\n/g, ' '))).toBe(true);
    expect(await stopServe(serve)).toEqual({ code: 0, signal: null });
    expect(serve.stdout() + serve.stderr()).not.toContain(erin.token);
  });
});
