/**
 * Ctrl-Z on the built program, started from a real interactive shell in a pseudo-terminal (job control
 * needs one: a process group with no shell above it cannot be stopped by SIGTSTP): the terminal is given
 * back (main screen, cursor shown) and the process is stopped (state T); mail sent meanwhile over real
 * SMTP shows after the shell's `fg`, which brings the app back redrawn and reading keys.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';
import { sendMail } from '../harness/service';
import { waitFor } from '../harness/wait';
import { isInbox, isPicker, neutralEnv } from './flow';
import { CLI, KEYS, spawnApp, type PtyApp } from './pty-harness';

const LEAVE_ALT = '\x1b[?1049l';
const ENTER_ALT = '\x1b[?1049h';
const SHOW_CURSOR = '\x1b[?25h';
const HIDE_CURSOR = '\x1b[?25l';
const CTRL_Z = '\x1a';
const PROMPT = 'shell$ ';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The process state letter of /proc/<pid>/stat (R, S, T, ...). */
async function procState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
}

/** The one child of the shell: the app. */
async function childOf(pid: number): Promise<number> {
  return waitFor(async () => {
    const kids = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean);
    return kids.length === 1 ? Number(kids[0]) : null;
  });
}

describe('Ctrl-Z', () => {
  it('gives the terminal back to the shell, stops; fg brings it back redrawn, still polling', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tempmail-e2e-data-'));
    const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-home-'));
    let serve: ServeReady | undefined;
    let shell: PtyApp | undefined;
    cleanup = async () => {
      shell?.kill();
      if (serve) await stopServe(serve);
      await rm(dataDir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    };
    serve = await startServeProcess(['--host', '127.0.0.1', '--data-dir', dataDir], neutralEnv());
    shell = spawnApp({
      command: { file: '/bin/bash', args: ['--norc', '--noprofile', '-i'] },
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, PS1: PROMPT, HISTFILE: '/dev/null' },
      cols: 80,
      rows: 24,
    });
    await shell.waitForScreen(PROMPT);
    await shell.press(`${process.execPath} ${CLI} --base-url ${serve.baseUrl} --poll-interval 1 --no-bell\r`, isPicker);
    const app = await childOf(shell.pid());
    await shell.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s));
    const address = /([a-z0-9._-]+@[a-z0-9.-]+)/.exec(shell.screen()[0] ?? '')![1]!;
    await sendMail(serve, { to: address, subject: 'Before the pause', text: 'one' });
    await shell.waitForScreen('Before the pause');

    const before = shell.mark();
    await shell.press(CTRL_Z, /Stopped/);
    await waitFor(async () => ((await procState(app)) === 'T' ? true : null), { message: 'the app stopped (state T)' });
    const given = shell.rawSince(before).toString('utf8');
    expect(given).toContain(LEAVE_ALT);
    expect(given.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(given.lastIndexOf(HIDE_CURSOR));
    expect(shell.terminal().buffer.active.type).toBe('normal');
    await shell.waitForScreen((s) => s.trimEnd().endsWith(PROMPT.trim()));

    // Mail arrives while it is stopped; the shell is usable meanwhile.
    await sendMail(serve, { to: address, subject: 'During the pause', text: 'two' });
    await shell.press('echo still-here\r', /^still-here$/m);
    expect(await procState(app)).toBe('T');

    const resumed = shell.mark();
    await shell.press('fg\r', (s) => isInbox(s) && s.includes('During the pause') && s.includes('Before the pause'));
    expect(shell.terminal().buffer.active.type).toBe('alternate');
    const back = shell.rawSince(resumed).toString('utf8');
    expect(back).toContain(ENTER_ALT);
    expect(back.lastIndexOf(HIDE_CURSOR)).toBeGreaterThan(back.lastIndexOf(SHOW_CURSOR));
    expect(await procState(app)).not.toBe('T');

    // Raw mode again: a single key (no Enter) reaches the app; and q quits to the shell as ever.
    await shell.press('g');
    await shell.press(KEYS.ENTER, /^Subject: +During the pause/m);
    await shell.press('q', (s) => isInbox(s));
    await shell.press('q', (s) => s.trimEnd().endsWith(PROMPT.trim()));
    expect(shell.terminal().buffer.active.type).toBe('normal');
    await shell.press('exit\r');
    expect(await shell.exited()).toBe(0);
  });
});
