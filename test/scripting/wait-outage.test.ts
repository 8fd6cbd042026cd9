/**
 * `wait` started while the service is away: mail that arrives before its first successful listing is
 * still what it waits for (issue 14.11). It used to be counted as "earlier" and the wait timed out.
 * The service is real; a gate in front of its HTTP port decides when the client gets through, so the
 * mail is in the first listing every time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { receivedBefore } from '../../src/scripting/wait';
import type { MessageSummary } from '../../src/model/mail-types';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { startFixtureServer } from '../client/fixture-server';
import { startGate, type Gate } from '../harness/gate';
import { sendMail, startTestService, type TestService } from '../harness/service';
import { waitFor } from '../harness/wait';
import { makeRunner, type RunResult, type Runner } from './run';

// The service's clock, as an offset from ours: a test moves it to play a skewed or lagging clock.
let skewMs = 0;
let svc: TestService;
let gate: Gate;
let r: Runner;

beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 }, { clock: () => Date.now() + skewMs });
  gate = await startGate(svc.baseUrl);
  gate.open();
  r = makeRunner();
});
afterEach(() => {
  skewMs = 0;
  gate.open();
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await gate.close();
  await svc.close();
});

async function newAddress(): Promise<string> {
  const res = await r.run('new', ['--base-url', gate.url, '-q']);
  expect(res.code).toBe(0);
  return res.stdout.trim();
}

const signup = (to: string, code: string) => ({
  from: 'Acme Accounts <accounts@acme.test>',
  to,
  subject: 'Your Acme verification code',
  text: `Your verification code is ${code}.`,
});

/** Starts `wait` with the gate shut; resolves once it has been refused, with the wait's end. */
async function waitWhileDown(): Promise<{ done: Promise<RunResult> }> {
  gate.shut();
  const refusedBefore = gate.refused();
  const running = r.run('wait', ['--interval', '0.2', '--print', 'code', '--timeout', '20']);
  await waitFor(() => gate.refused() > refusedBefore && /retrying in/.test(running.live.stderr), {
    message: 'wait to be refused',
  });
  // Not the promise itself: an async function returning a thenable would await the whole wait.
  return { done: running };
}

describe('wait started while the service is away', () => {
  it('matches mail that arrived before its first successful listing', async () => {
    const email = await newAddress();
    const running = await waitWhileDown();
    await sendMail(svc, signup(email, '482913'));
    gate.open();
    const res = await running.done;
    expect(res.stderr).toContain('Service reachable again.');
    expect(res.stderr).not.toContain('ignoring');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('482913\n');
  });

  it('still ignores mail received before it started, and takes the one after', async () => {
    const email = await newAddress();
    // Received ten minutes "ago" by the service's clock: well before the wait.
    skewMs = -10 * 60_000;
    await sendMail(svc, signup(email, '111111'));
    skewMs = 0;
    const running = await waitWhileDown();
    await sendMail(svc, signup(email, '222222'));
    gate.open();
    const res = await running.done;
    expect(res.stderr).toContain('(ignoring 1 earlier; --existing includes them)');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('222222\n');
  });

  it('allows for a service clock that runs behind ours', async () => {
    const email = await newAddress();
    const running = await waitWhileDown();
    // The service stamps the mail 40 s before the moment it really arrived (after the wait started).
    skewMs = -40_000;
    await sendMail(svc, signup(email, '739204'));
    gate.open();
    const res = await running.done;
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('739204\n');
  });

  it('with the service up at the start, everything already listed is earlier, whatever its time', async () => {
    const email = await newAddress();
    // Stamped in the future: the first listing came at once, so it was there before the wait began.
    skewMs = 5 * 60_000;
    await sendMail(svc, signup(email, '333333'));
    skewMs = 0;
    const running = r.run('wait', ['--interval', '0.2', '--print', 'code', '--timeout', '20']);
    await waitFor(() => running.live.stderr.includes('(ignoring 1 earlier'), { message: 'the baseline' });
    await sendMail(svc, signup(email, '444444'));
    const res = await running;
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('444444\n');
  });
});

describe('wait against an address that is not the service', () => {
  it('ends at once with the advice, not after its timeout', async () => {
    const web = await startFixtureServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>');
    });
    try {
      const store = openSavedSessions({ env: r.env });
      store.save(
        { email: 'lost@web.test', token: 'tok-web-page-0123456789', expiresAt: new Date(Date.now() + 600_000) },
        web.baseUrl,
      );
      const res = await r.run('wait', ['--address', 'lost@web.test', '--timeout', '60', '--interval', '0.2']);
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        "tempmail-tui wait: That address answered with a web page, not this service's API (HTTP 404): check the base URL\n",
      );
      expect(web.requests).toHaveLength(1);
      store.forget('lost@web.test', web.baseUrl);
    } finally {
      await web.close();
    }
  });
});

describe('receivedBefore', () => {
  const at = (id: string, iso: string | null): MessageSummary =>
    ({
      id,
      receivedAt: iso === null ? null : new Date(iso),
      subject: '',
      senderName: '',
      senderEmail: '',
    }) as unknown as MessageSummary;

  it('judges by receive time; a message without one by its id beside those with one', () => {
    const start = Date.parse('2026-01-01T12:00:00Z');
    const list = [
      at('9', '2026-01-01T11:00:00Z'),
      at('10', null),
      at('11', '2026-01-01T12:00:00Z'),
      at('12', null),
      at('13', '2026-01-01T12:00:05Z'),
    ];
    // Ids compare as numbers where they are numbers: 10 comes before 11, not after it.
    expect(receivedBefore(list, start).map((m) => m.id)).toEqual(['9', '10']);
    expect(receivedBefore([at('7', null)], start).map((m) => m.id)).toEqual(['7']);
  });
});
