/**
 * The one terminal-safe boundary. Every string that comes from the service or from a message passes
 * through here before it enters the app's state, and again after any decoding step that can produce
 * control characters (HTML entities, MIME encoded-words, quoted-printable). What comes out can be
 * written to a terminal verbatim: it holds no C0 control but `\n` (and, multi-line, spaces from tabs),
 * no DEL, no C1 control, no escape sequence of any kind, no bidi override or isolate, and no invisible
 * character that a terminal would draw wider than it is measured (soft hyphen, Hangul fillers).
 */

export interface SafeTextOptions {
  /** Keep line breaks (message bodies). Single-line fields (subject, names) fold them to spaces. */
  multiline?: boolean;
  /** Cut the result to this many UTF-16 code units, ending with an ellipsis. */
  maxLength?: number;
}

// Whole sequences go first, so that their payloads (a title, a clipboard blob, a DCS query) vanish
// with them rather than being left as stray text. Introducers are 7-bit (ESC x) or their C1 twins.
// String sequences end at ST (ESC \ or U+009C) or BEL; an unterminated one loses only its introducer
// below, so a truncated attack cannot swallow the rest of a message. The payload also stops at the next
// C1 introducer: otherwise every introducer of a flood would rescan to the end of the text (quadratic;
// 40,000 U+0090 took a second, a 2 MB mail would hang the app). The leftovers are removed below anyway.
const STRING_SEQUENCE =
  /(?:\x1b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\x07\x1b\u009c\u009d\u0090\u0098\u009e\u009f]*(?:\x07|\x1b\\|\u009c)/g;
// CSI: parameters, intermediates, one final byte.
const CSI_SEQUENCE = /(?:\x1b\[|\u009b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?/g;
// Any other escape: ESC, optional intermediates, one final byte (ESC c, ESC ( B, ESC 7, ESC #8 ...).
// A space right after ESC ends it as a lone ESC: otherwise "ESC word" text would lose " w" as
// intermediate and final, and no sequence worth keeping out starts ESC SP once its ESC is gone.
const OTHER_ESCAPE = /\x1b(?:[\x21-\x2f][\x20-\x2f]*)?[\x30-\x7e]?/g;
// The three in ONE left-to-right pass, as a terminal parses: separate passes would join what one removal
// leaves behind (a lone ESC before a CSI) with the next visible letter and eat it ("a ESC ESC[31m b" -> "a").
// Every ESC starts a match here (OTHER_ESCAPE always matches), so none survives this pass.
const SEQUENCE = new RegExp(`${STRING_SEQUENCE.source}|${CSI_SEQUENCE.source}|${OTHER_ESCAPE.source}`, 'g');
// What is left of controls after the sequences are gone: C0 but \n and \t, DEL, C1, lone ESC.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// What a colour sequence leaves when something before us dropped its ESC (a sender's address parser
// does: "Evil ESC[31mRED" arrives as "Evil [31mRED"): "[31m", "[1;31m", "[m". Dropped from one-line
// fields (names, subjects, file names), where such text is never meant; a body keeps it (a mail about
// shell colours quotes "\e[31m"). Not "[2m]" (a measure) or "[mailto".
const SGR_LEFTOVER = /\[(?:\d{1,3}(?:;\d{1,3}){0,15}m(?!\])|m(?![\p{L}\]]))/gu;
// Bidi embeddings, overrides, isolates and marks: removed, so text can never be shown reordered.
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
// Invisible characters that terminals still give a column (or two) while Ink measures them as zero: a
// soft hyphen (`&shy;` in marketing HTML) and the Hangul fillers. Left in, one long subject full of them
// is wider than Ink thinks, wraps, and scrolls the address off the top of the screen. They carry nothing
// visible (a soft hyphen is only a hint where a word may break), so they go.
const INVISIBLE_WIDE = /[\u00ad\u115f\u3164\uffa0]/g;
// A lone UTF-16 surrogate (possible from a `\u` escape in JSON) is not text a terminal can show: it
// becomes U+FFFD (String's own isWellFormed/toWellFormed, ES2024, in Node 20).
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
// Every character one of the passes below (but the surrogates') removes or changes: text without any
// (most of it: a 2 MB newsletter) is checked in one scan instead of rewritten six times.
const TOUCHED =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u00ad\u115f\u3164\uffa0]/;

// What may be kept of raw text per character of a cut result: room for everything a decoding step or the
// passes below remove or shrink (an escape sequence, a control, `&#x1F600;`: 10 characters for 2).
const RAW_PER_CHAR = 10;

/**
 * Raw text cut to what can matter for a result of `maxLength` characters, before any pattern runs on it:
 * a 60 MB subject costs no more than a 10 KB one. Never splits a surrogate pair.
 */
export function clipRaw(text: string, maxLength: number): string {
  const keep = maxLength * RAW_PER_CHAR + 16;
  if (text.length <= keep) return text;
  const cut = /[\ud800-\udbff]/.test(text[keep - 1] ?? '') ? keep - 1 : keep;
  return text.slice(0, cut);
}

/** Makes `input` safe to write to a terminal. Never throws; anything that is not a string becomes "". */
export function safeText(input: unknown, options: SafeTextOptions = {}): string {
  if (typeof input !== 'string' || input.length === 0) return '';
  // A field that will be cut is cut first (generously), so no pattern below runs on more than it needs.
  const raw = options.maxLength !== undefined ? clipRaw(input, options.maxLength) : input;
  let text = !TOUCHED.test(raw)
    ? raw
    : raw
        .replace(SEQUENCE, '')
        // A carriage return is a line break in mail (CRLF) and an overwrite trick on a terminal:
        // either way it must not move the cursor, so it becomes a line break.
        .replace(/\r\n?/g, '\n')
        .replace(/[\u2028\u2029\x0b\x0c]/g, '\n')
        .replace(CONTROL, '')
        .replace(BIDI, '')
        .replace(INVISIBLE_WIDE, '');
  if (!(text as unknown as WellFormed).isWellFormed()) text = (text as unknown as WellFormed).toWellFormed();
  if (options.multiline) {
    text = expandTabs(text);
  } else {
    text = text.replace(/[\t\n]+/g, ' ');
    if (text.includes('[')) text = text.replace(SGR_LEFTOVER, '');
  }
  // Clipped raw text is cut text, and says so, even when what was kept of it is short (all controls).
  if (options.maxLength !== undefined && (text.length > options.maxLength || raw !== input)) {
    let cut = Math.max(0, Math.min(text.length, options.maxLength - 1));
    // Never split a surrogate pair: half of one is a lone surrogate, which is not text.
    if (cut > 0 && /[\ud800-\udbff]/.test(text[cut - 1] ?? '')) cut -= 1;
    text = `${text.slice(0, cut)}…`;
  }
  return text;
}

/** Single-line shorthand for fields such as subject, sender name and address. */
export const safeLine = (input: unknown, maxLength = 1000): string => safeText(input, { maxLength });

/** Multi-line shorthand for message bodies. */
export const safeBlock = (input: unknown): string => safeText(input, { multiline: true });

/** True when `text` would pass through `safeText` unchanged apart from tabs: used by tests and asserts. */
export function isTerminalSafe(text: string): boolean {
  return !/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/.test(text);
}

// Terminals disagree on tab width and Ink measures a tab as zero columns; spaces lay out the same everywhere.
function expandTabs(text: string): string {
  if (!text.includes('\t')) return text;
  return text
    .split('\n')
    .map((line) => {
      let out = '';
      for (const ch of line) out += ch === '\t' ? ' '.repeat(8 - (out.length % 8)) : ch;
      return out;
    })
    .join('\n');
}
