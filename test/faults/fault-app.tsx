/**
 * The fault matrix's set-up: the real App (ink-testing-library) with the real client pointed at the
 * misbehaving SPEC service, plus what every fault case asserts afterwards: no unhandled rejection or
 * uncaught exception, a frame that is still the app (not a crash), and a readable status line.
 */
import React from 'react';
import { expect } from 'vitest';
import { createApi } from '../../src/api/client';
import type { Session } from '../../src/core/types';
import { App } from '../../src/tui/app';
import { renderAt, type Screen } from '../tui/ui';
import type { SpecService } from './spec-service';

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
  const api = createApi({ baseUrl: spec.baseUrl, timeoutMs: options.timeoutMs ?? 1500, retries: options.retries ?? 0, retryBaseDelayMs: 100 });
  const from = spec.requests.length;
  const screen = renderAt(
    <App
      api={api}
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
  return {
    screen,
    checks: () =>
      spec.requests
        .slice(from)
        .filter((r) => r.path === 'check-mail')
        .map((r) => ({ at: r.at, status: r.status })),
    close: () => screen.unmount(),
  };
}

/** Rejections and exceptions nobody handled, collected for the whole file. */
export const unhandled: unknown[] = [];
const onRejection = (reason: unknown) => unhandled.push(reason);
const onException = (error: unknown) => unhandled.push(error);

/** Starts collecting; returns the function that stops. */
export function watchUnhandled(): () => void {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}

/** The second header line: the poll state ("last checked …", "Offline, retrying in 2 s: …"). */
export const pollLine = (frame: string): string => frame.split('\n')[1] ?? '';

/** The frame is still the app, and says nothing a user should not read. */
export function expectReadable(frame: string): void {
  expect(frame).toMatch(/\?\s*help/); // the footer is drawn: the app did not crash into an error box
  expect(frame).not.toMatch(/\bat \S+\.(?:[cm]?js|tsx?):\d+/); // no stack
  expect(frame).not.toMatch(/\[object |undefined|NaN|<html|<\/|Error:|http:\/\/127/i);
}
