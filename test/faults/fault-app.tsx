/**
 * The fault matrix's set-up: the real App (ink-testing-library) with the real client pointed at the
 * misbehaving SPEC service, and the hooks of a test file: the service, the apps closed after each test,
 * the watch for unhandled rejections and uncaught exceptions (what every case asserts on the frame is in
 * fault-checks.ts).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import type { Session } from '../../src/model/mail-types';
import { App } from '../../src/tui/app';
import { renderAt, type Screen } from '../tui/ui';
import { singleProvider } from '../harness/providers';
import { startSpecService, type SpecService } from './spec-service';

export interface FaultApp {
  screen: Screen;
  /** The check-mail requests the service saw from this app, with their times. */
  checks(): { at: number; status: number }[];
  close(): void;
}

export interface FaultAppOptions {
  session?: Session;
  /** Client timeout (the app's default is 10 s; short here so a hung service shows quickly). */
  timeoutMs?: number;
  /** Client retries of a GET (default 0 so request counts are exact; the app uses 2). */
  retries?: number;
  pollIntervalMs?: number;
}

/** Renders the App against `spec`, at 100 x 30, without colour. */
export function startFaultApp(spec: SpecService, options: FaultAppOptions = {}): FaultApp {
  const api = createApi({
    baseUrl: spec.baseUrl,
    timeoutMs: options.timeoutMs ?? 1500,
    retries: options.retries ?? 0,
    retryBaseDelayMs: 100,
  });
  const from = spec.requests.length;
  const screen = renderAt(
    <App
      providers={singleProvider(api, spec.baseUrl)}
      settings={{ pollIntervalMs: options.pollIntervalMs ?? 300, bell: false }}
      serviceLabel="Service: faults"
      noColor
      initialSession={options.session}
      copy={async () => 'Copied (test)'}
      onQuit={() => undefined}
    />,
    100,
    30,
  );
  const app: FaultApp = {
    screen,
    checks: () =>
      spec.requests
        .slice(from)
        .filter((r) => r.path === 'check-mail')
        .map((r) => ({ at: r.at, status: r.status })),
    close: () => screen.unmount(),
  };
  running.push(app);
  return app;
}

/** Apps started by the current test, closed after it. */
const running: FaultApp[] = [];
/** Rejections and exceptions nobody handled, collected for the whole file. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

/**
 * The hooks of a fault test file: one service for the file (handed to `started`); after each test its
 * apps are closed, the service answers honestly again, and no rejection or exception went unhandled.
 */
export function faultSuite(started: (spec: SpecService) => void): void {
  let spec: SpecService | undefined;
  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    spec = await startSpecService();
    started(spec);
  });
  afterEach(() => {
    for (const app of running.splice(0)) app.close();
    spec?.setFault('ok');
    expect(unhandled, 'unhandled rejections or exceptions').toEqual([]);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    await spec?.close();
  });
}
