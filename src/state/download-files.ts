/**
 * Attachment names come from strangers. Before one becomes a file on disk it loses every way to escape
 * the download directory (separators, "..", a leading dot), everything a terminal or a file manager could
 * misread (controls, escape sequences, bidi overrides that make "txt.exe" look like "exe.txt"), and names
 * Windows refuses; it is cut to a length every file system takes, keeping the extension.
 */
import { constants, lstatSync, openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { safeLine } from '../text/safe-text';
import { replaceFileAtomically } from './secure-file';

export const FALLBACK_NAME = 'attachment';
/** Bytes of UTF-8; most file systems allow 255, the rest leaves room for " (12)" and a temp suffix. */
export const MAX_NAME_BYTES = 200;
// CON, PRN, AUX, NUL, COM1-9, LPT1-9 are devices on Windows whatever the extension ("con.txt" too).
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
// Characters Windows forbids, plus the separators of every platform.
const FORBIDDEN = /[<>:"/\\|?*]/g;
// Format and invisible characters safeLine leaves alone (zero-width space, BOM, soft hyphen, tags...),
// except the joiners ZWJ/ZWNJ, which emoji sequences and several scripts need to spell a word.
const INVISIBLE = /(?![\u200c\u200d])[\p{Cf}\p{Co}\p{Zl}\p{Zp}]/gu;

/** A file name that is safe to create in a directory; never empty, never a path. */
export function safeFileName(name: unknown): string {
  // The last path segment only: "../../etc/passwd" and "C:\\evil\\run.bat" keep just "passwd", "run.bat".
  const raw = typeof name === 'string' ? name : '';
  const segments = raw.split(/[/\\]/).filter((s) => s !== '' && s !== '.' && s !== '..');
  let base = safeLine(segments.at(-1) ?? '', 4096).normalize('NFC');
  base = base
    .replace(INVISIBLE, '')
    .replace(FORBIDDEN, '_')
    .replace(/\s+/g, ' ')
    // A leading dot hides the file (or is "." / ".."); trailing dots and spaces vanish on Windows.
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (base === '') return FALLBACK_NAME;
  const split = splitExtension(base);
  const stem = split.stem.replace(/\s+$/, '');
  const ext = split.ext;
  // Windows ignores what follows the first dot and trailing spaces when it matches device names.
  const device = (stem.split('.')[0] ?? '').trim();
  const safeStem = WINDOWS_RESERVED.test(device) ? `_${stem}` : stem;
  return fitName(safeStem, ext);
}

/**
 * A path in `dir` for `name` where nothing exists yet: "a.pdf", then "a (1).pdf", "a (2).pdf", ...
 * The name is made safe first. Prefer `writeNewFile`, which also closes the gap between looking and writing.
 */
export function uniquePath(dir: string, name: string): string {
  const safe = safeFileName(name);
  for (let n = 0; ; n++) {
    const candidate = join(dir, numbered(safe, n));
    if (!exists(candidate)) return candidate;
  }
}

/**
 * Writes `data` to a new file in `dir` named after `name` (made safe and numbered), created exclusively
 * so an existing file is never overwritten even if one appears meanwhile. Mode 0600: mail is private.
 * Returns the path written.
 */
export function writeNewFile(dir: string, name: string, data: Uint8Array): string {
  const safe = safeFileName(name);
  for (let n = 0; n < 10_000; n++) {
    const candidate = join(dir, numbered(safe, n));
    if (createExclusive(candidate, data)) return candidate;
  }
  throw new Error(`too many files named like ${safe} in ${dir}`);
}

/**
 * Writes `data` to a new file in `dir` under exactly `name` made safe (no numbering), created exclusively;
 * null when that name is taken (by anything: a file, a directory, even a dangling link), so the caller can
 * ask whether to replace it (`replaceFile`) or keep both (`writeNewFile`).
 */
export function writeFileIfNew(dir: string, name: string, data: Uint8Array): string | null {
  const path = join(dir, safeFileName(name));
  return createExclusive(path, data) ? path : null;
}

/**
 * Replaces the file `name` (made safe) in `dir` with `data`: written beside it, fsync'd, renamed over it,
 * so it is the old content or the new, never half. A symbolic link there is replaced, never followed,
 * and nothing is written outside `dir`. Mode 0600. Returns the path.
 */
export function replaceFile(dir: string, name: string, data: Uint8Array): string {
  const path = join(dir, safeFileName(name));
  replaceFileAtomically(path, data);
  return path;
}

// O_EXCL: fails on any existing entry and never follows a link, so nothing is ever written through one.
function createExclusive(path: string, data: Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** "name (n).ext" for n > 0, still within MAX_NAME_BYTES. */
export function numbered(safeName: string, n: number): string {
  if (n === 0) return safeName;
  const { stem, ext } = splitExtension(safeName);
  return fitName(stem, ` (${n})${ext}`);
}

// "report.final.pdf" -> ("report.final", ".pdf"); "archive.tar.gz" keeps ".tar.gz" together. An
// "extension" with spaces or longer than 16 characters is part of the stem.
function splitExtension(name: string): { stem: string; ext: string } {
  const m = /^(.+?)((?:\.tar)?\.[^.\s]{1,16})$/i.exec(name);
  return m ? { stem: m[1]!, ext: m[2]! } : { stem: name, ext: '' };
}

// Cuts the stem (whole graphemes, so no emoji or accent is split) until stem + tail fits.
function fitName(stem: string, tail: string): string {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  let safeTail = tail;
  if (bytes(safeTail) > MAX_NAME_BYTES / 2) safeTail = '';
  if (bytes(stem) + bytes(safeTail) <= MAX_NAME_BYTES) return stem + safeTail;
  const budget = MAX_NAME_BYTES - bytes(safeTail);
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(stem)) {
    const size = bytes(segment);
    if (used + size > budget) break;
    out += segment;
    used += size;
  }
  out = out.replace(/[.\s]+$/, '');
  return (out === '' ? FALLBACK_NAME : out) + safeTail;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
