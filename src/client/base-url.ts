/** A service's base URL as every client keeps it (no HTTP code here: the picker's first frame needs this). */
import { ApiError } from './api-error';

/** The base URL with one trailing slash and no query or fragment; only http(s). */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ApiError('bad_request', 'The service address is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('bad_request', 'The service address must start with http:// or https://');
  }
  // Query and fragment would be mangled by prefixUrl; paths are kept, with one trailing slash.
  url.search = '';
  url.hash = '';
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}
