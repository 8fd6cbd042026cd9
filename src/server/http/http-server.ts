/**
 * The HTTP front end of the reference service (node:http, no framework): routing, parameter reading,
 * JSON answers and the one place that turns every failure into `{status:"error", error, message}`.
 * Each request is caught as a whole, so no input can crash the process or leak a stack.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { addBearerToken, bearerToken, CAPABILITIES, CAPABILITIES_HEADER } from './bearer';
import { CheckMailCache } from './check-mail-cache';
import { HttpError, parseParams, readBody } from './params';
import { ROUTES, type RouteExtras, type RouteResult } from './routes';
import { ServiceError, type MailService } from '../service-types';

export interface HttpFrontOptions {
  /** One line per request; never carries a token. */
  log?: (line: string) => void;
  /** Largest request body accepted (413 beyond). Default 64 KiB. */
  bodyLimit?: number;
  /** How long close() lets in-flight requests finish before cutting connections. Default 10 s. */
  closeGraceMs?: number;
  /** 408 when a request's headers take longer (ms). Default 15 s. */
  headersTimeoutMs?: number;
  /** 408 when a whole request takes longer (ms); at least headersTimeoutMs. Default 30 s. */
  requestTimeoutMs?: number;
  /** Take the client from X-Forwarded-For when the request comes from a loopback proxy. Default false. */
  trustProxy?: boolean;
  /**
   * Addresses of load balancers in front (on other machines): a request from one of them is counted
   * (create-session rate) under the client it names in X-Forwarded-For. From anyone else that header is
   * ignored.
   */
  trustedProxies?: readonly string[];
  /** Bytes of check-mail answers kept between requests (default 64 MiB). */
  checkMailCacheBytes?: number;
  /** The event streams (GET /events) and the admin API, where the service offers them. */
  extras?: RouteExtras;
}

export interface HttpFront {
  server: http.Server;
  /** Listens and resolves with the bound port (0 = any free port). */
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (up to the grace time), then resolves. */
  close(): Promise<void>;
  /** New request time limits (a reload), for the requests that start from now on. */
  setTimeouts(headersTimeoutMs: number, requestTimeoutMs: number): void;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** "::ffff:127.0.0.1" and "127.0.0.1" are one client for the rate limit. */
function unmapped(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

const isLoopback = (address: string) => address === '::1' || /^127\./.test(address);

/**
 * The client of a request, for the per-client rate limit. Behind a reverse proxy every request comes
 * from the proxy. A request from a trusted proxy (one in `trustedProxies`, or with `trustProxy` a
 * loopback address: the proxy on this machine) is the client's that the proxies appended to
 * X-Forwarded-For: the last entry that is not itself a listed proxy (a chain of listed balancers each
 * append their peer). Entries before it are whatever the client claimed, and a request from anywhere
 * else is not believed at all.
 */
function clientAddressOf(req: IncomingMessage, trustProxy: boolean, listed: ReadonlySet<string>): string {
  const peer = unmapped(req.socket.remoteAddress ?? 'unknown');
  if (!listed.has(peer) && !(trustProxy && isLoopback(peer))) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((h) => unmapped(h.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    if (isIP(hops[i]!) === 0) return peer;
    if (!listed.has(hops[i]!)) return hops[i]!;
  }
  return peer;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendPayload(res, status, Buffer.from(JSON.stringify(body), 'utf8'), headers);
}

function sendPayload(res: ServerResponse, status: number, payload: Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'content-type': JSON_TYPE,
    'content-length': String(payload.length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(payload);
}

/** Writes a handler's answer. */
function send(res: ServerResponse, result: RouteResult): void {
  switch (result.kind) {
    case 'json':
      return sendJson(res, result.status ?? 200, result.body, result.headers);
    case 'serialized':
      return sendPayload(res, 200, result.body, { etag: result.etag });
    case 'not-modified':
      // No body: the client keeps what it got with this ETag.
      res.writeHead(304, { etag: result.etag, 'cache-control': 'no-store' });
      return void res.end();
    case 'bytes':
      res.writeHead(200, { ...result.headers, 'content-length': String(result.body.length) });
      return void res.end(result.body);
    case 'stream':
      return result.open(res);
  }
}

interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  headers: Record<string, string>;
}

function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof ServiceError) {
    const headers: Record<string, string> = {};
    const retry = error.retryAfterSeconds ?? (error.status === 503 ? 30 : undefined);
    if (retry !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(retry)));
    return { status: error.status, code: error.code, message: error.message, headers };
  }
  if (error instanceof HttpError) return { status: error.status, code: error.code, message: error.message, headers: error.headers };
  return { status: 500, code: 'internal', message: 'Internal error', headers: {} };
}

