/**
 * Finding the verification code and the confirmation link in a sign-up mail, so the user does not
 * fish them out of the text. Pure functions over the subject and the rendered text (html-text.ts).
 *
 * Codes: every token shaped like a code (4-8 digits, "123 456", "A7K-29Q", "XK4P9Z") is a candidate;
 * decoys (years, prices, dates, times, phone numbers, order/invoice/ticket numbers, zip codes in an
 * address, CSS colours, tracking ids, promo codes) are masked or scored down; a label right before
 * or after ("code", "OTP", "PIN", "Bestätigungscode", "código", "認証コード" ...) scores up. Below a
 * threshold nothing is returned: a wrong code is worse than none. Precision and recall on the signup
 * fixtures are measured by test/content/codes.test.ts. Links are scored in codes-links.ts.
 */

import {
  blank,
  CODE_LABEL,
  DECOY_LABEL,
  DECOY_PREFIX,
  DECOY_SUFFIX,
  isDecoyContext,
  MESSAGE_KEYWORD,
  prepareText,
  PURPOSE_AFTER,
  USE_BEFORE,
  VERIFY_WORD,
} from './codes-vocabulary';

export { detectLink } from './codes-links';

/** A detected code and how sure the detector is (0..1). */
export interface DetectedCode {
  code: string;
  confidence: number;
}

/** What the detectors read: the subject and the rendered, safe text of the body. */
export interface CodeInput {
  subject: string;
  text: string;
}

// Only the top of a long mail is searched: codes come first, and this keeps a 2 MB body cheap.
const MAX_SCAN = 32 * 1024;
// And only the first tokens shaped like a code, and the first labels: each costs a few microseconds
// of context reading, and a body of nothing but "code 1234 code 1234 ..." must not cost 50 ms.
const MAX_CANDIDATES = 300;
const THRESHOLD = 0.6;

