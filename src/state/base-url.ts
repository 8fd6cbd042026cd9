/**
 * A service base URL may carry `user:password@` (a service behind basic auth). The credentials are kept
 * where the client needs them to reach the service (settings, the saved-sessions file) and taken out of
 * every place a base URL is printed: scripting output, messages, errors.
 */

/** The base URL as it may be printed or shown: without `user:password@`. */
export function displayBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    // Not a URL we can parse: still drop anything between "//" and an "@" before the path.
    return baseUrl.trim().replace(/\/\/[^/?#@\s]*@/g, '//');
  }
}