/** Removes the token, and anything shaped like a `token=` pair, from a line bound for the log. */
function redact(line: string, token: string | undefined): string {
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
function loggablePath(path: string): string {
  if (Object.hasOwn(ROUTES, path) || path === '/') return path;
  const [first = '', ...rest] = path.slice(1).split('/');
  const shown = ROUTE_NAMES.has(first) || /^[a-z][a-z.-]{0,23}$/.test(first) ? first : '[redacted]';
  return `/${shown}${rest.length > 0 && shown !== '[redacted]' ? '/[redacted]' : ''}`;
}

/** Builds the HTTP front end over a MailService. */
export function createHttpFront(service: MailService, options: HttpFrontOptions = {}): HttpFront {
  const log = options.log ?? (() => {});
  const bodyLimit = options.bodyLimit ?? 64 * 1024;
  const closeGraceMs = options.closeGraceMs ?? 10_000;
  const trustProxy = options.trustProxy ?? false;
  const listedProxies = new Set((options.trustedProxies ?? []).map(unmapped));
  const checkMail = new CheckMailCache(options.checkMailCacheBytes);
  const extras = options.extras ?? {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    let path = '?';
    // What the log says: the path with anything that may be a token in it redacted.
    let logPath = '?';
    let token: string | undefined;
    // Every answer, errors included, says what the service offers beyond the interface.
    res.setHeader(CAPABILITIES_HEADER, CAPABILITIES);
    try {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://service.invalid');
      } catch {
        throw new HttpError(400, 'bad_request', 'Malformed request URL');
      }
      path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
      logPath = loggablePath(path);
      const route = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
      // Without an admin token the admin routes are not there at all (not even a 405 says otherwise).
      if (!route || (path.startsWith('/admin/') && !extras.admin)) throw new HttpError(404, 'not_found', 'No such route');
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      if (method !== route.method) {
        throw new HttpError(405, 'method_not_allowed', `Use ${route.method} for ${path}`, {
          allow: route.method === 'GET' ? 'GET, HEAD' : 'POST',
        });
      }
      const body = await readBody(req, bodyLimit);
      const params = parseParams(req, url, body);
      const bearer = bearerToken(req);
      // On /admin/ routes the header carries the admin token, which is no session's.
      if (!path.startsWith('/admin/')) addBearerToken(params, bearer);
      const t = params.get('token');
      token = typeof t === 'string' ? t : undefined;
      const ifNoneMatch = req.headers['if-none-match'];
      const result = await route.handle(service, {
        params,
        clientAddress: clientAddressOf(req, trustProxy, listedProxies),
        ifNoneMatch: Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch,
        checkMail,
        bearer,
        extras,
      });
      send(res, result);
      log(redact(`http ${req.method} ${logPath} ${res.statusCode} ${Date.now() - started}ms`, token));
    } catch (error) {
      const answer = errorAnswer(error);
      if (answer.status >= 500 && !(error instanceof ServiceError)) {
        const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        log(redact(`http ${req.method} ${logPath} 500 unexpected ${what}`, token));
      } else {
        log(redact(`http ${req.method} ${logPath} ${answer.status} ${answer.code}`, token));
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (answer.headers.connection === 'close') res.shouldKeepAlive = false;
      sendJson(res, answer.status, { status: 'error', error: answer.code, message: answer.message }, answer.headers);
    }
  }

  const headersTimeout = options.headersTimeoutMs ?? 15_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = http.createServer(
    {
      // A slow client may not hold a request open forever. (0 is Node's "no limit".)
      requestTimeout: requestTimeout > 0 ? Math.max(headersTimeout, requestTimeout) : 0,
      headersTimeout,
      // Node looks for overdue requests only this often (default 30 s, which let a 15 s header limit run
      // to 45 s); once a second keeps the limits what they say.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, headersTimeout || 1000)),
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      res.on('error', () => res.destroy());
      handle(req, res).catch(() => res.destroy());
    },
  );

  // Malformed HTTP never reaches a handler: answer it in JSON too, then drop the connection.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason, code] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'too_large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'timeout']
          : [400, 'Bad Request', 'bad_request'];
    const body = JSON.stringify({ status: 'error', error: code, message: reason });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    setTimeouts(headersMs, requestMs) {
      server.headersTimeout = headersMs;
      server.requestTimeout = Math.max(headersMs, requestMs);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Event streams never finish by themselves: they end now, so their connections can close.
        extras.events?.close();
        if (!server.listening) return resolve();
        const timer = setTimeout(() => server.closeAllConnections(), closeGraceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
