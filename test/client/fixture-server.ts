/**
 * A small real HTTP server on 127.0.0.1 port 0 for the client's tests: each test gives it a handler that
 * answers the way a misbehaving (or merely different) service would, and it records every request so a
 * test can count retries and read what the client sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface Recorded {
  method: string;
  /** Path without the query string, e.g. "/check-mail". */
  path: string;
  query: URLSearchParams;
  body: string;
  contentType: string;
}

export type Handler = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => void;

export interface FixtureServer {
  /** e.g. "http://127.0.0.1:40123/". */
  baseUrl: string;
  port: number;
  requests: Recorded[];
  /** Replaces the handler (and forgets recorded requests). */
  handle(handler: Handler): void;
  /**
   * From now on, instead of the handler, every request is taken and left: `trickle` answers 200 and then
   * one space every 200 ms, for ever; `hang` never answers at all. Undefined: the handler again.
   */
  stall(mode: 'trickle' | 'hang' | undefined): void;
  /** Requests stalled so far whose connection is still open (a client that gave up closes it). */
  stalled(): number;
  close(): Promise<void>;
}

/** Takes the request and leaves it: see FixtureServer.stall. */
function stallAnswer(mode: 'trickle' | 'hang', res: ServerResponse, live: Set<ServerResponse>): void {
  live.add(res);
  let drip: NodeJS.Timeout | undefined;
  if (mode === 'trickle') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    drip = setInterval(() => res.write(' '), 200);
  }
  res.on('close', () => {
    clearInterval(drip);
    live.delete(res);
  });
}

/** Sends `value` as JSON with the given status and extra headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(value));
}

/** Starts the fixture server; the default handler answers 404. */
export async function startFixtureServer(initial?: Handler): Promise<FixtureServer> {
  let handler: Handler = initial ?? ((_req, res) => sendJson(res, 404, { status: 'error', error: 'not_found' }));
  const requests: Recorded[] = [];
  let stalling: 'trickle' | 'hang' | undefined;
  const live = new Set<ServerResponse>();
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const url = new URL(raw.url ?? '/', 'http://fixture.invalid');
      const rec: Recorded = {
        method: raw.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: Buffer.concat(chunks).toString('utf8'),
        contentType: String(raw.headers['content-type'] ?? ''),
      };
      requests.push(rec);
      if (stalling) stallAnswer(stalling, res, live);
      else handler(rec, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    port,
    requests,
    handle(next) {
      handler = next;
      requests.length = 0;
    },
    stall(mode) {
      stalling = mode;
    },
    stalled: () => live.size,
    close() {
      // Requests a test left hanging (the "never answers" server) must not hold the close.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
