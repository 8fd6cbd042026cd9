/** The status-line wording of copies, link opening, saved attachments and a refused refresh, in one place. */
import type { OpenResult } from '../../platform/browser';
import { safeLine } from '../../text/safe-text';

/** A line for the status bar. */
export interface StatusMessage {
  text: string;
  kind: 'info' | 'error';
}

// What the clipboard says starts with its verb: "Copied with xclip; ...", "Sent to the terminal via
// OSC 52 ...". The thing copied goes right after it.
const VERB = /^(Copied|Sent)\b/;

/**
 * "Sent code 482913 to the terminal via OSC 52 (no local clipboard tool)" from what the clipboard said
 * ("Sent to the terminal via OSC 52 (no local clipboard tool)"); a failure keeps its own words after
 * the thing's name.
 */
export function copiedLine(what: string, said: string): string {
  const clean = safeLine(said, 200);
  if (VERB.test(clean)) return clean.replace(VERB, `$1 ${what}`);
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}: ${clean}`;
}

/** Why a link was not opened, in a few words. */
export function notOpenedReason(result: Exclude<OpenResult, { opened: true }>): string {
  if (result.reason === 'unsafe') return 'not a web link';
  if (result.reason === 'failed') return safeLine(result.detail ?? 'the opener failed', 60);
  return 'no display';
}

/** "Opened link 2 in a browser (xdg-open)". */
export function openedLine(n: number, opener: string): string {
  return `Opened link ${n} in a browser (${safeLine(opener, 40)})`;
}

/**
 * "Link 2 not opened (no display), shown above and sent to the terminal via OSC 52 (...)": what happened first, so a
 * narrow status line cut at its end still says it.
 */
export function shownInsteadLine(n: number, result: Exclude<OpenResult, { opened: true }>, copySaid: string): string {
  const head = `Link ${n} not opened (${notOpenedReason(result)}), shown above`;
  const said = safeLine(copySaid, 200);
  return VERB.test(said) ? `${head} and ${said.replace(VERB, (verb) => verb.toLowerCase())}` : `${head}; ${said}`;
}

/**
 * Why `r` did not check now, for the status line. A wait the service asked for (429, or 503 with
 * Retry-After) names its cause, so a 503 is not reported as rate limiting.
 */
export function refreshRefusal(phase: string, rateLimited: boolean, reason: string | null = null): string {
  if (phase === 'stopped') return 'Polling stopped: this address is no longer live. Press n for a new one.';
  if (rateLimited) return `${safeLine(reason ?? 'The service asked to wait', 120)}: waiting as it asked.`;
  return 'Already checking…';
}

/** Local mode's catch-all made an inbox: where it is now. */
export function catchAllText(email: string): string {
  return `Mail came for ${email}, so its inbox was made: s lists it`;
}
