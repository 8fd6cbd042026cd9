import { describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { BIG_HTML_END, bigHtml, type RunResult, scriptFixture } from '../run';

const fx = scriptFixture();

/** A fresh saved address on the test service. */
async function newAddress(): Promise<string> {
  const res = await fx.r.run('new', ['--base-url', fx.svc.baseUrl, '-q']);
  expect(res.code).toBe(0);
  return res.stdout.trim();
}

/** Starts `wait` and resolves once it has taken its baseline: its "Waiting for" line says so. */
async function startWait(args: string[], options: { signal?: AbortSignal } = {}) {
  const running = fx.r.run('wait', ['--interval', '0.2', ...args], options);
  await waitFor(() => running.live.stderr.includes('Waiting for') || running.live.code !== -1, {
    message: 'wait to start',
  });
  // Not the promise itself: returning a thenable from an async function would await the whole wait.
  return { live: running.live, done: running as Promise<RunResult> };
}

const signup = (to: string, code = '739204') => ({
  from: 'Acme Accounts <accounts@acme.test>',
  to,
  subject: 'Your Acme verification code',
  text: `Welcome to Acme!\n\nYour verification code is ${code}. It expires in 10 minutes.\n\nAcme Inc., 1200 Market St, 94103\n`,
});

describe('wait', () => {
  it('--print code: blocks until the mail arrives, prints only the code, exit 0', async () => {
    const email = await newAddress();
    const running = await startWait(['--print', 'code', '--timeout', '20']);
    expect(running.live.code).toBe(-1);
    await sendMail(fx.svc, signup(email));
    const res = await running.done;
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('739204\n');
    expect(res.stderr).toContain(`Waiting for a code at ${email}`);
  });

  it('ignores messages that were already there, unless --existing', async () => {
    const email = await newAddress();
    await sendMail(fx.svc, signup(email, '111111'));
    await waitFor(async () => (await fx.r.run('list', ['-q'])).stdout !== '', { message: 'first mail listed' });
    const running = await startWait(['--print', 'code', '--timeout', '20']);
    expect(running.live.stderr).toContain('(ignoring 1 earlier; --existing includes them)');
    await sendMail(fx.svc, signup(email, '222222'));
    expect((await running.done).stdout).toBe('222222\n');
    const existing = await fx.r.run('wait', ['--print', 'code', '--existing', '--timeout', '5', '--interval', '0.2']);
    expect(existing.stdout).toBe('111111\n');
  });

  it('--from and --subject (case-insensitive regexes) skip other mail; --print link and json', async () => {
    const email = await newAddress();
    const running = await startWait(['--from', 'GITHUB', '--subject', 'confirm', '--print', 'link', '--timeout', '20']);
    await sendMail(fx.svc, {
      from: 'Newsletter <news@shop.test>',
      to: email,
      subject: 'Please confirm',
      text: 'https://shop.test/confirm?t=1',
    });
    await sendMail(fx.svc, { from: 'GitHub <noreply@github.test>', to: email, subject: 'Welcome', text: 'hello' });
    await sendMail(fx.svc, {
      from: 'GitHub <noreply@github.test>',
      to: email,
      subject: 'Confirm your email address',
      html: '<p>Almost done.</p><p><a href="https://github.test/users/confirm?token=Zx81kQ">Confirm email</a></p><p><a href="https://github.test/unsubscribe">Unsubscribe</a></p>',
    });
    const res = await running.done;
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('https://github.test/users/confirm?token=Zx81kQ\n');

    const json = await startWait(['--print', 'json', '--timeout', '20']);
    await sendMail(fx.svc, signup(email, '605118'));
    const out = JSON.parse((await json.done).stdout);
    expect(out).toMatchObject({
      subject: 'Your Acme verification code',
      senderEmail: 'accounts@acme.test',
      code: '605118',
      to: [email],
    });

    // --json, listed with every command's options, means the same here.
    const same = await startWait(['--json', '--timeout', '20']);
    await sendMail(fx.svc, signup(email, '605119'));
    expect(JSON.parse((await same.done).stdout)).toMatchObject({ code: '605119', to: [email] });
  });

  it('--print code skips a matching message without a code and keeps waiting', async () => {
    const email = await newAddress();
    const running = await startWait(['--print', 'code', '--timeout', '20']);
    await sendMail(fx.svc, { to: email, subject: 'Welcome aboard', text: 'Thanks for joining. No code here.' });
    await waitFor(() => running.live.stderr.includes('has no code; still waiting'), {
      timeoutMs: 10_000,
      message: 'skip note',
    });
    await sendMail(fx.svc, signup(email, '908172'));
    expect((await running.done).stdout).toBe('908172\n');
  });

  it('--print text prints the body', async () => {
    const email = await newAddress();
    const running = await startWait(['--timeout', '20']);
    await sendMail(fx.svc, signup(email));
    const res = await running.done;
    expect(res.stdout).toContain('Your verification code is 739204.');
    expect(res.stdout.endsWith('\n')).toBe(true);
  });

  it('--print text prints the whole of a 600 KB HTML message, its last paragraph too', async () => {
    const email = await newAddress();
    const running = await startWait(['--timeout', '20']);
    await sendMail(fx.svc, { to: email, subject: 'long newsletter', html: bigHtml() });
    const res = await running.done;
    expect(res.stdout).toContain(BIG_HTML_END);
    expect(res.stdout).not.toContain('message truncated');
  });

  it('times out with exit 1 and a clear message', async () => {
    await newAddress();
    const started = Date.now();
    const res = await fx.r.run('wait', ['--timeout', '1', '--interval', '0.2']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/tempmail-tui wait: no matching message within 1 s\n$/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('keeps trying while the service is unreachable, then times out naming the problem', async () => {
    // A saved session whose service is a closed port on loopback.
    const store = openSavedSessions({ env: fx.r.env });
    store.save(
      { email: 'gone@down.test', token: 'tok-down-secret', expiresAt: new Date(Date.now() + 600_000) },
      'http://127.0.0.1:9/',
    );
    const res = await fx.r.run('wait', ['--address', 'gone@down.test', '--timeout', '1.5', '--interval', '0.2']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/unreachable.*retrying in \d+ s/i);
    expect(res.stderr).toMatch(/no matching message within 1\.5 s \(last problem: .*unreachable/i);
    expect(res.stderr).not.toContain('tok-down-secret');
    store.forget('gone@down.test', 'http://127.0.0.1:9/');
  });

  it('a forgotten token (invalid at the service) ends the wait at once', async () => {
    const store = openSavedSessions({ env: fx.r.env });
    store.save(
      { email: 'ghost@tempmail.test', token: 'not-a-real-token-secret', expiresAt: new Date(Date.now() + 600_000) },
      fx.svc.baseUrl,
    );
    const res = await fx.r.run('wait', ['--address', 'ghost@tempmail.test', '--timeout', '20']);
    expect(res.code).toBe(1);
    expect(res.stderr).not.toContain('not-a-real-token-secret');
    expect(res.stderr).toMatch(/^tempmail-tui wait: .+\n$/);
    store.forget('ghost@tempmail.test', fx.svc.baseUrl);
  });

  it('usage errors are exit 2', async () => {
    expect((await fx.r.run('wait', ['--print', 'everything'])).code).toBe(2);
    const badRe = await fx.r.run('wait', ['--subject', '(unclosed']);
    expect(badRe.code).toBe(2);
    expect(badRe.stderr).toContain('--subject is not a valid regular expression');
    expect((await fx.r.run('wait', ['--timeout', 'soon'])).code).toBe(2);
    const contradiction = await fx.r.run('wait', ['--json', '--print', 'code']);
    expect(contradiction.code).toBe(2);
    expect(contradiction.stderr).toContain('--json and --print "code" contradict each other');
  });

  it('can be interrupted', async () => {
    await newAddress();
    const controller = new AbortController();
    const running = await startWait(['--timeout', '60'], { signal: controller.signal });
    controller.abort();
    const res = await running.done;
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('interrupted');
  });
});
