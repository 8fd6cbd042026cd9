/**
 * Asks the terminal whether it clusters graphemes (DEC private mode 2027, from the Terminal Unicode Core
 * proposal: Ghostty, WezTerm, foot, contour and Windows Terminal answer that it is on), so that an emoji
 * sequence can be measured as the one glyph such a terminal draws (src/text/terminal-width.ts).
 *
 * The question is DECRQM (`CSI ? 2027 $ p`), followed by Primary Device Attributes (`CSI c`), which
 * every terminal answers, and answers after anything asked before it: when that answer is in, so is the
 * mode's, if the terminal knows it. So a terminal that knows nothing of 2027 (xterm, tmux, Terminal.app)
 * costs one round trip, not a timeout. With no answer within the deadline (a slow link), the app starts
 * with the widths that are safe everywhere; answers that come later are dropped from the keys
 * (widgets/key-stdin.ts), never read as one. The mode is only asked about, never changed.
 */

/** The question: DECRQM for mode 2027, then DA1. */
export const GRAPHEME_QUERY = '\x1b[?2027$p\x1b[c';
// The mode's answer (DECRPM): 0 not recognized, 1 set, 2 reset, 3 permanently set, 4 permanently reset.
const MODE_REPORT = /\x1b\[\?2027;(\d)\$y/;
// The device attributes' answer.
const DA1_REPORT = /\x1b\[\?[\d;]*c/;
/** Any report this question brings back, as it appears among keys. */
export const TERMINAL_REPORT = /^\x1b\[\?[\d;]*(?:\$y|c)$/;

/**
 * How long the first frame may wait for the answer. A terminal on the same machine answers in well
 * under a millisecond, one over SSH in a round trip, and the UI's code loads meanwhile; past this, the
 * app starts with the widths that are safe everywhere.
 */
const QUERY_DEADLINE_MS = 250;

/**
 * The deadline from TEMPMAIL_TERMINAL_ANSWER_MS (milliseconds, up to 10 s; 0 does not ask at all), or
 * QUERY_DEADLINE_MS when it is unset or not a number.
 */
export function answerDeadline(env: NodeJS.ProcessEnv): number {
  const raw = env.TEMPMAIL_TERMINAL_ANSWER_MS;
  if (raw === undefined || !/^\d{1,5}$/.test(raw.trim())) return QUERY_DEADLINE_MS;
  return Math.min(10_000, Number(raw.trim()));
}

/** Whether a DECRPM answer `state` says the terminal clusters graphemes now. */
const clustersGraphemes = (state: number): boolean => state === 1 || state === 3;

/** What the terminal said: the mode's state when it answered, and whether it answered in time. */
export interface GraphemeAnswer {
  clustering: boolean;
  /** The DECRPM state, or null when the terminal did not report the mode. */
  state: number | null;
  answered: boolean;
}

/**
 * Sends the question to `output` and reads the answer from `input` (a TTY put in raw mode meanwhile, as
 * it was after). Keys typed meanwhile are given back to `input`, in order, for the app to read.
 */
export function queryGraphemeClustering(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  deadlineMs = QUERY_DEADLINE_MS,
): Promise<GraphemeAnswer> {
  if (deadlineMs <= 0 || !input.isTTY || !output.isTTY || typeof input.setRawMode !== 'function') {
    return Promise.resolve({ clustering: false, state: null, answered: false });
  }
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    let got = Buffer.alloc(0);
    let done = false;
    const finish = (answered: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      input.off('data', onData);
      input.pause();
      const text = got.toString('latin1');
      const mode = MODE_REPORT.exec(text);
      // What is not an answer was typed: back to the stream, for the app's first read.
      const rest = text.replace(MODE_REPORT, '').replace(DA1_REPORT, '');
      if (rest.length > 0) input.unshift(Buffer.from(rest, 'latin1'));
      if (!wasRaw) input.setRawMode(false);
      const state = mode ? Number(mode[1]) : null;
      resolve({ clustering: state !== null && clustersGraphemes(state), state, answered });
    };
    const onData = (chunk: Buffer | string) => {
      got = Buffer.concat([got, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk]);
      if (DA1_REPORT.test(got.toString('latin1'))) finish(true);
      // Bounded: a terminal answers in a few dozen bytes; more than this is keys (a paste), not answers.
      else if (got.length > 4096) finish(false);
    };
    const timer = setTimeout(() => finish(false), deadlineMs);
    try {
      input.setRawMode(true);
      input.on('data', onData);
      output.write(GRAPHEME_QUERY);
    } catch {
      finish(false);
    }
  });
}
