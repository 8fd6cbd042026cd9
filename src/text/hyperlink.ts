/**
 * OSC 8 hyperlinks (https://gist.github.com/egmontkob/eb114294efbcd5adb1944c9f3cb5feda): text that a
 * terminal opens as a link on a click. The URL is a stranger's (it came in a mail), and it goes inside an
 * escape sequence, so this is its boundary: only an http(s) URL goes in, as the WHATWG URL parser writes
 * it (controls, spaces and every non-ASCII character percent-encoded, the host in punycode), and then
 * only when that holds nothing but printable ASCII, so no ESC, BEL or C1 control can end the sequence
 * early or start another. Any other URL, or one longer than terminals keep, leaves the text unlinked.
 */

// VTE ignores a URI longer than 2083 bytes; kitty and others keep fewer. Such a link stays text.
const MAX_URI = 2048;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const ST = '\x1b\\';
export const HYPERLINK_END = `\x1b]8;;${ST}`;

/** The URI an OSC 8 sequence may carry for `url`, or null when `url` is not one to link. */
export function hyperlinkUri(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const uri = parsed.href;
  return uri.length <= MAX_URI && PRINTABLE_ASCII.test(uri) ? uri : null;
}

/** A short id from `uri` (FNV-1a), so the pieces of one link wrapped over several rows are one link. */
function linkId(uri: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uri.length; i++) hash = Math.imul(hash ^ uri.charCodeAt(i), 0x01000193);
  return `tm${(hash >>> 0).toString(36)}`;
}

/**
 * `text` as a link to `url` (text alone when `url` is not one to link). Trailing blanks stay outside the
 * link, so padding a row to its width does not make the empty cells clickable.
 */
export function hyperlink(url: string, text: string): string {
  const uri = hyperlinkUri(url);
  const body = text.trimEnd();
  if (uri === null || body === '') return text;
  return `\x1b]8;id=${linkId(uri)};${uri}${ST}${body}${HYPERLINK_END}${text.slice(body.length)}`;
}
