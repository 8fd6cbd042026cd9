/**
 * Linux process and file inspection for the secrets test: the app's pid (found by its argv), its
 * descendants with their argv read from /proc, stand-in clipboard and browser tools that record how
 * they were started, and every file under a directory.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../harness/wait';

export interface Proc {
  pid: number;
  ppid: number;
  /** argv joined by spaces. */
  cmdline: string;
}

function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: the ppid follows the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, ppid, cmdline };
  } catch {
    return null; // gone in between
  }
}

/** Every process on the machine right now. */
export function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => readProc(Number(n)))
    .filter((p): p is Proc => p !== null);
}

/** The pid of the process whose argv contains `needle` (e.g. the app's unique --base-url). */
export async function findPid(needle: string): Promise<Proc> {
  return waitFor(() => processes().find((p) => p.cmdline.includes(needle) && p.cmdline.includes('cli.js')), {
    timeoutMs: 10_000,
    message: `a process with ${needle} in its argv`,
  });
}

/** Children, grandchildren ... of `root`. */
export function descendants(root: Proc): Proc[] {
  const all = processes();
  const out: Proc[] = [];
  const parents = new Set([root.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

/**
 * Writes stand-ins for `names` (xclip, xdg-open ...) into `dir`: each records its own argv (from /proc)
 * and swallows stdin. Returns a reader of what was recorded, one line per run.
 */
export function fakeTools(dir: string, names: string[]): () => string[] {
  const log = join(dir, 'runs.log');
  for (const name of names) {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\n{ tr '\\0' ' ' < /proc/$$/cmdline; echo; } >> '${log}'\ncat > /dev/null\nexit 0\n`);
    chmodSync(file, 0o755);
  }
  return () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
}

/** Every regular file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}
