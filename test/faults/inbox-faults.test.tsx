/**
 * Fault matrix, live inbox (issue 5): the real App and client against a service that misbehaves over
 * real HTTP. For each fault: the app keeps running, says what is wrong on its status line, backs off
 * (no request storm: the next check waits ~1-2 s, then longer, while all-is-well polling is every
 * 300 ms), and recovers by itself once the service behaves again, without a restart.
 */
import { describe, expect } from 'vitest';
import { faultSuite, startFaultApp, type FaultApp } from './fault-app';
import { expectReadable, faultTally, gaps as gapsOf, HEALTHY, pollLine, REFUSED, RETRIED_FAULTS } from './fault-checks';
import type { SpecService } from './spec-service';

let spec: SpecService;
faultSuite((started) => (spec = started));

/** A live address with one message in it, and the app on its inbox showing that message. */
async function inboxWithMail(options: { timeoutMs?: number } = {}) {
  spec.setFault('ok');
  const session = spec.session();
  spec.add(session.token, {
    subject: 'Kept through the storm',
    sender_name: 'Ops',
    sender_email: 'ops@example.org',
    body_text: 'hello',
    body_html: null,
  });
  const app = startFaultApp(spec, { session, ...options });
  await app.screen.waitFor((f) => f.includes('Kept through the storm') && /last checked/.test(pollLine(f)));
  return { session, app };
}

/** Waits until the poll line shows the failure, checks it reads well, and returns it. */
async function failing(a: FaultApp, expected: RegExp, timeoutMs = 8000): Promise<string> {
  const frame = await a.screen.waitFor(
    (f) => expected.test(pollLine(f)) && /retrying in \d+ s/.test(pollLine(f)),
    timeoutMs,
  );
  expectReadable(frame);
  // The list the user had is still there while the service is away.
  expect(frame).toContain('Kept through the storm');
  return pollLine(frame);
}

/** Restores the service and waits for the app to find it again by itself (no key pressed). */
async function recovers(a: FaultApp, timeoutMs = 12_000): Promise<void> {
  spec.setFault('ok');
  const frame = await a.screen.waitFor((f) => HEALTHY.test(pollLine(f)), timeoutMs);
  expectReadable(frame);
  expect(frame).toContain('Kept through the storm');
}

/** Gaps between consecutive checks from index `from` on, in ms. */
const gaps = (a: FaultApp, from: number): number[] =>
  gapsOf(
    a
      .checks()
      .slice(from)
      .map((c) => c.at),
  );

const matrix = faultTally('the App (ink-testing-library), live inbox');

