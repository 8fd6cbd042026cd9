/**
 * Fault matrix, beyond the live inbox (issue 5): the picker against a service that is down or refuses,
 * an unknown or expired token, a message deleted elsewhere between list and open, and a failing
 * read-mail. Same bar: a readable line, no crash, no unhandled rejection, and a way back that needs no
 * restart (the app's own keys: r to retry, n for a new address).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KEY } from '../tui/ui';
import { expectReadable, pollLine, startFaultApp, unhandled, watchUnhandled, type FaultApp } from './fault-app';
import { startSpecService, type SpecService } from './spec-service';

let spec: SpecService;
let app: FaultApp | undefined;
let unwatch: () => void;
beforeAll(async () => {
  unwatch = watchUnhandled();
  spec = await startSpecService();
});
afterEach(() => {
  app?.close();
  app = undefined;
  spec.setFault('ok');
  expect(unhandled, 'unhandled rejections or exceptions').toEqual([]);
});
afterAll(async () => {
  unwatch?.();
  await spec?.close();
});

const mail = (token: string, subject: string) =>
  spec.add(token, { subject, sender_name: 'Ops', sender_email: 'ops@example.org', body_text: `Body of ${subject}`, body_html: null });

describe('fault matrix: picker, token, open', () => {
  it('service down at start: the picker says so, r retries once it is back', async () => {
    await spec.stop();
    app = startFaultApp(spec);
    let frame = await app.screen.waitFor('Could not load the domains: The service is unreachable (connection refused)');
    expect(frame).toContain('Press r to retry, q to quit.');
    expectReadable(frame);
    await spec.start();
    await app.screen.press('r');
    frame = await app.screen.waitFor('Random address on fixture.test');
    await app.screen.press(KEY.ENTER);
    frame = await app.screen.waitFor(/@fixture\.test +expires in/);
    expectReadable(frame);
  });

  it('create-session refused (500, then 429 with Retry-After): the picker says why, Enter works once it behaves', async () => {
    const creates = () => spec.requests.filter((r) => r.path === 'create-session').length;
    const before = creates();
    app = startFaultApp(spec);
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
  });

  for (const [name, fault, said] of [
    ['an unknown token (401)', 'unknownToken', 'The service no longer knows this address · press n for a new address'],
    ['an expired token (410)', 'expired', 'This address has expired · press n for a new address'],
  ] as const) {
    it(`${name}: polling stops with a clear line, n gets a new address without a restart`, async () => {
      const session = spec.session();
      mail(session.token, 'Before the token went bad');
      app = startFaultApp(spec, { session });
      await app.screen.waitFor('Before the token went bad');
      spec.setFault(fault, ['check-mail']);
      let frame = await app.screen.waitFor((f) => pollLine(f).startsWith(said));
      expectReadable(frame);
      // Stopped means stopped: no more requests with a dead token.
      const checks = app.checks().length;
      await app.screen.press('r');
      await app.screen.waitFor('Polling stopped: this address is no longer live. Press n for a new one.');
      expect(app.checks().length).toBe(checks);
      spec.setFault('ok');
      await app.screen.press('n');
      await app.screen.waitFor('Random address on fixture.test');
      await app.screen.press(KEY.ENTER);
      frame = await app.screen.waitFor((f) => /expires in/.test(f) && /^last checked/.test(pollLine(f)) && f.includes('No mail yet'));
      expect(frame).not.toContain(session.email);
      expectReadable(frame);
    });
  }

  it('a message deleted elsewhere between list and open: the viewer says so, the list catches up', async () => {
    const session = spec.session();
    const gone = mail(session.token, 'Deleted elsewhere');
    mail(session.token, 'Still here');
    // The app fetches the newest unread bodies in the background as soon as they are listed: a body it
    // got before the delete would be cached and open fine. Until the delete, read-mail fails (a failed
    // background fetch is dropped), so the body is never fetched while the message exists.
    spec.setFault('http500', ['read-mail']);
    app = startFaultApp(spec, { session, pollIntervalMs: 60_000 });
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

  it('read-mail failing (500, then a 30 s hang) shows in the viewer, and r loads it once the service behaves', async () => {
    const session = spec.session();
    mail(session.token, 'Open me later');
    // Failing before the app lists it: a background prefetch that won the race would cache the body.
    spec.setFault('http500', ['read-mail']);
    app = startFaultApp(spec, { session, timeoutMs: 800, pollIntervalMs: 60_000 });
    await app.screen.waitFor('Open me later');
    await app.screen.press(KEY.ENTER);
    let frame = await app.screen.waitFor('Could not load this message: The service failed (internal, HTTP 500): something went wrong. Press r');
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
  });
});
