/**
 * Whether stopping this process (Ctrl-Z) can be undone: a shell with job control is there to `fg` it.
 * The kernel ignores SIGTSTP sent to an orphaned process group (no member has a parent in another group
 * of the same session: the program was started straight by a terminal emulator, a pty library, a
 * service manager), precisely because nothing could resume it. That is told from /proc: up the chain of
 * parents while they are in our group, the first one outside it must be in our session. Where /proc
 * cannot be read (macOS), the stop is tried: at worst the kernel ignores it.
 */
import { readFileSync } from 'node:fs';

interface Stat {
  ppid: number;
  pgrp: number;
  session: number;
}

// /proc/<pid>/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses.
function readStat(procRoot: string, pid: number | 'self'): Stat {
  const text = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [ppid, pgrp, session] = [Number(fields[1]), Number(fields[2]), Number(fields[3])];
  if (![ppid, pgrp, session].every(Number.isInteger)) throw new Error(`unreadable ${procRoot}/${pid}/stat`);
  return { ppid, pgrp, session };
}

// A chain of parents longer than this is not one a shell made.
const MAX_DEPTH = 32;

/** True when a stop signal to our process group would stop it and something could resume it. */
export function canBeResumed(procRoot = '/proc'): boolean {
  let self: Stat;
  try {
    self = readStat(procRoot, 'self');
  } catch {
    return true;
  }
  try {
    let at = self;
    for (let depth = 0; depth < MAX_DEPTH && at.ppid > 0; depth++) {
      const parent = readStat(procRoot, at.ppid);
      if (parent.pgrp !== self.pgrp) return parent.session === self.session;
      at = parent;
    }
    return false;
  } catch {
    // A parent gone or hidden: say what the kernel would do is unknown, and let it decide.
    return true;
  }
}
