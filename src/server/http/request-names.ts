/**
 * Names of a request: the client it counts as (for the per-client limits and the log) and its path as
 * the access log may show it, with anything that may be a token redacted.
 */
import type { IncomingMessage } from 'node:http';
import { normalIp, plainIp } from '../limits/ip-address';
import { ROUTES } from './routes';

export const isLoopback = (address: string) => address === '::1' || /^127\./.test(address);

/**
 * The client of a request, for the per-client rate limit. Behind a reverse proxy every request comes
 * from the proxy. A request from a trusted proxy (one in `trustedProxies`, or with `trustProxy` a
 * loopback address: the proxy on this machine) is the client's that the proxies appended to
 * X-Forwarded-For: the last entry that is not itself a listed proxy (a chain of listed balancers each
 * append their peer). Entries before it are whatever the client claimed, and a request from anywhere
 * else is not believed at all.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean, listed: ReadonlySet<string>): string {
  const peer = plainIp(req.socket.remoteAddress ?? 'unknown');
  if (!listed.has(peer) && !(trustProxy && isLoopback(peer))) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((h) => normalIp(h.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === undefined) return peer;
    if (!listed.has(hop)) return hop;
  }
  return peer;
}

/** Removes the token, and anything shaped like a `token=` pair, from a line bound for the log. */
export function redact(line: string, token: string | undefined): string {
  let out = line.replace(/token=[^&\s"]*/gi, 'token=[redacted]');
  if (token && token.length >= 4) out = out.split(token).join('[redacted]');
  return out;
}

/** Route names (`check-mail`, ...): an unknown path that starts with one is still worth naming. */
const ROUTE_NAMES = new Set(Object.keys(ROUTES).map((p) => p.slice(1)));

/**
 * A path as the access log may show it. A route is named as it is; an unknown path can carry a token
 * (`/check-mail/<token>`, the shape some temp-mail APIs use), so only its first segment is kept, and only
 * when it reads as a name (a route, or a short lower-case word like "favicon.ico"): everything else is
 * "[redacted]", as a token in the query is.
 */
export function loggablePath(path: string): string {
  if (Object.hasOwn(ROUTES, path) || path === '/') return path;
  const [first = '', ...rest] = path.slice(1).split('/');
  const shown = ROUTE_NAMES.has(first) || /^[a-z][a-z.-]{0,23}$/.test(first) ? first : '[redacted]';
  return `/${shown}${rest.length > 0 && shown !== '[redacted]' ? '/[redacted]' : ''}`;
}
