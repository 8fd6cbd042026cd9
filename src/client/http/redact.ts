/**
 * Keeps secrets out of text that may reach the user. The client builds its own error messages and never
 * passes on got's (they carry the URL with the query string), but text that comes from the service (an
 * error `message`) can still echo the token back, so it goes through here before it enters an ApiError.
 */
import { clipRaw, safeText } from '../../text/safe-text';

// `token=...` in anything that looks like a query string or form body, whatever the token is.
const TOKEN_PARAM = /(\btoken=)[^&\s"'<>]*/gi;

/** Replaces every secret, and any `token=` parameter value, with a placeholder. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(TOKEN_PARAM, '$1[redacted]');
  for (const secret of secrets) {
    // Very short "secrets" (an empty or one-letter token) would shred ordinary words; they are not secret.
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** Service-supplied text for an error message: terminal-safe, short, and without the token. */
export function serviceText(value: unknown, secrets: readonly string[], maxLength = 200): string {
  // Redact before and after sanitizing (a control character inside the token must not hide it), and cut
  // only at the end, so a truncation can never leave a recognisable piece of the token behind. What could
  // not reach the cut is dropped first (a 64 MiB message was scanned once per secret known): the raw text
  // is clipped, less the longest secret's length, so a secret running over the clip goes whole.
  const raw = typeof value === 'string' ? redact(clipForRedaction(value, secrets, maxLength), secrets) : '';
  const clean = redact(safeText(raw), secrets);
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

// `text` cut to what can show of `maxLength` characters, and (when cut) short by the longest secret more.
function clipForRedaction(text: string, secrets: readonly string[], maxLength: number): string {
  const clipped = clipRaw(text, maxLength);
  if (clipped === text) return text;
  const longest = secrets.reduce((n, s) => Math.max(n, s.length), 0);
  return clipped.slice(0, Math.max(0, clipped.length - longest));
}
