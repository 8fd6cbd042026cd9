/**
 * Fault matrix, beyond the live inbox (issue 5): the picker against a service that is down or refuses,
 * an unknown or expired token, a message deleted elsewhere between list and open, and a failing
 * read-mail. Same bar: a readable line, no crash, no unhandled rejection, and a way back that needs no
 * restart (the app's own keys: r to retry, n for a new address).
 */
import { describe, expect } from 'vitest';
import { KEY } from '../tui/ui';
import { faultSuite, startFaultApp } from './fault-app';
import { DOMAINS_DOWN, expectReadable, FATAL_FAULTS, faultTally, pollLine, STOPPED_NOTICE } from './fault-checks';
import type { Fault, SpecService } from './spec-service';

let spec: SpecService;
faultSuite((started) => (spec = started));

const mail = (token: string, subject: string) =>
  spec.add(token, {
    subject,
    sender_name: 'Ops',
    sender_email: 'ops@example.org',
    body_text: `Body of ${subject}`,
    body_html: null,
  });

const matrix = faultTally('the App (ink-testing-library), picker, token, viewer');

/** The app on the inbox of a new address holding one message, read-mail failing with `failing`. */
async function inboxWithUnread(subject: string, failing: Fault, timeoutMs?: number) {
  const session = spec.session();
  mail(session.token, subject);
  // Failing before the app lists it: a background prefetch that won the race would cache the body.
  spec.setFault(failing, ['read-mail']);
  const app = startFaultApp(spec, { session, timeoutMs, pollIntervalMs: 60_000 });
  await app.screen.waitFor(subject);
  return app;
}

describe('fault matrix: picker, token, open', () => {
  matrix.it('service down at start: the picker says so, r retries once it is back', async () => {
    await spec.stop();
    const app = startFaultApp(spec);
    let frame = await app.screen.waitFor(DOMAINS_DOWN);
    expect(frame).toContain('Press r to retry now, q to quit.');
    expectReadable(frame);
    await spec.start();
    await app.screen.press('r');
    frame = await app.screen.waitFor('Random address on fixture.test');
    await app.screen.press(KEY.ENTER);
    frame = await app.screen.waitFor(/@fixture\.test +expires in/);
    expectReadable(frame);
  });

  matrix.it(
    'create-session refused (500, then 429 with Retry-After): the picker says why, Enter works once it behaves',
    async () => {
      const creates = () => spec.requests.filter((r) => r.path === 'create-session').length;
      const before = creates();
      const app = startFaultApp(spec);
      await app.screen.waitFor('Random address on fixture.test');
      spec.setFault('http500', ['create-session']);
      await app.screen.press(KEY.ENTER);
      let frame = await app.screen.waitFor('The service failed (internal, HTTP 500): something went wrong');
      expectReadable(frame);
      spec.retryAfter = 7;
      spec.setFault('http429', ['create-session']);
      await app.screen.press(KEY.ENTER);
      frame = await app.screen.waitFor('Too many requests to the service (try again in 7 s)');
      expectReadable(frame);
      spec.setFault('ok');
      await app.screen.press(KEY.ENTER);
      await app.screen.waitFor(/@fixture\.test +expires in/);
      // Exactly one address per Enter: the refused ones were not retried behind the user's back.
      expect(creates() - before).toBe(3);
    },
  );

  for (const [name, fault, said] of FATAL_FAULTS) {
    matrix.it(`${name}: polling stops with a clear line, n gets a new address without a restart`, async () => {
      const session = spec.session();
      mail(session.token, 'Before the token went bad');
      const app = startFaultApp(spec, { session });
      await app.screen.waitFor('Before the token went bad');
      spec.setFault(fault, ['check-mail']);
      let frame = await app.screen.waitFor((f) => pollLine(f).startsWith(said));
      expectReadable(frame);
      // Stopped means stopped: no more requests with a dead token.
      const checks = app.checks().length;
      await app.screen.press('r');
      await app.screen.waitFor(STOPPED_NOTICE);
      expect(app.checks().length).toBe(checks);
      spec.setFault('ok');
      await app.screen.press('n');
      await app.screen.waitFor('Random address on fixture.test');
      await app.screen.press(KEY.ENTER);
      frame = await app.screen.waitFor(
        (f) => /expires in/.test(f) && /^last checked/.test(pollLine(f)) && f.includes('No mail yet'),
      );
      expect(frame).not.toContain(session.email);
      expectReadable(frame);
    });
  }

  matrix.it('a message deleted elsewhere between list and open: the viewer says so, the list catches up', async () => {
    const session = spec.session();
    const gone = mail(session.token, 'Deleted elsewhere');
    mail(session.token, 'Still here');
    // The app fetches the newest unread bodies in the background as soon as they are listed: a body it
    // got before the delete would be cached and open fine. Until the delete, read-mail fails (a failed
    // background fetch is dropped), so the body is never fetched while the message exists.
    spec.setFault('http500', ['read-mail']);
    const app = startFaultApp(spec, { session, pollIntervalMs: 60_000 });
    await app.screen.waitFor('Deleted elsewhere');
    spec.remove(session.token, gone);
    spec.setFault('ok');
    // Newest first: "Still here" is on top, the deleted one below it.
    await app.screen.press('j', KEY.ENTER);
    let frame = await app.screen.waitFor(/Could not load this message: .*\. Press r to try again\./);
    expect(frame).toMatch(/Subject: +Deleted elsewhere/);
    expectReadable(frame);
    await app.screen.press(KEY.ESC);
    await app.screen.press('r');
    frame = await app.screen.waitForGone('Deleted elsewhere');
    expect(frame).toContain('Still here');
    expect(frame).toMatch(/\b1 message\b/);
  });

  matrix.it(
    'read-mail failing (500, then a 30 s hang): the viewer says so, r loads it once the service behaves',
    async () => {
      const app = await inboxWithUnread('Open me later', 'http500', 800);
      await app.screen.press(KEY.ENTER);
      let frame = await app.screen.waitFor(
        'Could not load this message: The service failed (internal, HTTP 500): something went wrong. Press r',
      );
      expectReadable(frame);
      spec.slowMs = 30_000;
      spec.setFault('slow', ['read-mail']);
      await app.screen.press('r');
      frame = await app.screen.waitFor('Could not load this message: The service did not answer within 0.8 s. Press r');
      expectReadable(frame);
      spec.setFault('ok');
      await app.screen.press('r');
      frame = await app.screen.waitFor('Body of Open me later');
      expectReadable(frame);
    },
  );

  for (const [name, failing, said] of [
    ['malformed JSON', 'malformed', 'The service sent an unexpected answer (not JSON)'],
    ['an HTML error page', 'html', 'The service failed (HTTP 502)'],
    ['valid JSON of the wrong shape', 'wrongShape', 'The service sent an unexpected answer (no message in the answer)'],
  ] as const) {
    matrix.it(
      `read-mail answering ${name}: the viewer says so in one line, r loads it once the service behaves`,
      async () => {
        const a = await inboxWithUnread(`Read through ${failing}`, failing);
        await a.screen.press(KEY.ENTER);
        const frame = await a.screen.waitFor(`Could not load this message: ${said}`);
        expect(frame).toMatch(new RegExp(`Subject: +Read through ${failing}`));
        expectReadable(frame);
        spec.setFault('ok');
        await a.screen.press('r');
        expectReadable(await a.screen.waitFor(`Body of Read through ${failing}`));
      },
    );
  }
});
