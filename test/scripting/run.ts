/** Runs a scripting command in-process with captured stdout/stderr, the way the CLI would. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { runScript } from '../../src/scripting/index';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestService, type TestService } from '../harness/service';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Runner {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Every byte any command wrote, to assert that no token ever leaked. */
  transcript: string[];
  run(
    command: string,
    args: string[],
    options?: { env?: NodeJS.ProcessEnv; signal?: AbortSignal },
  ): Promise<RunResult> & { live: RunResult };
  /** Tokens of the live saved addresses that appear anywhere in the transcript (should be none). */
  leakedTokens(): string[];
  cleanup(): void;
}

/** A runner with its own TEMPMAIL_TUI_HOME (config, saved sessions) in a temp dir. */
export function makeRunner(): Runner {
  const home = mkdtempSync(join(tmpdir(), 'tempmail-script-'));
  const env: NodeJS.ProcessEnv = { TEMPMAIL_TUI_HOME: home, HOME: home };
  const transcript: string[] = [];
  return {
    home,
    env,
    transcript,
    run(command, args, options = {}) {
      // `live` fills while the command runs, so a test can wait until `wait` has started.
      const live: RunResult = { code: -1, stdout: '', stderr: '' };
      const promise = runScript(command, args, {
        stdout: { write: (s: string) => (live.stdout += s) },
        stderr: { write: (s: string) => (live.stderr += s) },
        env: { ...env, ...options.env },
        signal: options.signal,
      }).then((code) => {
        live.code = code;
        transcript.push(live.stdout, live.stderr);
        return live;
      });
      return Object.assign(promise, { live });
    },
    leakedTokens() {
      const all = transcript.join('');
      return (
        openSavedSessions({ env })
          .listLive()
          .map((saved) => saved.token)
          // An account saved before its sign-in has no token yet ("").
          .filter((token) => token !== '' && all.includes(token))
      );
    },
    cleanup() {
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The last paragraph of bigHtml(). */
export const BIG_HTML_END = 'This is the last paragraph of the newsletter.';

/** About 600 KB of HTML (past the viewer's 256 KB render cap), ending with BIG_HTML_END. */
export function bigHtml(): string {
  const paragraphs = Array.from(
    { length: 9000 },
    (_, i) => `<p>Paragraph ${i} of a long newsletter, with <b>some</b> markup.</p>`,
  );
  const html = `<html><body>${paragraphs.join('\n')}<p>${BIG_HTML_END}</p></body></html>`;
  if (html.length < 600_000) throw new Error(`bigHtml is only ${html.length} bytes`);
  return html;
}

/**
 * The usual setting of a scripting test file: one reference service on loopback and one runner for the
 * whole file; at its end, no token may appear in anything a command wrote.
 */
export function scriptFixture(): { readonly svc: TestService; readonly r: Runner } {
  const fixture = {} as { svc: TestService; r: Runner };
  beforeAll(async () => {
    fixture.svc = await startTestService({ createPerMinute: 1000 });
    fixture.r = makeRunner();
  });
  afterAll(async () => {
    expect(fixture.r.leakedTokens()).toEqual([]);
    fixture.r.cleanup();
    await fixture.svc.close();
  });
  return fixture;
}
