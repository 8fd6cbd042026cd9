/**
 * A tiny service speaking the bare temporary-email interface (docs/server/http-api.md) over real HTTP on
 * loopback, for the fault matrix, the secrets tests and the JSON path of the safety matrix. It is honest
 * by default (domains, create-session, check-mail, read-mail, delete-mail on an in-memory inbox) and
 * misbehaves on demand: down, slow, 500, 429 or 503 with Retry-After, malformed JSON, an HTML error page,
 * the wrong shape, unknown or expired token, a reset; every request is recorded with its time, so a test
 * can measure the client's backoff on the wire. It can also write every non-ASCII or control character
 * of its JSON as a `\u` escape, so hostile text reaches the client the way a JSON-escaping service would
 * send it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { formatWireTime } from '../../src/platform/time';
import { restartablePort } from '../harness/restartable-port';

/** How the service answers the affected routes. */
export type Fault =
  | 'ok'
  | 'http500'
  | 'http429'
  | 'http503'
  | 'malformed'
  | 'html'
  | 'wrongShape'
  | 'slow'
  | 'unknownToken'
  | 'expired'
  | 'reset';

/** A message as the wire carries it (strings exactly as the test wants them sent). */
export interface WireMessage {
  id: number;
  subject: string;
  sender_name: string;
  sender_email: string;
  received_at: string;
  body_text: string | null;
  body_html: string | null;
  attachments?: { id: number; filename: string; content_type: string; size: number }[];
  to?: string[];
  headers?: Record<string, string>;
}

/** One request as seen: route, when, and what was answered. */
export interface SeenRequest {
  path: string;
  at: number;
  status: number;
  query: string;
  body: string;
}

export interface SpecServiceOptions {
  /** Write every character outside printable ASCII as \uXXXX in the JSON. */
  escapeJson?: boolean;
  /** Token handed out by create-session (default: random). */
  token?: string;
  /** Text the error answers put in `message` (a hostile service may echo the token there). */
  errorText?: (token: string) => string;
}

export interface SpecService {
  baseUrl: string;
  port: number;
  requests: SeenRequest[];
  /** Makes the given routes (default: all) answer with `fault`; `ok` restores honest answers. */
  setFault(fault: Fault, routes?: string[]): void;
  /** How long `slow` waits before answering (default 30 s). */
  slowMs: number;
  /** Answers every request `slow` is holding now (the late answer arrives); returns how many. */
  release(): number;
  /** Seconds in the Retry-After of a 429 or 503. */
  retryAfter: number;
  /** Creates a session directly (no request) and returns it. */
  session(email?: string): { email: string; token: string; expiresAt: Date };
  /** Adds a message to a session's inbox. */
  add(
    token: string,
    message: Omit<WireMessage, 'id' | 'received_at'> & Partial<Pick<WireMessage, 'id' | 'received_at'>>,
  ): number;
  /** Deletes a message as if from elsewhere (another client). */
  remove(token: string, id: number): void;
  /** Stops listening and cuts every connection (the service dies). */
  stop(): Promise<void>;
  /** Listens again on the same port (the service comes back). */
  start(): Promise<void>;
  close(): Promise<void>;
}

