/** The status-line wording of copies, link opening and saved attachments, in one place. */
import type { OpenResult } from '../core/browser';
import { safeLine } from '../core/safe-text';

/**
 * "Copied code 482913 via OSC 52 (no local clipboard tool)" from what the clipboard said ("Copied via
 * OSC 52 (no local clipboard tool)"); a failure keeps its own words after the thing's name.
 */
export function copiedLine(what: string, said: string): string {
  const clean = safeLine(said, 200);
  if (/^Copied\b/.test(clean)) return clean.replace(/^Copied\b/, `Copied ${what}`);
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}: ${clean}`;
}

/** Why a link was not opened, as the start of a sentence. */
export function notOpenedReason(result: Exclude<OpenResult, { opened: true }>): string {
  if (result.reason === 'unsafe') return 'Not a web (http/https) link, so not opened';
  if (result.reason === 'failed') return `${safeLine(result.detail ?? 'The browser opener failed', 80)}`;
  return 'No display here for a browser';
}

/** "Opened link 2 in a browser (xdg-open)". */
export function openedLine(n: number, opener: string): string {
  return `Opened link ${n} in a browser (${safeLine(opener, 40)})`;
}

/** "No display here for a browser: link 2 is shown above; copied via OSC 52". */
export function shownInsteadLine(n: number, result: Exclude<OpenResult, { opened: true }>, copySaid: string): string {
  const copied = copiedLine(`link ${n}`, copySaid);
  return `${notOpenedReason(result)}: link ${n} is shown in full above. ${copied}`;
}
