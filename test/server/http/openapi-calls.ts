/**
 * Requests for the OpenAPI test, made over real loopback HTTP (node:http, so a request can come from
 * another loopback address, a client of its own for the per-client limits, and every header of the
 * answer is seen), each returned with what was sent, for ApiCheck (openapi-check.ts). Also an event
 * stream read until it has said enough, and raw bytes on a socket for what no HTTP client sends.
 */
import http from 'node:http';
import net from 'node:net';
import type { Answer, Sent } from './openapi-check';
import { waitFor } from '../../harness/wait';

export interface Call {
  method?: 'GET' | 'POST' | 'PUT' | 'HEAD';
  path: string;
  query?: Record<string, string | number>;
  form?: Record<string, string | number>;
  json?: Record<string, unknown>;
  /** A body that is not parameters (a bad media type, broken JSON, too large). */
  raw?: { type?: string; bytes: string | Buffer };
  headers?: Record<string, string>;
  /** The loopback address the request comes from (default 127.0.0.1). */
  from?: string;
}

/** A JSON answer, loosely typed for the tests' own assertions: ApiCheck has checked its shape already. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read fields the description has vouched for
export type JsonAnswer = Record<string, any>;

export interface Exchanged {
  sent: Sent;
  answer: Answer;
  /** The body parsed as JSON, when it is. */
  json: JsonAnswer | undefined;
}

function parseJson(body: Buffer): JsonAnswer | undefined {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function encode(call: Call): { sent: Sent; url: URL; body?: Buffer } {
  const query = Object.fromEntries(Object.entries(call.query ?? {}).map(([k, v]) => [k, String(v)]));
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(call.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  let body: Buffer | undefined;
  let params: Sent['body'];
  if (call.form) {
    body = Buffer.from(
      new URLSearchParams(Object.entries(call.form).map(([k, v]): [string, string] => [k, String(v)])).toString(),
    );
    headers['content-type'] = 'application/x-www-form-urlencoded';
    params = {
      type: headers['content-type'],
      params: Object.fromEntries(Object.entries(call.form).map(([k, v]) => [k, String(v)])),
    };
  } else if (call.json) {
    body = Buffer.from(JSON.stringify(call.json));
    headers['content-type'] = 'application/json';
    params = { type: headers['content-type'], params: call.json };
  } else if (call.raw) {
    body = Buffer.from(call.raw.bytes);
    if (call.raw.type !== undefined) headers['content-type'] = call.raw.type;
  }
  // Node sends a GET's body without a length unless told it (the service would read it as the next request).
  if (body !== undefined) headers['content-length'] = String(body.length);
  const method = call.method ?? (body === undefined ? 'GET' : 'POST');
  const url = new URL(`http://placeholder${call.path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.append(k, v);
  return { sent: { method, path: call.path, query, body: params, headers }, url, body };
}

/** Sends `call` to the service at `baseUrl` and reads the whole answer. */
export function request(baseUrl: string, call: Call): Promise<Exchanged> {
  const { sent, url, body } = encode(call);
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: `${url.pathname}${url.search}`,
        method: sent.method,
        headers: sent.headers,
        localAddress: call.from,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(exchanged(sent, res, Buffer.concat(chunks))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function exchanged(sent: Sent, res: http.IncomingMessage, body: Buffer): Exchanged {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return { sent, answer: { status: res.statusCode ?? 0, headers, body }, json: parseJson(body) };
}

export interface OpenStream extends Exchanged {
  /** The stream's text so far. */
  text(): string;
  /** Waits until the text so far satisfies `done`; the answer then holds it. */
  until(done: (text: string) => boolean, what: string): Promise<Exchanged>;
  close(): void;
}

/** Opens a GET that may stream (GET /events); resolves once the answer's head is in. */
export function openStream(baseUrl: string, call: Call): Promise<OpenStream> {
  const { sent, url } = encode(call);
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: sent.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => undefined);
        const now = () => exchanged(sent, res, Buffer.concat(chunks));
        const text = () => Buffer.concat(chunks).toString('utf8');
        resolve({
          ...now(),
          text,
          async until(done, what) {
            await waitFor(() => done(text()), { message: `${what}; the stream said ${JSON.stringify(text())}` });
            return now();
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Writes `bytes` on a new connection to the service and reads what comes back until the service closes
 * it: for what no HTTP client sends (a malformed request, a head that never ends).
 */
export function rawExchange(baseUrl: string, bytes: string, sent: Pick<Sent, 'method' | 'path'>): Promise<Exchanged> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = Buffer.from(text.slice(split + 4), 'utf8');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      resolve({ sent: { ...sent, query: {}, headers: {} }, answer: { status, headers, body }, json: parseJson(body) });
    });
    socket.write(bytes);
  });
}
