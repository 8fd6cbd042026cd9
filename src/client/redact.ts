/**
 * Keeps secrets out of text that may reach the user. The client builds its own error messages and never
 * passes on got's (they carry the URL with the query string), but text that comes from the service (an
 * error `message`) can still echo the token back, so it goes through here before it enters an ApiError.
 */
import { safeText } from '../text/safe-text';

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
  // only at the end, so a truncation can never leave a recognisable piece of the token behind.
  const raw = typeof value === 'string' ? redact(value, secrets) : '';
  const clean = redact(safeText(raw), secrets);
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}
