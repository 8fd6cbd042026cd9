/**
 * Reads an `strace -f -tt -yy -o FILE` log into whole system calls, for tests that prove an order of
 * effects (fsync before the SMTP 250). With -f, calls of different threads interleave: a call another
 * thread interrupts is split into "name(args <unfinished ...>" and, later, "<... name resumed>rest".
 * Each call keeps the line number where it started and where it returned, so "A returned before B
 * started" is `a.end < b.start`, whatever the threads.
 */

export interface Syscall {
  pid: number;
  name: string;
  /** Everything between the parentheses, with -y/-yy decorations ("22</path>", "21<TCP:[a->b]>"). */
  args: string;
  /** What follows " = ": "0", "40", "22</path>", "-1 EAGAIN (...)", "?". */
  ret: string;
  /** Line index where the call started. */
  start: number;
  /** Line index where it returned (the "resumed" line for a split call). */
  end: number;
}

const LINE = /^(\d+)\s+\d\d:\d\d:\d\d\.\d+\s+(.*)$/;
const RESUMED = /^<\.\.\. (\w+) resumed>(.*)$/;
const UNFINISHED = /^(\w+)\((.*) <unfinished \.\.\.>$/;
const CALL = /^(\w+)\((.*)$/;

/** Splits "args) = ret" at the last ") = " (strings in args may hold parentheses). */
function splitReturn(text: string): { args: string; ret: string } | undefined {
  const at = text.lastIndexOf(') = ');
  if (at < 0) return undefined;
  return { args: text.slice(0, at), ret: text.slice(at + 4).trim() };
}

/** All complete calls of the log, in the order they returned. Signals, exits and unknown lines are skipped. */
export function parseStrace(text: string): Syscall[] {
  const calls: Syscall[] = [];
  const open = new Map<number, { name: string; head: string; start: number }>();
  text.split('\n').forEach((raw, index) => {
    const line = LINE.exec(raw);
    if (!line) return;
    const pid = Number(line[1]);
    const body = line[2]!;
    if (body.startsWith('---') || body.startsWith('+++')) return;
    const resumed = RESUMED.exec(body);
    if (resumed) {
      const head = open.get(pid);
      open.delete(pid);
      const split = splitReturn(`${head?.head ?? ''}${resumed[2]}`);
      if (head && head.name === resumed[1] && split)
        calls.push({ pid, name: head.name, ...split, start: head.start, end: index });
      return;
    }
    const unfinished = UNFINISHED.exec(body);
    if (unfinished) {
      open.set(pid, { name: unfinished[1]!, head: unfinished[2]!, start: index });
      return;
    }
    const call = CALL.exec(body);
    const split = call && splitReturn(call[2]!);
    if (call && split) calls.push({ pid, name: call[1]!, ...split, start: index, end: index });
  });
  return calls.sort((a, b) => a.end - b.end);
}

/** The first argument as strace printed it, e.g. `22</tmp/x/.tmp-1.msg-ab>` or `21<TCP:[...]>`. */
export function firstArg(call: Syscall): string {
  // The first argument never holds a comma here: an fd with its path, or a quoted path without commas.
  return call.args.split(', ')[0] ?? '';
}

/** The quoted string arguments (paths, buffers), with strace's escaping left in place. */
export function quotedArgs(call: Syscall): string[] {
  return [...call.args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
}

/** The fd a call returned, e.g. 22 from "22</path>"; undefined for an error. */
export function returnedFd(call: Syscall): number | undefined {
  const m = /^(\d+)/.exec(call.ret);
  return m ? Number(m[1]) : undefined;
}
