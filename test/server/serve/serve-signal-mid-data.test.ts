/**
 * `serve` told to stop (SIGTERM) while a message is half received: the work in flight finishes (the
 * sender hears 250, then 421 as the connection closes), the process exits 0, and the message is there after
 * a restart on the same data dir. A connection attempted while it is stopping is not served: smtp-server's
 * close() closes the listening socket at once (net.Server#close), so the attempt is refused.
 */
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startServeProcess, stopServe, type ServeProcess, type ServeReady } from '../../harness/serve-process';
import { openSmtp, type SmtpDialog } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
/** Kills `proc` after the test, if it is still running. */
const track = <T extends ServeProcess>(proc: T): T => cleanup.defer(proc, (p) => stopServe(p, 'SIGKILL'));

type Attempt = 'refused' | 'cut' | '421' | 'served';

/**
 * One new SMTP connection to a stopping `serve`. "refused": no listener (ECONNREFUSED). A connection the
 * kernel took just before the listener closed can also be cut (reset) or told 421; "served" is a failure.
 */
async function attempt(target: ServeReady): Promise<Attempt> {
  let dialog: SmtpDialog;
  try {
    dialog = await openSmtp(target, 5_000);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return 'refused';
    if (code === 'ECONNRESET' || /connection closed/.test((error as Error).message)) return 'cut';
    throw error;
  }
  try {
    if (dialog.greeting.startsWith('421')) return '421';
    const answer = await dialog.command('MAIL FROM:<late@example.org>').catch(() => 'closed');
    return answer.startsWith('421') ? '421' : answer === 'closed' ? 'cut' : 'served';
  } finally {
    dialog.destroy();
  }
}

describe('serve stopped in the middle of DATA', () => {
  it('finishes the message in flight (250, then 421), refuses new connections, exits 0, keeps the message', async () => {
    const dataDir = await cleanup.tempDir('tempmail-middata-');
    const first = track(await startServeProcess(['--data-dir', dataDir]));
    const api = createApi({ baseUrl: first.baseUrl, retries: 0 });
    const session = await api.createSession({ prefix: 'middata' });

    const smtp = await openSmtp(first);
    expect(await smtp.command('EHLO middata.test')).toMatch(/^250/);
    expect(await smtp.command('MAIL FROM:<sender@example.org>')).toMatch(/^250/);
    expect(await smtp.command(`RCPT TO:<${session.email}>`)).toMatch(/^250/);
    expect(await smtp.command('DATA')).toMatch(/^354/);
    smtp.write(
      `From: Sender <sender@example.org>\r\nSubject: signalled mid-DATA\r\n\r\nfirst half ${'a'.repeat(2000)}\r\n`,
    );

    first.child.kill('SIGTERM');
    await waitFor(() => first.stderr().includes('SIGTERM: closing'), { message: 'serve to start closing' });
    // While the message is still open (so the process is certainly alive), new connections are not served.
    const attempts: Attempt[] = [];
    await waitFor(
      async () => {
        attempts.push(await attempt(first));
        return attempts.at(-1) === 'refused';
      },
      { timeoutMs: 5_000, message: 'a new connection to be refused' },
    );
    expect(
      attempts.filter((a) => a === 'served'),
      `attempts: ${attempts.join(', ')}`,
    ).toEqual([]);
    expect(first.child.exitCode, 'serve must wait for the message in flight').toBeNull();

    smtp.write(`second half ${'b'.repeat(2000)}\r\n.\r\n`);
    expect(await smtp.reply()).toMatch(/^250 2\.0\.0 /);
    // Then the connection is told the service is going and closed, rather than left waiting for a QUIT.
    expect(await smtp.reply()).toMatch(/^421 /);
    await smtp.closed;
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.stderr()).toMatch(/ closed\n/);

    const second = track(await startServeProcess(['--data-dir', dataDir]));
    const again = createApi({ baseUrl: second.baseUrl, retries: 0 });
    const list = await again.checkMail(session.token);
    expect(list.map((m) => m.subject)).toEqual(['signalled mid-DATA']);
    const message = await again.readMail(session.token, list[0]!.id);
    expect(message.bodyText).toContain(`first half ${'a'.repeat(2000)}`);
    expect(message.bodyText).toContain(`second half ${'b'.repeat(2000)}`);
    expect(await stopServe(second)).toEqual({ code: 0, signal: null });
  });
});