describe('fault matrix: the inbox against a misbehaving service', () => {
  for (const [name, fault, expected] of RETRIED_FAULTS) {
    matrix.it(
      `${name}: status line, backoff, recovery by itself`,
      async () => {
        const { app: a } = await inboxWithMail();
        const before = a.checks().length;
        spec.setFault(fault, ['check-mail']);
        const line = await failing(a, expected);
        expect(line).toMatch(/retrying in [0-2] s/); // backoff 1-2 s, floored like every countdown
        // Two failed checks apart: the second waited out the backoff, not the 300 ms interval.
        await a.screen.waitFor(() => a.checks().length >= before + 2, 8000);
        expect(Math.min(...gaps(a, before))).toBeGreaterThanOrEqual(900);
        await recovers(a);
      },
      30_000,
    );
  }

  matrix.it(
    'the backoff grows with each failure (500s): ~1-2 s, then ~2-4 s',
    async () => {
      const { app: a } = await inboxWithMail();
      const before = a.checks().length;
      spec.setFault('http500', ['check-mail']);
      await a.screen.waitFor(() => a.checks().length >= before + 3, 15_000);
      const [first, second] = gaps(a, before);
      expect(first).toBeGreaterThanOrEqual(900);
      expect(second).toBeGreaterThanOrEqual(1900);
      expect(
        a
          .checks()
          .slice(before)
          .every((c) => c.status === 500),
      ).toBe(true);
      await recovers(a, 15_000);
    },
    40_000,
  );

  // A 503 (maintenance) that says when to come back is waited out like a 429, not retried in 1-2 s.
  for (const [name, fault, said, refused] of [
    [
      '429 with Retry-After',
      'http429',
      /^Rate limited by the service, retrying in [2-3] s/,
      'Rate limited by the service: waiting as it asked.',
    ],
    [
      '503 with Retry-After (maintenance)',
      'http503',
      /^The service is unavailable \(HTTP 503\), retrying in [2-3] s/,
      'The service is unavailable (HTTP 503): waiting as it asked.',
    ],
  ] as const) {
    matrix.it(
      `${name}: waits at least what the service asked, says so, then recovers`,
      async () => {
        const { app: a } = await inboxWithMail();
        spec.retryAfter = 3;
        const before = a.checks().length;
        spec.setFault(fault, ['check-mail']);
        await failing(a, said); // Retry-After 3 s (+ up to 0.25 s), floored
        // `r` does not cut a Retry-After wait short.
        await a.screen.press('r');
        await a.screen.waitFor(refused);
        await a.screen.waitFor(() => a.checks().length >= before + 2, 8000);
        expect(gaps(a, before)[0]).toBeGreaterThanOrEqual(2900);
        await recovers(a);
      },
      30_000,
    );
  }

  matrix.it(
    'a service that answers only after 30 s: a timeout on the status line, then recovery',
    async () => {
      const { app: a } = await inboxWithMail({ timeoutMs: 800 });
      spec.slowMs = 30_000;
      spec.setFault('slow', ['check-mail']);
      const line = await failing(a, /^Offline, retrying in \d+ s: The service did not answer within 0\.8 s/);
      expect(line).toMatch(/retrying in [0-2] s/); // backoff 1-2 s, floored like every countdown
      // The keyboard still answers while a check hangs.
      await a.screen.press('?');
      await a.screen.waitFor('Keys: inbox');
      await a.screen.press('?');
      await recovers(a);
    },
    30_000,
  );

  matrix.it(
    'a check that hangs: the line says checking… and every key still answers',
    async () => {
      // The client's own default timeout (10 s), so the request is still open while the keys are pressed.
      const { app: a } = await inboxWithMail({ timeoutMs: 10_000 });
      spec.slowMs = 30_000;
      spec.setFault('slow', ['check-mail']);
      const hung = a.checks().length;
      await a.screen.press('r');
      await a.screen.waitFor((f) => /^checking… \(last checked \d\d:\d\d:\d\d\)/.test(pollLine(f)));
      await a.screen.waitFor(() => a.checks().length === hung + 1);
      await a.screen.press('?');
      await a.screen.waitFor('Keys: inbox');
      await a.screen.press('?');
      await a.screen.press('c');
      const frame = await a.screen.waitFor('Copied address (test)');
      // All of it while the one request was still open: no answer yet, no second request.
      expect(pollLine(frame)).toMatch(/^checking…/);
      expect(a.checks()).toHaveLength(hung + 1);
      expect(a.checks().at(-1)?.status).toBe(0); // 0: not answered yet
      spec.setFault('ok');
    },
    30_000,
  );

  matrix.it(
    'a service that dies mid-session and comes back on the same port',
    async () => {
      const { app: a } = await inboxWithMail();
      await spec.stop();
      await failing(a, REFUSED);
      await spec.start();
      await recovers(a);
    },
    30_000,
  );

  matrix.it(
    'a service that is down at start: the inbox says offline, then finds it',
    async () => {
      spec.setFault('ok');
      const session = spec.session();
      spec.add(session.token, {
        subject: 'Kept through the storm',
        sender_name: 'Ops',
        sender_email: 'ops@example.org',
        body_text: 'x',
        body_html: null,
      });
      await spec.stop();
      const app = startFaultApp(spec, { session });
      const frame = await app.screen.waitFor(
        (f) => REFUSED.test(pollLine(f)) && pollLine(f).includes('(not checked yet)'),
      );
      expectReadable(frame);
      await spec.start();
      await app.screen.waitFor('Kept through the storm', 12_000);
      await recovers(app);
    },
    30_000,
  );
});
