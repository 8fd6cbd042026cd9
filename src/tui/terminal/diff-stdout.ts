/**
 * The terminal as Ink sees it: a stand-in for stdout that writes only the cells that changed. Ink redraws
 * its whole frame whenever anything in it changes (the countdown's second: every line of the screen,
 * each second, over every SSH link). Ink writes a frame in one piece right after its synchronized-output
 * start mark: the erasure of the previous frame's lines, then the new frame's lines. This stand-in keeps
 * the frame it last let through and, when the next one has as many lines, writes the difference instead
 * (frame-diff.ts). The terminal ends up showing exactly what the whole frame would have shown. The
 * cursor waits below the last line changed (the next diff starts there), and is put back where Ink thinks
 * it is (below the frame) before anything else Ink writes. What Ink writes between its two marks
 * reaches the terminal in one write, not three.
 *
 * Whatever does not look like that frame (a clipboard sequence, Ink clearing its output, the first frame)
 * goes through as it is and makes the next frame go through whole too, as does a resize (the terminal may
 * have reflowed what it shows). So the worst a surprise can cost is one full frame, never a wrong screen.
 */
import { EventEmitter } from 'node:events';
import { activeWidths, type TerminalWidths, withWidths } from '../../text/active-widths';
import { frameDiff, moveTo } from './frame-diff';

