/**
 * What every fault case asserts, whichever way the app runs (the App in ink-testing-library, or the
 * built program in a pty): a frame that is still the app and reads well, raw output free of crash
 * traces, request gaps as the service saw them, and a tally of the cases each file exercised, printed
 * as one line from the cases that actually ran (so the count cannot drift from the tests).
 */
import { afterAll, expect, it } from 'vitest';
import type { Fault } from './spec-service';

/** The second header line: the poll state ("last checked …", "Offline, retrying in 2 s: …"). */
export const pollLine = (frame: string): string => frame.split('\n')[1] ?? '';

/** The poll line of a healthy inbox. */
export const HEALTHY = /^last checked \d\d:\d\d:\d\d · every/;

/** Faults of check-mail the poller retries, with the poll line each one shows while it lasts. */
export const RETRIED_FAULTS: readonly (readonly [name: string, fault: Fault, line: RegExp])[] = [
  ['500s', 'http500', /^Error, retrying in \d+ s: The service failed \(internal, HTTP 500\): something went wrong/],
  ['malformed JSON', 'malformed', /^Error, retrying in \d+ s: The service sent an unexpected answer \(not JSON\)/],
  ['an HTML error page', 'html', /^Error, retrying in \d+ s: The service failed \(HTTP 502\)/],
  [
    'valid JSON of the wrong shape',
    'wrongShape',
    /^Error, retrying in \d+ s: The service sent an unexpected answer \(no list of messages\)/,
  ],
  [
    'a connection reset',
    'reset',
    /^Offline, retrying in \d+ s: (?:The service is unreachable \(connection (?:reset|closed early)\)|The request failed)/,
  ],
];

/** Faults of check-mail that end an address: polling stops, and the poll line starts with this. */
export const FATAL_FAULTS: readonly (readonly [name: string, fault: Fault, line: string])[] = [
  ['an unknown token (401)', 'unknownToken', 'The service no longer knows this address · press n for a new address'],
  ['an expired token (410)', 'expired', 'This address has expired · press n for a new address'],
];

/** What the inbox says when r is pressed after polling stopped. */
export const STOPPED_NOTICE = 'Polling stopped: this address is no longer live. Press n for a new one.';

/** The poll line of a service that refuses connections (down). */
export const REFUSED = /^Offline, retrying in \d+ s: The service is unreachable \(connection refused\)/;

/** The picker of an app whose service was down when the domains were asked for. */
export const DOMAINS_DOWN = 'Could not load the domains: The service is unreachable (connection refused)';

/** A stack frame or a thrown error's name, as Node prints them. */
const CRASH =
  /\bat (?:async )?(?:\S+ \()?(?:file:|node:|\/)\S*:\d+:\d+|\bat \S+\.(?:[cm]?js|tsx?):\d+|\b\w*Error:|Unhandled|unhandled/;

/** The frame is still the app, and says nothing a user should not read. */
export function expectReadable(frame: string): void {
  expect(frame).toMatch(/\?\s*help/); // the footer is drawn: the app did not crash into an error box
  expect(frame).not.toMatch(CRASH);
  expect(frame).not.toMatch(/\[object |undefined|NaN|<html|<\/|Error:/i);
  // No request URL in a message (got's errors carry one, token and all). The picker's "Service:" line
  // names the configured base URL, scheme and all, on purpose: it is the one line that may.
  const elsewhere = frame.split('\n').filter((line) => !/^Service: https?:\/\/[^\s/]+\/?\s*$/.test(line));
  expect(elsewhere.join('\n')).not.toMatch(/https?:\/\/127/i);
}

/** Everything a program wrote (escape sequences and all) carries no stack trace and no thrown error. */
export function expectNoCrashOutput(raw: string): void {
  const hit = CRASH.exec(raw);
  expect(hit === null, `crash output: …${hit ? raw.slice(Math.max(0, hit.index - 200), hit.index + 200) : ''}…`).toBe(
    true,
  );
}

/** Gaps in ms between consecutive times. */
export function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}

export interface FaultTally {
  /** An `it` that counts as one fault case: exercised when it starts, recovered when it passes. */
  it(name: string, fn: () => Promise<void>, timeoutMs?: number): void;
  /** One step of a longer test that counts as one fault case. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** Counts the fault cases of one file; after the file, prints "fault matrix, <where>: …" on one line. */
export function faultTally(where: string): FaultTally {
  const exercised: string[] = [];
  const recovered = new Set<string>();
  const took = new Map<string, number>();
  afterAll(() => {
    const failed = exercised.filter((name) => !recovered.has(name));
    const verdict = failed.length === 0 ? 'all recovered' : `${recovered.size} recovered, NOT: ${failed.join('; ')}`;
    // Each case by the words before its first colon (the test names go on to say what is asserted).
    const timed = (name: string) => {
      const ms = took.get(name);
      return `${name.split(':')[0]} ${ms === undefined ? 'failed' : `${(ms / 1000).toFixed(1)} s`}`;
    };
    const names = exercised.map(timed).join('; ');
    console.log(`fault matrix, ${where}: ${exercised.length} cases, ${verdict} [${names}]`);
  });
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    exercised.push(name);
    const started = Date.now();
    const value = await fn();
    took.set(name, Date.now() - started);
    recovered.add(name);
    return value;
  };
  return {
    it: (name, fn, timeoutMs) => it(name, () => step(name, fn), timeoutMs),
    step,
  };
}
