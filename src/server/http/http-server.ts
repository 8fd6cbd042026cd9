/**
 * The HTTP front end of the reference service (node:http, no framework): routing, parameter reading,
 * JSON answers and the one place that turns every failure into `{status:"error", error, message}`.
 * Each request is caught as a whole, so no input can crash the process or leak a stack.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { nodeHttp } from '../../platform/node-http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { addBearerToken, bearerToken, CAPABILITIES, CAPABILITIES_HEADER } from './bearer';
import { CheckMailCache } from './check-mail-cache';
import { HttpError, parseParams, readBody } from './params';
import { ROUTES, type RouteExtras } from './routes';
import { ServiceError, type MailService } from '../service/service-types';
import { hashToken } from '../service/mail-service';
import { asLogger, sessionField, type Logger } from '../observe/log';
import { plainIp } from '../limits/ip-address';
import { clientAddressOf, isLoopback, loggablePath, redact } from './request-names';
import { serverTimeouts } from '../../platform/server-timeouts';
import { errorAnswer, rawErrorAnswer, send, sendJson, withoutTrailingSlashes } from './answers';

/** What the HTTP front end asks and tells the rest of the service (limits, metrics). All optional. */
export interface HttpHooks {
  /** Before anything else: the seconds `client` must wait (429), or 0. A rejection lets the request through. */
  admit?(client: string): Promise<number>;
  /** Each answer: the route's name (or "other"), its status, the time it took. */
  answered?(route: string, status: number, ms: number): void;
  /** GET routes answered outside the JSON API, by path (GET /metrics). */
  plain?: Record<string, () => Promise<{ contentType: string; body: string }>>;
  /**
   * A connection `id` arrived from `peer` (the socket's address, before any request). `proxy`: it is a
   * trusted proxy's, or this machine's (127.0.0.1, ::1: a proxy or the app), whose connections carry many
   * clients. A refusal is answered at once, and the connection closed before Node reads a byte of it.
   */
  connect?(id: string, peer: string, proxy: boolean): ConnectionRefusal | undefined;
  /** A connection that connect() admitted closed. */
  closed?(id: string): void;
}

/** Why a connection is refused: 429 (its client's share) or 503 (the total). */
export interface ConnectionRefusal {
  status: 429 | 503;
  message: string;
}

export interface HttpFrontOptions {
  /** One line per request; never carries a token. A Logger gets events with the client as a field. */
  log?: Logger | ((line: string) => void);
  hooks?: HttpHooks;
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
  /** Serve the /admin/ routes only, every other path 404 (the admin API's own listener, --admin-listen). */
  adminOnly?: boolean;
}

export interface HttpFront {
  server: Server;
  /** Listens and resolves with the bound port (0 = any free port). */
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (up to the grace time), then resolves. */
  close(): Promise<void>;
  /** New request time limits (a reload), for the requests that start from now on. */
  setTimeouts(headersTimeoutMs: number, requestTimeoutMs: number): void;
}

/** What an access-log line says of its request, as fields. */
interface AccessFields {
  status: number;
  client: string;
  token: string | undefined;
  route: string;
  method: string;
  ms: number;
  size: number | undefined;
  id: string;
}

/** The client closed its connection while its request waited: it is logged, not answered. */
class ClientLeft extends Error {}

/** What every request of one front shares: its settings, its cache and its counters. */
interface Front {
  service: MailService;
  options: HttpFrontOptions;
  log: Logger;
  hooks: HttpHooks;
  idPrefix: string;
  requests: number;
  bodyLimit: number;
  trustProxy: boolean;
  listedProxies: Set<string>;
  checkMail: CheckMailCache;
  extras: RouteExtras;
  /** close() was called: long answers (event streams) end. */
  draining: boolean;
}

/** One request, as its log line and its metrics name it; route, path and token are learnt as it is read. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
  id: string;
  client: string;
  /** The route's name for the metrics and the log's folding: a closed set whatever the path. */
  route: string;
  /** What the log says: the path with anything that may be a token in it redacted. */
  logPath: string;
  token: string | undefined;
}

/**
 * The access-log line of a request: info, or folded (one a second) for a limit or our own trouble. Its
 * fields say everything the sentence does (method, route, status, duration_ms, size, request_id), so
 * an alert or a dashboard never parses `msg`.
 */
function logAccess(log: Logger, text: string, a: AccessFields, code?: string): void {
  const level = a.status >= 500 || a.status === 429 ? 'warn' : 'info';
  const session = a.token && a.token.length <= 512 ? sessionField(hashToken(a.token)) : undefined;
  const fields = { client: a.client, session, status: a.status, reason: code };
  const jsonFields = { method: a.method, route: a.route, duration_ms: a.ms, size: a.size, request_id: a.id };
  log.event({
    level,
    event: 'http.request',
    text,
    fields,
    jsonFields,
    foldKey: `${a.route} ${a.status} ${code ?? ''}`,
  });
}