const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Starts the service on 127.0.0.1, on a free port below the ephemeral range (or `port`). */
export async function startSpecService(options: SpecServiceOptions = {}, port = 0): Promise<SpecService> {
  const inboxes = new Map<string, { email: string; expiresAt: Date; messages: WireMessage[]; next: number }>();
  const faults = new Map<string, Fault>();
  let defaultFault: Fault = 'ok';
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  // Held answers of `slow`: each timer with what it will do when it fires.
  const pending = new Map<NodeJS.Timeout, () => void>();
  let server: Server;

  const newSession = (email?: string) => {
    const token =
      options.token && !inboxes.has(options.token) ? options.token : `tok_${randomBytes(24).toString('hex')}`;
    const s = {
      email: email ?? `user${randomBytes(3).toString('hex')}@fixture.test`,
      expiresAt: new Date(Date.now() + 3600_000),
      messages: [],
      next: 1,
    };
    inboxes.set(token, s);
    return { email: s.email, token, expiresAt: s.expiresAt };
  };

  function answer(req: IncomingMessage, res: ServerResponse, body: string, delayed?: SeenRequest): void {
    const url = new URL(req.url ?? '/', 'http://spec.invalid');
    const route = url.pathname.replace(/^\/+|\/+$/g, '');
    const params = new URLSearchParams(url.search);
    if (req.method === 'POST') for (const [k, v] of new URLSearchParams(body)) params.set(k, v);
    const token = params.get('token') ?? '';
    // A delayed answer keeps the record of its request (status 0 until it is answered).
    const seen: SeenRequest = delayed ?? { path: route, at: Date.now(), status: 0, query: url.search, body };
    if (!delayed) requests.push(seen);
    const send = (
      status: number,
      text: string,
      type = 'application/json; charset=utf-8',
      headers: Record<string, string> = {},
    ) => {
      seen.status = status;
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(text);
    };
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      send(
        status,
        options.escapeJson ? asciiJson(value) : JSON.stringify(value),
        'application/json; charset=utf-8',
        headers,
      );
    const said = options.errorText?.(token) ?? 'something went wrong';
    const error = (status: number, code: string, headers: Record<string, string> = {}) =>
      json(status, { status: 'error', error: code, message: said }, headers);

    const fault = delayed ? 'ok' : (faults.get(route) ?? defaultFault);
    switch (fault) {
      case 'http500':
        return error(500, 'internal');
      case 'http429':
        return error(429, 'rate_limited', { 'retry-after': String(api.retryAfter) });
      case 'http503':
        return error(503, 'unavailable', { 'retry-after': String(api.retryAfter) });
      case 'malformed':
        return send(200, '{"status":"success","messages":[{"id":1,"subj');
      case 'html':
        return send(
          502,
          `<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>${said}</p></body></html>`,
          'text/html',
        );
      case 'wrongShape':
        return json(200, { status: 'success', data: { items: 'not a list' }, messages: 'nope', domains: 7 });
      case 'unknownToken':
        return error(401, 'invalid_token');
      case 'expired':
        return error(410, 'session_expired');
      case 'reset':
        req.socket.destroy();
        return;
      case 'slow': {
        const late = () => {
          pending.delete(timer);
          answer(req, res, body, seen);
        };
        const timer = setTimeout(late, api.slowMs);
        pending.set(timer, late);
        return;
      }
      case 'ok':
        break;
    }

    if (route === 'domains')
      return json(200, { status: 'success', domains: [{ id: 1, domain: 'fixture.test' }], extmail_accounts: [] });
    if (route === 'create-session') {
      const s = newSession();
      return json(200, { status: 'success', email: s.email, token: s.token, expires_at: formatWireTime(s.expiresAt) });
    }
    const inbox = inboxes.get(token);
    if (!inbox) return error(401, 'invalid_token');
    if (route === 'check-mail') {
      const messages = inbox.messages.map(({ id, subject, sender_name, sender_email, received_at }) => ({
        id,
        subject,
        sender_name,
        sender_email,
        received_at,
      }));
      return json(200, { status: 'success', messages });
    }
    const id = Number(params.get('id'));
    const message = inbox.messages.find((m) => m.id === id);
    if (route === 'read-mail') {
      return message ? json(200, { status: 'success', message }) : error(404, 'not_found');
    }
    if (route === 'delete-mail') {
      if (!message) return error(404, 'not_found');
      inbox.messages = inbox.messages.filter((m) => m !== message);
      return json(200, { status: 'success', message: 'Message deleted' });
    }
    return error(404, 'not_found');
  }

  const listen = async (onPort: number) => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };
  // A port of its own below the ephemeral range: while stopped, no other test's server can take it.
  const boundPort = await listen(port === 0 ? await restartablePort() : port);

  const stop = async () => {
    for (const t of pending.keys()) clearTimeout(t);
    pending.clear();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  const api: SpecService = {
    baseUrl: `http://127.0.0.1:${boundPort}/`,
    port: boundPort,
    requests,
    slowMs: 30_000,
    release() {
      const held = [...pending];
      for (const [timer, late] of held) {
        clearTimeout(timer);
        late();
      }
      return held.length;
    },
    retryAfter: 2,
    setFault(fault, routes) {
      if (!routes) {
        defaultFault = fault;
        faults.clear();
      } else for (const r of routes) faults.set(r, fault);
    },
    session: (email) => newSession(email),
    add(token, message) {
      const inbox = inboxes.get(token);
      if (!inbox) throw new Error('no such session');
      const id = message.id ?? inbox.next;
      inbox.next = Math.max(inbox.next, id) + 1;
      inbox.messages.unshift({ received_at: formatWireTime(new Date()), ...message, id });
      return id;
    },
    remove(token, id) {
      const inbox = inboxes.get(token);
      if (inbox) inbox.messages = inbox.messages.filter((m) => m.id !== id);
    },
    stop,
    async start() {
      await listen(boundPort);
    },
    async close() {
      if (server.listening) await stop();
    },
  };
  return api;
}