// Shapes. Lookarounds keep a candidate from being part of a longer token, a decimal or a grouped number.
// A letter of a script written without spaces (Chinese, Japanese, Thai) or with particles joined to
// the word (Korean) is no part of a code beside it: "验证码是638204", "730615です".
const SPACELESS = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}`;
const NOT_BEFORE = String.raw`(?<!(?![${SPACELESS}])[\p{L}\p{N}_\-#$€£¥₹/.,:+@=&]|\d[.,]|[.,]\d)`;
const NOT_AFTER = String.raw`(?!(?![${SPACELESS}])[\p{L}\p{N}_\-/@%‰°]|[.,:]\d)`;
const CANDIDATE = new RegExp(
  NOT_BEFORE +
    '(?:' +
    // a service's letter prefix before the digits: G-558214, FB-54821 (the field takes the digits)
    String.raw`[A-Z]{1,2}-\d{4,8}|` +
    // spaced or dashed digit groups: 123 456, 123-456, 1234 5678, 12 34 56, and one digit per
    // table cell as html-to-text renders it: 5 8 2 9 1 7
    String.raw`\d{3}[ \-]\d{3}(?![ \-]\d)|\d{4}[ \-]\d{4}(?![ \-]\d)|\d{2} \d{2} \d{2}(?! \d)|\d(?: \d){3,7}(?! \d)` +
    // dashed alphanumeric groups: A7K-29Q, ABCD-1234, 4F2-K9P-X1Q
    '|[A-Z0-9]{2,5}(?:-[A-Z0-9]{2,5}){1,2}' +
    // plain digits or upper-case alphanumeric: 482913, XK4P9Z
    '|[A-Z0-9]{4,8}' +
    ')' +
    NOT_AFTER,
  'gu',
);

// A code labelled outright may be lower-case or letters only ("code: ktqpzw"): taken only then.
const LABELLED_TOKEN = /^[\s:：\-–—=]*(?:(?:is|ist|es|est|è|é|:)\s*[:：]?\s*)?([A-Za-z0-9]{4,10})(?![\p{L}\p{N}])/u;

interface Candidate {
  code: string;
  score: number;
  order: number;
}

/** Scores the shape of a token alone: how code-like it is before any context. */
function shapeScore(token: string): number {
  const digits = token.replace(/\D/g, '').length;
  const letters = token.replace(/[^A-Za-z]/g, '').length;
  if (letters === 0) {
    if (/[ -]/.test(token)) return 0.35;
    if (digits === 6) return 0.3;
    if (digits === 4 && /^(?:19|20)\d\d$/.test(token)) return -1; // a year
    return digits >= 4 && digits <= 8 ? 0.25 : -1;
  }
  if (digits === 0) return /-/.test(token) ? 0.1 : -1; // ABC-DEF only with a label; a word is no code
  return 0.25;
}

const CODE_LABEL_G = new RegExp(CODE_LABEL.source, 'giu');
const DECOY_LABEL_G = new RegExp(DECOY_LABEL.source, 'giu');

// End index of the last match of the global `re` in `s`, or -1.
function lastMatch(re: RegExp, s: string): number {
  let end = -1;
  for (const m of s.matchAll(re)) end = (m.index ?? 0) + m[0].length;
  return end;
}

// The line holding [start, end), at most 160 chars either side: rendered lines are short, and a
// body without line breaks must not make every candidate rescan the whole text.
function lineAround(text: string, start: number, end: number): string {
  const from = Math.max(0, start - 160);
  const head = text.slice(from, start);
  const tail = text.slice(end, end + 160);
  const nl = tail.indexOf('\n');
  return head.slice(head.lastIndexOf('\n') + 1) + text.slice(start, end) + (nl < 0 ? tail : tail.slice(0, nl));
}

// What can label a token: the sentence it ends (up to 100 chars, not across a paragraph break or a
// full stop), or for a token alone on its line the 120 chars before it, where its heading is.
function labelWindow(text: string, start: number, alone: boolean): string {
  const before = text.slice(Math.max(0, start - (alone ? 120 : 100)), start);
  if (alone) return before;
  const para = before.lastIndexOf('\n\n');
  const sentence = before.slice(para + 1);
  const stops = [...sentence.matchAll(/[.!?。！？](?:\s|$)/gu)];
  const last = stops[stops.length - 1];
  return last ? sentence.slice((last.index ?? 0) + last[0].length) : sentence;
}

/** How strongly the text around [start, end) says "this is a code" (positive) or a decoy (negative). */
function contextScore(text: string, start: number, end: number, alone: boolean): number {
  const line = lineAround(text, start, end);
  const at = line.indexOf(text.slice(start, end));
  if (isDecoyContext(line.slice(0, at), line.slice(at + end - start))) return -1;
  const before = labelWindow(text, start, alone);
  const after = text.slice(end, end + 48).split('\n')[0] ?? '';
  const label = lastMatch(CODE_LABEL_G, before);
  const decoy = lastMatch(DECOY_LABEL_G, before);
  let score = 0;
  if (decoy > label) return -1; // the nearest label says order/invoice/phone/...
  if (label >= 0) {
    if (DECOY_PREFIX.test(before.slice(Math.max(0, label - 24), label))) return -1; // "promo code"
    if (DECOY_SUFFIX.test(before.slice(label, label + 24))) return -1; // "codice sconto"
    // A verification code wins over a coupon's "Use code SAVE20" beside it.
    score += VERIFY_WORD.test(before) ? 0.65 : 0.5;
  } else if (CODE_LABEL.test(after) && !DECOY_LABEL.test(after)) {
    score += 0.45; // "482913 is your verification code"
  } else if (USE_BEFORE.test(before) && PURPOSE_AFTER.test(after)) {
    score += 0.45; // "Use 937402 to verify your email"
  }
  if (alone) score += 0.2;
  return score;
}

// Digits grouped for reading ("123 456", "123-456", "5 8 2 9 1 7") are typed as digits only: sites'
// code fields take digits (many refuse a dash or a space), so that is what is shown and copied. A
// letter prefix (G-, FB-) is printed by the service beside its input field: the user types the digits.
// Letters and digits with dashes (A7K-29Q) are kept as shown: there the dashes may be part of it.
function normalise(token: string): string {
  if (/^[A-Z]{1,2}-\d+$/.test(token)) return token.slice(token.indexOf('-') + 1);
  return /^\d+(?:[ -]\d+)*$/.test(token) ? token.replace(/[ -]/g, '') : token;
}

/** Candidates in one text, with shape + context scores. */
function candidates(text: string, base: number, order: number, out: Candidate[]): void {
  let tried = 0;
  for (const m of text.matchAll(CANDIDATE)) {
    if (++tried > MAX_CANDIDATES) break;
    const token = m[0];
    const start = m.index ?? 0;
    const shape = shapeScore(token);
    if (shape < 0) continue;
    const line = lineAround(text, start, start + token.length).trim();
    const alone = line === token || /^[\s\p{P}]*$/u.test(line.replace(token, ''));
    const context = contextScore(text, start, start + token.length, alone);
    if (context < 0) continue;
    // Letters-only tokens ("ABC-DEF") need a label to count at all.
    if (shape < 0.2 && context < 0.45) continue;
    out.push({ code: normalise(token), score: base + shape + context, order: order + start });
  }
  // Explicitly labelled tokens of any case: "Your code: ktqpzw", "código: 4kx9". (A set, not a
  // search of `out` per label: a text of 3,000 labelled codes would make that quadratic.)
  const seen = new Set(out.map((c) => c.code));
  let labels = 0;
  for (const m of text.matchAll(CODE_LABEL_G)) {
    if (++labels > MAX_CANDIDATES) break;
    const at = (m.index ?? 0) + m[0].length;
    const t = LABELLED_TOKEN.exec(text.slice(at, at + 40));
    if (!t?.[1]) continue;
    const token = t[1];
    if (!/\d/.test(token) && !/^[A-Z]{4,8}$/.test(token)) continue; // a plain word follows the label
    if (/^(?:19|20)\d\d$/.test(token)) continue;
    if (DECOY_PREFIX.test(text.slice(Math.max(0, at - 24), at)) || DECOY_SUFFIX.test(text.slice(at, at + 24))) continue;
    if (isDecoyContext(text.slice(Math.max(0, at - 60), at), text.slice(at, at + 60).split('\n')[0] ?? '')) continue;
    if (seen.has(token)) continue;
    seen.add(token);
    out.push({ code: token, score: base + 0.2 + 0.5, order: order + at });
  }
}

/**
 * The likely verification code in a message, or null when nothing is code-like enough.
 * `text` is the rendered body (renderBody), whose link list and "[n]" references are ignored.
 */
export function detectCode(input: CodeInput): DetectedCode | null {
  const subject = blank(typeof input.subject === 'string' ? input.subject : '');
  const text = prepareText(typeof input.text === 'string' ? input.text.slice(0, MAX_SCAN) : '');
  // A mail that speaks of codes, verification or signing in makes any candidate more likely.
  const about = MESSAGE_KEYWORD.test(subject) || MESSAGE_KEYWORD.test(text) ? 0.15 : 0;
  const found: Candidate[] = [];
  candidates(subject, about + 0.1, 0, found);
  candidates(text, about, subject.length + 1, found);
  if (found.length === 0) return null;
  // The same code in subject and body, or twice in the body, is more certainly the one.
  const byCode = new Map<string, Candidate>();
  for (const c of found) {
    const seen = byCode.get(c.code);
    if (!seen) byCode.set(c.code, { ...c });
    else {
      seen.score = Math.max(seen.score, c.score) + 0.1;
      seen.order = Math.min(seen.order, c.order);
    }
  }
  const best = [...byCode.values()].sort((a, b) => b.score - a.score || a.order - b.order)[0];
  if (!best || best.score < THRESHOLD) return null;
  return { code: best.code, confidence: Math.round(Math.min(1, best.score) * 100) / 100 };
}