/** The access line's fields now (the answer's size: its content-length, when it has one). */
function accessFields(x: Exchange, status: number): AccessFields {
  const length = Number(x.res.getHeader('content-length'));
  const size = Number.isFinite(length) && length >= 0 && x.res.headersSent ? length : undefined;
  const { client, token, route, id } = x;
  return { status, client, token, route, method: x.req.method ?? '?', ms: Date.now() - x.started, size, id };
}

/** Tells the hooks (metrics) a request was answered. */
function answered(front: Front, x: Exchange, status: number): void {
  front.hooks.answered?.(x.route, status, Date.now() - x.started);
}

/**
 * After each wait (the rate, the body, the store), a client that left is not served: nothing more is
 * taken for it (an event stream's place was kept for ever), and its request still ends in the log.
 */
function stillThere(req: IncomingMessage): void {
  if (req.socket.destroyed) throw new ClientLeft();
}

/** Answers one request, every failure as JSON (errorAnswer), and logs it once answered. */
async function handleRequest(front: Front, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const x: Exchange = {
    req,
    res,
    started: Date.now(),
    id: `${front.idPrefix}-${(++front.requests).toString(36)}`,
    client: clientAddressOf(req, front.trustProxy, front.listedProxies),
    route: 'other',
    logPath: '?',
    token: undefined,
  };
  // Every answer, errors included, says what the service offers beyond the interface.
  res.setHeader(CAPABILITIES_HEADER, CAPABILITIES);
  try {
    await serveRequest(front, x);
  } catch (error) {
    answerFailure(front, x, error);
  }
}

