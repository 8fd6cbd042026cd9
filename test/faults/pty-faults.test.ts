/**
 * Fault matrix against the built program (issue 5): dist/cli.js in a real pseudo-terminal, with the
 * client's own settings (10 s timeout, a GET retried twice), against the misbehaving SPEC service over
 * real HTTP. One app session walks through the faults in turn, the service switching modes between
 * them; a second start resumes the saved address while the service is down. For each case: the program
 * keeps running (never a stack, a thrown error or an exit), says what is wrong on a readable line, and
 * recovers without a restart once the service behaves. The service records every request with its
 * time, so the backoff is measured on the wire.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressOnScreen, isViewer, neutralEnv, rowsWith } from '../e2e/flow';
import { waitFor } from '../harness/wait';
import { KEYS, spawnApp, type PtyApp, type ScreenMatch } from '../e2e/pty-harness';
import {
  DOMAINS_DOWN,
  expectNoCrashOutput,
  expectReadable,
  FATAL_FAULTS,
  faultTally,
  gaps,
  HEALTHY,
  pollLine,
  REFUSED,
  RETRIED_FAULTS,
  STOPPED_NOTICE,
} from './fault-checks';
import { startSpecService, type SpecService, type WireMessage } from './spec-service';

const KEPT = 'Kept through the storm';
let spec: SpecService;
let home: string;
const apps: PtyApp[] = [];
const matrix = faultTally('the built app (dist/cli.js) in a pty');

beforeAll(async () => {
  spec = await startSpecService();
  home = await mkdtemp(join(tmpdir(), 'tempmail-pty-faults-'));
});
afterAll(async () => {
  for (const a of apps) a.kill();
  await spec?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** The built app against the fault service, checking every second, with its own temp home. */
function launch(): PtyApp {
  const app = spawnApp({
    args: ['--base-url', spec.baseUrl, '--poll-interval', '1'],
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home },
    cols: 100,
    rows: 30,
  });
  apps.push(app);
  return app;
}

/** Waits for the screen (the harness throws if the program exits first) and checks it reads well. */
async function sees(app: PtyApp, match: ScreenMatch, timeoutMs?: number): Promise<string> {
  const screen = await app.waitForScreen(match, timeoutMs);
  expectReadable(screen);
  return screen;
}
const polling = (line: RegExp | string) => (s: string) =>
  typeof line === 'string' ? pollLine(s).startsWith(line) : line.test(pollLine(s));
/** The inbox is checking again, all well, the old mail still listed. */
const healthy = (s: string) => HEALTHY.test(pollLine(s)) && s.includes(KEPT);

/** check-mail requests the service saw from index `from` of its record on. */
const checksFrom = (from: number) => spec.requests.slice(from).filter((r) => r.path === 'check-mail');
/** The token of the address the app checks now (from the last check-mail it sent). */
function currentToken(): string {
  const last = checksFrom(0).at(-1);
  const token = last && new URLSearchParams(last.query).get('token');
  if (!token) throw new Error('the app has not checked any address yet');
  return token;
}
const mail = (subject: string): Omit<WireMessage, 'id' | 'received_at'> => ({
  subject,
  sender_name: 'Ops',
  sender_email: 'ops@example.org',
  body_text: `Body of ${subject}`,
  body_html: null,
});

/** The highlighted row's index: inverse video in the inbox, a leading `>` in the picker. */
function highlight(app: PtyApp): number | undefined {
  const inverse = app.inverseRows()[0];
  if (inverse !== undefined) return inverse;
  const pointer = app.screen().findIndex((row) => row.startsWith('> '));
  return pointer >= 0 ? pointer : undefined;
}

/**
 * Moves the highlight onto the row holding `text`: j or k toward it, one key at a time, each move
 * waited for on screen. Reading the highlight after a fixed quiet time raced the frame
 * on a loaded machine (a `g` drawn after the read left the loop pressing j away from the target).
 */
async function select(app: PtyApp, text: string): Promise<void> {
  await app.settle();
  const want = rowsWith(app, text)[0];
  expect(want, app.screenText()).toBeDefined();
  for (let i = 0; i < 20; i++) {
    const at = highlight(app);
    if (at === want) break;
    await app.press(at === undefined || at < want! ? 'j' : 'k');
    await waitFor(() => (highlight(app) !== at ? true : undefined), {
      timeoutMs: 10_000,
      message: `the highlight to leave row ${at}`,
    });
  }
  expect(app.screen()[highlight(app) ?? -1] ?? '', app.screenText()).toContain(text);
}

/** Wire backoff measured in the walk, printed with the summary. */
const measured: string[] = [];

/**
 * A service dying under every request, timed on the service's side: three attempts per check (the
 * client retries a GET twice, ~0.5 s then ~1 s later), then the poller's backoff, 1-2 s, then 2-4 s.
 * (A service that is down refuses connections, which no server can record; this is the nearest.)
 */
async function backoffOnTheWire(app: PtyApp, from: number): Promise<void> {
  // Seven requests: two whole checks and the first attempt of the third.
  await app.waitForScreen(() => checksFrom(from).length >= 7);
  const g = gaps(checksFrom(from).map((r) => r.at)).slice(0, 6);
  measured.push(`connection reset: ${g.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`);
  const [retry1, retry2, backoff1, retry3, retry4, backoff2] = g;
  for (const retry of [retry1, retry3]) expect(retry).toBeGreaterThanOrEqual(450);
  for (const retry of [retry2, retry4]) expect(retry).toBeGreaterThanOrEqual(950);
  expect(backoff1).toBeGreaterThanOrEqual(950);
  expect(backoff2).toBeGreaterThanOrEqual(1950);
}

