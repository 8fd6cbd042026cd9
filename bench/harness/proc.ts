/** What the kernel says a process costs (Linux /proc): CPU time and resident memory, read from outside. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** USER_HZ, the unit of utime/stime (100 on every Linux we know, asked once anyway). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of `pid` in ms (its threads included, its children not). */
export function cpuMs(pid: number): number {
  const { user, sys } = cpuSplitMs(pid);
  return user + sys;
}

/** utime + stime of `pid`'s main thread alone (the JavaScript thread; V8's GC and compiler threads not), ms. */
export function mainThreadCpuMs(pid: number): number {
  const { user, sys } = statTimes(`/proc/${pid}/task/${pid}/stat`);
  return user + sys;
}

/** CPU time of `pid` (all its threads) so far, in user space and in the kernel, ms. */
export function cpuSplitMs(pid: number): { user: number; sys: number } {
  return statTimes(`/proc/${pid}/stat`);
}

/** The fields of a /proc stat file after the command name (field 3 on: state, ppid, ...). */
function statFields(file: string): string[] {
  const stat = readFileSync(file, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime and stime of a /proc stat file (a process's or one thread's), ms. */
function statTimes(file: string): { user: number; sys: number } {
  const fields = statFields(file);
  return { user: (Number(fields[11]) * 1000) / clockTicks(), sys: (Number(fields[12]) * 1000) / clockTicks() };
}

/**
 * CPU time of `pid` and its children, user and kernel, ms: its own, what its children that ended cost
 * (cutime, cstime: counted once it has waited for them), and its live children's, each with theirs.
 * For a server that forks a process per connection (PostgreSQL's backends); a child that starts and
 * ends between two reads is counted once its parent has reaped it.
 */
export function treeCpuSplitMs(pid: number): { user: number; sys: number } {
  const ms = (ticks: string | undefined) => (Number(ticks) * 1000) / clockTicks();
  const total = { user: 0, sys: 0 };
  const add = (fields: string[]) => {
    total.user += ms(fields[11]) + ms(fields[13]);
    total.sys += ms(fields[12]) + ms(fields[14]);
  };
  add(statFields(`/proc/${pid}/stat`));
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === pid) continue;
    try {
      const fields = statFields(`/proc/${name}/stat`);
      if (Number(fields[1]) === pid) add(fields);
    } catch {
      // Gone meanwhile: its parent's cutime has it (or will, once reaped).
    }
  }
  return total;
}

/** VmRSS of `pid` in MB (2^20 bytes). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) / 1024;
}

/** The 1-minute load average and the core count, for the report's "how busy was the machine". */
export function machineLoad(): { load1: number; cores: number } {
  const load1 = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const cores = readFileSync('/proc/cpuinfo', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('processor')).length;
  return { load1, cores };
}

/**
 * Time the main thread of `pid` has run and has waited, runnable, for a CPU (ms, since it started), from
 * /proc/<pid>/task/<pid>/schedstat. Waiting that is a large share of the wall time means the process was
 * ready and the machine's cores were busy with something else.
 */
export function schedMs(pid: number): { run: number; wait: number } {
  const [run = 0, wait = 0] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  return { run: run / 1e6, wait: wait / 1e6 };
}