const BSU = '\x1b[?2026h';
const ESU = '\x1b[?2026l';
// Writes that change no cell: the cursor hidden or shown, the bell.
const HARMLESS = new Set(['', ESU, '\x1b[?25l', '\x1b[?25h', '\x07']);
// ansi-escapes' eraseLines(n), as Ink writes it before a frame: n erased lines going up, then column 1.
const ERASE_LINES = /^(?:\x1b\[2K\x1b\[1A)*\x1b\[2K\x1b\[G/;
// What a frame's lines may hold: printable text, SGR sequences (what line-cells.ts reads or rewrites)
// and OSC 8 hyperlinks as text/hyperlink.ts writes them (a line holding one is rewritten whole when it
// changes, and skipped when it does not).
const FRAME_TEXT = /^(?:[^\x00-\x1f\x7f-\x9f]|\x1b\[[0-9;:]*m|\x1b\]8;[^;\x00-\x1f\x7f-\x9f]*;[\x21-\x7e]*\x1b\\)*$/u;
// The URI of each hyperlink code on a line: an empty one closes the link.
const LINK_CODE = /\x1b\]8;[^;]*;([^\x1b]*)\x1b\\/g;

/** A frame line a diff may leave or rewrite alone: its text is frame text, and any link it opens it closes. */
function frameLine(line: string): boolean {
  if (!FRAME_TEXT.test(line)) return false;
  if (!line.includes('\x1b]8;')) return true;
  return [...line.matchAll(LINK_CODE)].at(-1)?.[1] === '';
}

/** Counts what went through (tests read it). */
export interface DiffStats {
  /** Frames written as differences. */
  diffed: number;
  /** Frames (or other writes) let through whole. */
  whole: number;
}

/** The lines of Ink's frame write `chunk` after the erasure of `erased` lines; null when it is not one. */
export function frameLines(chunk: string, erased: number | null): string[] | null {
  const erase = ERASE_LINES.exec(chunk)?.[0] ?? '';
  const count = erase === '' ? 0 : erase.split('\x1b[2K').length - 1;
  if (erased !== null && count !== erased) return null;
  const text = chunk.slice(erase.length);
  // Ink ends a frame that is shorter than the terminal with a newline: the cursor waits below it.
  if (!text.endsWith('\n')) return null;
  const lines = text.slice(0, -1).split('\n');
  return lines.every(frameLine) ? lines : null;
}

/** What diffingStdout gives Ink: a WriteStream as far as Ink uses one. */
export type DiffingStdout = NodeJS.WriteStream & {
  diffStats: DiffStats;
  /** Settles once the first frame has been written to the terminal (its end mark included). */
  firstFrame: Promise<void>;
  /**
   * Puts the cursor back where Ink thinks it is (below the frame), on the real terminal, now: before
   * something else takes the screen (Ctrl-Z's shell, the exit), where a terminal that ignores the
   * alternate screen (GNU screen's default) would print the prompt over the frame.
   */
  park(): void;
  /** Parks the cursor and stops following the real terminal's resizes. */
  dispose(): void;
};

/** `translate`, measuring in `widths` (the cells of a line are placed by its columns). */
const translateIn = (widths: TerminalWidths, st: FrameState, stats: DiffStats, text: string): string =>
  withWidths(widths, () => translate(st, stats, text));

/**
 * A stdout for Ink that passes `real`'s size and resizes on and writes only changed cells to it, measured
 * in `widths`, its terminal's.
 */
/** What diffingStdout knows of the terminal between Ink's writes. */
export interface FrameState {
  /** The lines of the frame on the terminal, when this knows them. */
  shown: string[] | null;
  /** The line the cursor waits on after a diff (column 1); Ink's idea is the line below the frame. */
  row: number;
  /** The last write was Ink's start mark: the next is a frame. */
  afterStart: boolean;
}

/** Back to where Ink thinks the cursor is (the line below the frame), before anything of Ink's own. */
function toInksPlace(st: FrameState): string {
  const height = st.shown?.length ?? st.row;
  const back = st.row === height ? '' : moveTo(st.row, height);
  st.row = height;
  return back;
}

/** What goes to the terminal for `text`, one of Ink's writes. */
export function translate(st: FrameState, stats: DiffStats, text: string): string {
  // Ink hides the cursor between its start mark and its first frame.
  if (HARMLESS.has(text)) return text;
  const frameStart = st.afterStart;
  st.afterStart = false;
  if (frameStart) {
    const lines = frameLines(text, st.shown === null ? null : st.shown.length + 1);
    if (lines) {
      const diff = st.shown === null ? null : frameDiff(st.shown, lines, st.row);
      if (diff !== null) {
        st.shown = lines;
        st.row = diff.row;
        stats.diffed++;
        return diff.bytes;
      }
      const back = toInksPlace(st);
      st.shown = lines;
      st.row = lines.length;
      stats.whole++;
      return back + text;
    }
  }
  const back = toInksPlace(st);
  st.shown = null;
  st.row = 0;
  stats.whole++;
  return back + text;
}

export function diffingStdout(real: NodeJS.WriteStream, widths: TerminalWidths = activeWidths()): DiffingStdout {
  const events = new EventEmitter();
  const stats: DiffStats = { diffed: 0, whole: 0 };
  const st: FrameState = { shown: null, row: 0, afterStart: false };
  // What Ink wrote since its start mark: sent in one write at its end mark (one system call a frame).
  let held: string | null = null;
  let heldDone: ((error?: Error | null) => void)[] = [];
  const first = Promise.withResolvers<void>();

  const flush = (): boolean => {
    if (held === null) return true;
    const out = held;
    const done = heldDone;
    held = null;
    heldDone = [];
    const written = real.write(
      out,
      done.length === 0
        ? undefined
        : (error) => {
            for (const d of done) d(error);
          },
    );
    if (out.endsWith(ESU)) first.resolve();
    return written;
  };
  const emit = (chunk: string, done?: (error?: Error | null) => void): boolean => {
    if (held === null) return real.write(chunk, done);
    held += chunk;
    if (done) heldDone.push(done);
    return chunk === ESU ? flush() : true;
  };

  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const done = rest.find((r): r is (error?: Error | null) => void => typeof r === 'function');
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text === BSU) {
      flush();
      held = '';
      st.afterStart = true;
      // Ink ends what it starts in the same turn; should an end mark ever not come, nothing stays held.
      queueMicrotask(flush);
      return emit(text, done);
    }
    return emit(translateIn(widths, st, stats, text), done);
  };

  function park(): void {
    flush();
    const back = toInksPlace(st);
    if (back) real.write(back);
  }

  const onResize = () => {
    // Ink answers with writes of its own, from where it thinks the cursor is.
    const back = toInksPlace(st);
    if (back) emit(back);
    // The terminal may have reflowed or scrolled what it shows: the next frame goes whole.
    st.shown = null;
    st.row = 0;
    withWidths(widths, () => events.emit('resize')); // Ink lays out and draws again, in these widths
  };
  real.on('resize', onResize);

  // Ink's resize listeners are kept here; the stand-in answers for itself, as a stream does.
  type Listener = (...args: unknown[]) => void;
  const listen = (how: 'on' | 'off' | 'once', event: string, listener: Listener) => {
    events[how](event, listener);
    return stdout;
  };
  const stdout = {
    diffStats: stats,
    firstFrame: first.promise,
    write,
    get columns() {
      return real.columns;
    },
    get rows() {
      return real.rows;
    },
    get isTTY() {
      return real.isTTY;
    },
    get writable() {
      return real.writable;
    },
    get writableEnded() {
      return real.writableEnded;
    },
    get writableLength() {
      return real.writableLength;
    },
    get destroyed() {
      return real.destroyed;
    },
    on: (event: string, listener: Listener) => listen('on', event, listener),
    off: (event: string, listener: Listener) => listen('off', event, listener),
    once: (event: string, listener: Listener) => listen('once', event, listener),
    addListener: (event: string, listener: Listener) => listen('on', event, listener),
    removeListener: (event: string, listener: Listener) => listen('off', event, listener),
    listenerCount: (event: string) => events.listenerCount(event),
    park,
    dispose: () => {
      park();
      real.off('resize', onResize);
    },
  };
  return stdout as unknown as DiffingStdout;
}