describe('fault matrix: the built app in a pty', () => {
  it('walks through every fault in one session, then resumes an address while the service is down', async () => {
    await spec.stop();
    const a = launch();
    await matrix.step('service down at start (picker; r retries)', async () => {
      expect(await sees(a, DOMAINS_DOWN)).toContain('Press r to retry now, p to try mail.tm, q to quit.');
      await spec.start();
      await a.press('r', 'Random address on fixture.test');
    });
    await a.press(KEYS.ENTER, polling(HEALTHY));
    const address = addressOnScreen(a);
    spec.add(currentToken(), mail(KEPT));
    await sees(a, healthy);

    for (const [name, fault, line] of RETRIED_FAULTS) {
      await matrix.step(name, async () => {
        const from = spec.requests.length;
        spec.setFault(fault, ['check-mail']);
        expect(await sees(a, polling(line))).toContain(KEPT);
        if (fault === 'reset') await backoffOnTheWire(a, from);
        spec.setFault('ok');
        await sees(a, healthy);
      });
    }

    await matrix.step('429 with Retry-After', async () => {
      spec.retryAfter = 2;
      const from = spec.requests.length;
      spec.setFault('http429', ['check-mail']);
      await sees(a, polling(/^Rate limited by the service, retrying in [0-2] s/));
      // r does not cut the service's wait short.
      await a.press('r', 'Rate limited by the service: waiting as it asked.');
      spec.setFault('ok');
      await sees(a, healthy);
      const [wait] = gaps(checksFrom(from).map((r) => r.at));
      measured.push(`429 (Retry-After 2): ${(wait! / 1000).toFixed(2)} s`);
      expect(wait).toBeGreaterThanOrEqual(2000);
    });

    await matrix.step(
      'a check that hangs (the service would answer after 30 s): keys answer meanwhile, then the late answer lands',
      async () => {
        const from = spec.requests.length;
        spec.setFault('slow', ['check-mail']);
        await a.waitForScreen((s) => checksFrom(from).length === 1 && /^checking…/.test(pollLine(s)));
        await a.press('?', 'Keys: inbox');
        await a.press('?', (s) => !s.includes('Keys: inbox') && s.includes(KEPT));
        // All of that while the one check was still open: no answer yet, no second request.
        expect(checksFrom(from).map((r) => r.status)).toEqual([0]);
        expect(pollLine(a.screenText())).toMatch(/^checking…/);
        spec.setFault('ok');
        expect(spec.release()).toBe(1); // the late answer arrives
        await sees(a, healthy);
      },
    );

    await matrix.step('dies mid-session, comes back on the same port', async () => {
      await spec.stop();
      expect(await sees(a, polling(REFUSED))).toContain(KEPT);
      await spec.start();
      await sees(a, healthy);
    });

    await matrix.step('a message deleted elsewhere between list and open', async () => {
      // The app fetches new bodies ahead of time; failing until the delete keeps this one from being cached.
      spec.setFault('http500', ['read-mail']);
      const gone = spec.add(currentToken(), mail('Deleted elsewhere'));
      spec.add(currentToken(), mail('Still here'));
      await sees(a, (s) => s.includes('Deleted elsewhere') && s.includes('Still here'));
      spec.remove(currentToken(), gone);
      spec.setFault('ok');
      await select(a, 'Deleted elsewhere');
      await a.press(KEYS.ENTER);
      expect(await sees(a, /Could not load this message: .+\. Press r to try again\./)).toMatch(
        /Subject: +Deleted elsewhere/,
      );
      await a.press(KEYS.ESC, /Enter open/);
      await a.press('r');
      await sees(a, (s) => !s.includes('Deleted elsewhere') && s.includes('Still here') && HEALTHY.test(pollLine(s)));
      await select(a, 'Still here');
      await a.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('Body of Still here'));
      await a.press(KEYS.ESC, /Enter open/);
    });

    for (const [name, fault, line] of FATAL_FAULTS) {
      await matrix.step(name, async () => {
        const from = spec.requests.length;
        spec.setFault(fault, ['check-mail']);
        await sees(a, polling(line));
        const sent = checksFrom(from).length;
        await a.press('r', STOPPED_NOTICE);
        expect(checksFrom(from)).toHaveLength(sent); // stopped: no request with a dead token
        spec.setFault('ok');
        await a.press('n', 'Random address on fixture.test');
        await a.press(KEYS.ENTER, (s) => /No mail yet/.test(s) && HEALTHY.test(pollLine(s)));
      });
    }
    expect(addressOnScreen(a)).not.toBe(address);

    await matrix.step('service down at start (resuming a saved address; finds it by itself)', async () => {
      const resumed = addressOnScreen(a);
      spec.add(currentToken(), mail(KEPT));
      await sees(a, healthy);
      await a.press('q');
      expect(await a.exited()).toBe(0);
      await spec.stop();
      const b = launch();
      await sees(b, (s) => s.includes(DOMAINS_DOWN) && s.includes(`Resume ${resumed}`));
      await select(b, `Resume ${resumed}`);
      await b.press(KEYS.ENTER, polling(REFUSED));
      await spec.start();
      await sees(b, healthy);
      expect(addressOnScreen(b)).toBe(resumed);
      await b.press('q');
      expect(await b.exited()).toBe(0);
    });

    // Not one stack trace or thrown error in anything either run wrote, escape sequences and all.
    for (const run of apps) expectNoCrashOutput(run.raw().toString('utf8'));
    console.log(`fault matrix, backoff on the wire (gaps between requests): ${measured.join('; ')}`);
  }, 120_000);
});
