/**
 * canBeResumed reads /proc as the kernel decides whether SIGTSTP stops a process group: a stand-in
 * /proc tree (the same file format) for each case, and the real /proc of this test process.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canBeResumed } from '../../src/platform/job-control';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A /proc with `self` and its ancestors: [pid, ppid, pgrp, session, comm]. */
function proc(self: number, entries: [number, number, number, number, string][]): string {
  root = mkdtempSync(join(tmpdir(), 'tempmail-proc-'));
  for (const [pid, ppid, pgrp, session, comm] of entries) {
    const line = `${pid} (${comm}) S ${ppid} ${pgrp} ${session} 34816 ${pgrp} 4194304 0 0\n`;
    mkdirSync(join(root, String(pid)));
    writeFileSync(join(root, String(pid), 'stat'), line);
    if (pid === self) {
      mkdirSync(join(root, 'self'));
      writeFileSync(join(root, 'self', 'stat'), line);
    }
  }
  return root;
}

describe('canBeResumed', () => {
  it('yes when started by a shell with job control (its parent is in another group of the session)', () => {
    expect(
      canBeResumed(
        proc(200, [
          [200, 100, 200, 100, 'node'],
          [100, 1, 100, 100, 'bash'],
        ]),
      ),
    ).toBe(true);
  });

  it('yes through a wrapper in the same job (npx): the first parent outside the group decides', () => {
    const tree = proc(300, [
      [300, 200, 200, 100, 'node (cli) )x'],
      [200, 100, 200, 100, 'npm exec'],
      [100, 1, 100, 100, 'bash'],
    ]);
    expect(canBeResumed(tree)).toBe(true);
  });

  it('no when nothing above is in the session: started straight in a terminal or by a pty library', () => {
    expect(
      canBeResumed(
        proc(200, [
          [200, 50, 200, 200, 'node'],
          [50, 1, 50, 50, 'xterm'],
        ]),
      ),
    ).toBe(false);
  });

  it('tries (yes) when /proc cannot tell', () => {
    root = mkdtempSync(join(tmpdir(), 'tempmail-proc-'));
    expect(canBeResumed(root)).toBe(true);
  });

  it('reads the real /proc without failing', () => {
    expect(typeof canBeResumed()).toBe('boolean');
  });
});
