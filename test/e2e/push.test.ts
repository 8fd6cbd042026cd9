/**
 * The goal of push (issue 27): the built app, in a real pseudo-terminal, receiving mail from a remote
 * `serve` (a child process, over real HTTP) without polling. Its poll interval is ten minutes, so only the
 * service's event stream can bring each message on screen before the test ends; the service's log shows
 * one check per message. How soon after the SMTP 250 is the bench's figure (new_mail_*), not a test's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { waitFor } from '../harness/wait';
import { pickFirstDomain, startE2E, type E2E } from './flow';

let e2e: E2E | undefined;
afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

const checks = (e: E2E) =>
  e.serve
    .stderr()
    .split('\n')
    .filter((l) => / http GET \/check-mail /.test(l)).length;

describe('push from a remote serve', () => {
  it('shows new mail without polling, and says the inbox is instant', async () => {
    e2e = await startE2E({ cols: 100, rows: 30, args: ['--poll-interval', '600'] });
    const { app, serve } = e2e;
    const address = await pickFirstDomain(app);
    await app.waitForScreen(`No mail yet for ${address}.`);
    await waitFor(() => / http GET \/events 200 /.test(serve.stderr()), { message: 'the event stream to open' });
    // The header says news comes at once (where the provider is, then "instant").
    await app.waitForScreen(/ · instant$/m);
    // The first check, and the one the open stream asks for (mail may have come before it).
    await waitFor(() => checks(e2e!) === 2, { message: 'the check the open stream asked for' });
    const before = checks(e2e);
    for (let i = 1; i <= 5; i++) {
      const subject = `Pushed over the wire ${i}`;
      const info = await sendMail(serve, { to: address, subject, text: 'x' });
      expect(info.response).toMatch(/^250 /);
      await app.waitForScreen(subject, 5000);
    }
    // One check per message, all of them asked for by the stream (the poll would come in ten minutes).
    await waitFor(() => checks(e2e!) - before === 5, { message: 'one check per message' });
    expect(serve.stderr()).not.toMatch(/token=[^[]/);
  });
});