/** Routes a request: the per-client limit, a plain GET (metrics), then the JSON routes. */
async function serveRequest(front: Front, x: Exchange): Promise<void> {
  const { req, res } = x;
  const { hooks, extras } = front;
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://service.invalid');
  } catch {
    throw new HttpError(400, 'bad_request', 'Malformed request URL');
  }
  const path = withoutTrailingSlashes(url.pathname);
  x.logPath = loggablePath(path);
  const plain = hooks.plain && Object.hasOwn(hooks.plain, path) ? hooks.plain[path] : undefined;
  const found =
    Object.hasOwn(ROUTES, path) && (!front.options.adminOnly || path.startsWith('/admin/')) ? ROUTES[path] : undefined;
  if (plain || found) x.route = path.slice(1);
  // Counted first: a flood of anything, unknown routes included, meets the per-client limit.
  const wait = hooks.admit ? await hooks.admit(x.client).catch(() => 0) : 0;
  stillThere(req);
  if (wait > 0)
    throw new ServiceError('rate_limited', `Too many requests from this client; try again in ${wait} s`, wait);
  if (plain && (req.method === 'GET' || req.method === 'HEAD')) {
    const { contentType, body } = await plain();
    stillThere(req);
    res.writeHead(200, {
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return answered(front, x, 200);
  }
  // Without an admin token the admin routes are not there at all (not even a 405 says otherwise).
  if (!found || (path.startsWith('/admin/') && !extras.admin)) throw new HttpError(404, 'not_found', 'No such route');
  // The admin token before anything else: a caller without it learns nothing of a route, not even
  // the method or media type it takes (405, 415).
  if (path.startsWith('/admin/')) extras.admin!.authorize(bearerToken(req));
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (method !== found.method) {
    throw new HttpError(405, 'method_not_allowed', `Use ${found.method} for ${path}`, {
      allow: found.method === 'GET' ? 'GET, HEAD' : 'POST',
    });
  }
  const body = await readBody(req, front.bodyLimit);
  stillThere(req);
  const params = parseParams(req, url, body);
  const bearer = bearerToken(req);
  // On /admin/ routes the header carries the admin token, which is no session's.
  if (!path.startsWith('/admin/')) addBearerToken(params, bearer);
  const t = params.get('token');
  x.token = typeof t === 'string' ? t : undefined;
  const ifNoneMatch = req.headers['if-none-match'];
  const result = await found.handle(front.service, {
    params,
    clientAddress: x.client,
    ifNoneMatch: Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch,
    checkMail: front.checkMail,
    draining: () => front.draining,
    bearer,
    extras,
  });
  stillThere(req);
  send(res, result, req.method === 'HEAD');
  const line = `http ${req.method} ${x.logPath} ${res.statusCode} ${Date.now() - x.started}ms`;
  logAccess(front.log, redact(line, x.token), accessFields(x, res.statusCode));
  answered(front, x, res.statusCode);
}

/** A failed request: a client that left is logged as 499; anything else is answered in JSON, then logged. */
function answerFailure(front: Front, x: Exchange, error: unknown): void {
  const { req, res, logPath, token } = x;
  if (error instanceof ClientLeft || req.socket.destroyed) {
    // nginx's 499: the client closed the connection before its answer.
    logAccess(
      front.log,
      redact(`http ${req.method} ${logPath} 499 client_left`, token),
      accessFields(x, 499),
      'client_left',
    );
    answered(front, x, 499);
    res.destroy();
    return;
  }
  const answer = errorAnswer(error);
  const unexpected = answer.status >= 500 && !(error instanceof ServiceError);
  // Logged once answered, so the line has the answer's size.
  const logged = () => {
    if (!unexpected)
      return logAccess(
        front.log,
        redact(`http ${req.method} ${logPath} ${answer.status} ${answer.code}`, token),
        accessFields(x, answer.status),
        answer.code,
      );
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    logAccess(
      front.log,
      redact(`http ${req.method} ${logPath} 500 unexpected ${what}`, token),
      accessFields(x, 500),
      'internal',
    );
  };
  answered(front, x, answer.status);
  if (res.headersSent) {
    logged();
    res.destroy();
    return;
  }
  if (answer.headers.connection === 'close') res.shouldKeepAlive = false;
  sendJson(res, answer.status, { status: 'error', error: answer.code, message: answer.message }, answer.headers);
  logged();
}

/** Malformed HTTP never reaches a handler: it is answered in JSON too, then the connection dropped. */
function answerMalformed(error: NodeJS.ErrnoException, socket: Socket): void {
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
  socket.end(rawErrorAnswer(status, reason, code, reason));
}

/** Builds the HTTP front end over a MailService. */
export function createHttpFront(service: MailService, options: HttpFrontOptions = {}): HttpFront {
  const front: Front = {
    service,
    options,
    log: asLogger(options.log),
    hooks: options.hooks ?? {},
    idPrefix: randomBytes(3).toString('hex'),
    requests: 0,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    trustProxy: options.trustProxy ?? false,
    listedProxies: new Set((options.trustedProxies ?? []).map(plainIp)),
    checkMail: new CheckMailCache(options.checkMailCacheBytes),
    extras: options.extras ?? {},
    draining: false,
  };
  const { hooks, trustProxy, listedProxies, extras } = front;
  const closeGraceMs = options.closeGraceMs ?? 10_000;

  const server = nodeHttp().createServer(
    {
      // A slow client may not hold a request open forever.
      ...serverTimeouts(options.headersTimeoutMs ?? 15_000, options.requestTimeoutMs ?? 30_000),
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      res.on('error', () => res.destroy());
      handleRequest(front, req, res).catch(() => res.destroy());
    },
  );

  guardConnections(
    server,
    hooks,
    (peer) => listedProxies.has(peer) || peer === '127.0.0.1' || peer === '::1' || (trustProxy && isLoopback(peer)),
  );

  server.on('clientError', answerMalformed);

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
      const limits = serverTimeouts(headersMs, requestMs);
      server.headersTimeout = limits.headersTimeout;
      server.requestTimeout = limits.requestTimeout;
    },
    close() {
      front.draining = true;
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

/**
 * Puts hooks.connect in front of Node's own handling of each new connection: an admitted one goes on to
 * Node (and hooks.closed hears when it closes); a refused one hears the refusal and is closed, without a
 * parser ever attached. Without it a client could hold as many connections as it liked: a connection is
 * dropped only when its request is late (15 s), so one client reconnecting ~70 times a second held 1,000
 * of them, which is every file descriptor systemd gives a service by default: SMTP and the data dir
 * failed for everyone.
 */
function guardConnections(server: Server, hooks: HttpHooks, isProxy: (peer: string) => boolean): void {
  if (!hooks.connect) return;
  const connect = hooks.connect;
  // Node's http.Server handles a connection in its 'connection' listener: taken here, called for the admitted.
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  let next = 0;
  server.on('connection', (socket: Socket) => {
    const id = String(++next);
    const peer = plainIp(socket.remoteAddress ?? 'unknown');
    const refusal = connect(id, peer, isProxy(peer));
    if (!refusal) {
      socket.once('close', () => hooks.closed?.(id));
      for (const handle of handlers) handle.call(server, socket);
      return;
    }
    const reason = refusal.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
    socket.on('error', () => socket.destroy());
    // What the client sent is read and dropped, so closing does not reset the answer away.
    socket.resume();
    socket.end(
      rawErrorAnswer(refusal.status, reason, 'too_many_connections', refusal.message, ['retry-after: 10']),
      () => socket.destroy(),
    );
  });
}
