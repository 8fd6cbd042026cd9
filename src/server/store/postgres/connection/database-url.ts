/**
 * The database URL of `serve --database-url` and the one rule about it: its password never reaches a log
 * line, an error or the terminal. Every line that could carry the URL goes through scrubSecrets(); where
 * the URL itself is shown (the start-up line, errors naming the database), it is redactDatabaseUrl()'s
 * form, `postgres://user:***@host:5432/db`. No pg import here: serve-config checks URLs without loading
 * the driver.
 */

/** A URL `serve` accepts as its database: the two schemes libpq knows. */
export const DATABASE_URL = /^postgres(?:ql)?:\/\/[^\s\u0000-\u001f\u007f]*$/i;

/** The URL with any password (in the user part or a `password=` parameter) replaced by `***`. */
export function redactDatabaseUrl(url: string): string {
  return url
    .replace(/^(postgres(?:ql)?:\/\/)([^@/?#]*)@/i, (_all, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return `${scheme}${colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***`}@`;
    })
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** The password a URL carries, as written and decoded (either may appear in a message); none: []. */
function passwordsIn(url: string): string[] {
  const found: string[] = [];
  const user = /^postgres(?:ql)?:\/\/([^@/?#]*)@/i.exec(url)?.[1];
  const colon = user?.indexOf(':') ?? -1;
  if (user && colon >= 0) found.push(user.slice(colon + 1));
  for (const m of url.matchAll(/[?&]password=([^&#]*)/gi)) found.push(m[1] ?? '');
  const decoded = found.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return [...new Set([...found, ...decoded])].filter((p) => p.length > 0);
}

/**
 * Removes every trace of the database URL's secrets from `text`: the URL as given becomes its redacted
 * form, then any leftover copy of the password (as written, URL-decoded, or from PGPASSWORD) becomes `***`.
 */
export function scrubSecrets(text: string, url: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return secretScrubber(url, env)(text);
}

/**
 * scrubSecrets for one URL and environment, with the redacted form and the secrets worked out once: a
 * busy service scrubs every log line, and parsing the URL each time was some 13 µs a line.
 */
export function secretScrubber(
  url: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): (text: string) => string {
  const redacted = url ? redactDatabaseUrl(url) : '';
  // Under 4 characters a password is not hunted for in free text: every "a" in a log line would go.
  // Longest first, so a password that contains a shorter one is replaced whole.
  const secrets = [...(url ? passwordsIn(url) : []), env.PGPASSWORD ?? '']
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length);
  if (!url && secrets.length === 0) return (text) => text;
  return (text) => {
    let out = url && text.includes(url) ? text.split(url).join(redacted) : text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('***');
    return out;
  };
}

/** True when the URL itself carries a password (then it sits in argv, visible to `ps`, if given as a flag). */
export function urlHasPassword(url: string): boolean {
  return passwordsIn(url).length > 0;
}
