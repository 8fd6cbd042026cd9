/**
 * One key per read for Ink. Ink hands a run of plain characters that arrives in one read to the screens
 * as a single "paste" (`jj`, three DELs, `j` + Enter), which no key binding matches, so all of them are
 * lost. That is what a laggy SSH link delivers when several keystrokes share a packet. This stdin
 * stand-in splits every read into keys (an escape sequence stays whole) and gives Ink one key at a time.
 * The next key waits for React: its renders and effects run as tasks of React's own scheduler, so the
 * next key is queued there at idle priority, behind them. A key that moves the selection is drawn, and a
 * screen it opens has subscribed to keys, before the following key is read, exactly as if the keys had
 * arrived one by one. A terminal's answer to a question (the start-up one about grapheme clustering,
 * when it comes late) is dropped, never handed to Ink as a key.
 */
import { EventEmitter } from 'node:events';
import { unstable_IdlePriority as IdlePriority, unstable_scheduleCallback as scheduleCallback } from 'scheduler';
import { activeWidths, type TerminalWidths, withWidths } from '../../text/active-widths';
import { TERMINAL_REPORT } from '../terminal/grapheme-query';

const ESC = '\x1b';
// How a lone Esc is handed to Ink: the kitty keyboard protocol's Escape (CSI 27 u), which Ink's parser
// reads as the Escape key whatever mode the terminal is in. A bare ESC is ambiguous to Ink 8's parser
// (the start of a sequence?): it would wait 20 ms for more and join the next key we hand it to the Esc
// (Esc then Enter read as Alt+Enter). This splitter has already decided it is the Esc key.
const ESC_KEY = '\x1b[27u';
// A CSI sequence (ESC [ params final) or SS3 (ESC O x), optionally after a second ESC (Alt+arrow).
const SEQUENCE = /^\x1b\x1b?(?:\[\[?[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|O[\x40-\x7e])/;
// The start of one that the read cut off: wait for the rest.
const PARTIAL = /^\x1b\x1b?(?:\[\[?[\x30-\x3f]*[\x20-\x2f]*|O)?$/;

/** Keys waiting for the app at most: some seconds of work, far more than anyone types ahead. */
export const MAX_QUEUED_KEYS = 4096;

/** Splits `text` into keys; an escape sequence cut off at the end comes back as `rest`. */
export function splitKeys(text: string): { keys: string[]; rest: string } {
  const keys: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== ESC) {
      const point = String.fromCodePoint(text.codePointAt(i)!);
      keys.push(point);
      i += point.length;
      continue;
    }
    const tail = text.slice(i);
    const sequence = SEQUENCE.exec(tail)?.[0];
    if (sequence) {
      keys.push(sequence);
      i += sequence.length;
    } else if (PARTIAL.test(tail)) {
      return { keys, rest: tail };
    } else {
      // ESC + one character: Alt+key (or Esc typed just before it, which Ink reads the same way).
      const next = String.fromCodePoint(tail.codePointAt(1)!);
      keys.push(ESC + next);
      i += 1 + next.length;
    }
  }
  return { keys, rest: '' };
}

/**
 * Wraps a terminal's stdin so that Ink reads one key at a time (only what Ink uses of it is passed on).
 * Keys reach the app in `widths`, its terminal's: React's scheduler, which times them, serves every app
 * of the process. A key is handed over on a turn of its own, so what a key handler throws would reach
 * the process: with `onError` it goes there instead (an SSH session ends alone, not the service).
 */
export function keyByKey(
  real: NodeJS.ReadStream,
  widths: TerminalWidths = activeWidths(),
  onError?: (error: Error) => void,
): NodeJS.ReadStream {
  const out = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const queue: string[] = [];
  let rest = '';
  let gave = false;
  let scheduled = false;
  let restTimer: NodeJS.Immediate | undefined;

  // Tells Ink a key is waiting; Ink then reads until null.
  const announce = () => {
    scheduled = false;
    if (queue.length === 0) return;
    gave = false;
    try {
      withWidths(widths, () => out.emit('readable'));
    } catch (error) {
      if (!onError) throw error;
      onError(error instanceof Error ? error : new Error(String(error)));
    }
  };
  // Idle priority puts the key behind the render the last key caused (a Normal task). The key itself is
  // given out on the next turn, outside the scheduler's loop: React queues the work of an update in a
  // microtask, which would not run before the loop's next task if the key were handled inside it.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    scheduleCallback(IdlePriority, () => setImmediate(announce));
  };
  const take = (text: string) => {
    const split = splitKeys(rest + text);
    rest = split.rest;
    // A terminal's answer to the start-up question (terminal/grapheme-query.ts) that came after its
    // deadline is no key: a DECRPM ends in `y`, which would confirm a question on the status line.
    const keys = split.keys.filter((key) => !TERMINAL_REPORT.test(key));
    // A flood (an SSH client sending without end, a runaway paste) must not grow memory: past
    // MAX_QUEUED_KEYS waiting, keys are dropped until the app has caught up.
    queue.push(...keys.slice(0, Math.max(0, MAX_QUEUED_KEYS - queue.length)));
    if (restTimer) clearImmediate(restTimer);
    // A lone Esc (or a cut sequence that never completes) is a key of its own once nothing follows it.
    restTimer = rest
      ? setImmediate(() => {
          restTimer = undefined;
          queue.push(rest);
          rest = '';
          schedule();
        })
      : undefined;
    schedule();
  };
  const onReadable = () => {
    const next = () => real.read() as string | Buffer | null;
    for (let chunk = next(); chunk !== null; chunk = next()) take(String(chunk));
  };

  out.on('newListener', (event: string) => {
    if (event !== 'readable' || out.listenerCount('readable') > 0) return;
    real.on('readable', onReadable);
    // Ink lets go of stdin when no screen reads keys for a moment; keys queued meanwhile are still due.
    if (queue.length > 0) schedule();
  });
  out.on('removeListener', (event: string) => {
    if (event === 'readable' && out.listenerCount('readable') === 0) real.off('readable', onReadable);
  });
  Object.assign(out, {
    isTTY: real.isTTY,
    // Each returns the stream, as Node's own do.
    setEncoding: (encoding: BufferEncoding) => {
      real.setEncoding(encoding);
      return out;
    },
    setRawMode: (mode: boolean) => {
      real.setRawMode(mode);
      return out;
    },
    ref: () => {
      real.ref();
      return out;
    },
    unref: () => {
      real.unref();
      return out;
    },
    // One key per announcement: the next one is announced on a later turn, after React has drawn.
    read: () => {
      if (gave || queue.length === 0) {
        if (queue.length > 0) schedule();
        return null;
      }
      gave = true;
      const key = queue.shift()!;
      return key === ESC ? ESC_KEY : key;
    },
  });
  return out as unknown as NodeJS.ReadStream;
}
