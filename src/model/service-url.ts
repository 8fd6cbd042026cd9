/**
 * One spelling per service, so that "http://127.0.0.1:8025" and "http://127.0.0.1:8025/" name the same
 * one wherever addresses are saved, looked up or compared: the URL's href with one trailing slash and no
 * query or fragment. Anything that is not a URL is kept as it is (trimmed).
 */
export function normalizeBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return baseUrl.trim();
  }
}
