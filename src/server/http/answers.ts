/**
 * How the HTTP front end answers: JSON with the headers every answer carries, a route's result, a
 * failure as `{status:"error", error, message}`, and the raw answer written on a socket that Node or
 * the connection limits refuse before any handler runs.
 */
import type { ServerResponse } from 'node:http';
import { CAPABILITIES, CAPABILITIES_HEADER } from './bearer';
import { HttpError } from './params';
import type { RouteResult } from './routes';
import { ServiceError } from '../service/service-types';

const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendPayload(res, status, Buffer.from(JSON.stringify(body), 'utf8'), headers);
}

export function sendPayload(
  res: ServerResponse,
  status: number,
  payload: Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': JSON_TYPE,
    'content-length': String(payload.length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(payload);
}

/**
 * Writes a handler's answer. To HEAD, a stream's headers alone, and the answer ends: Node drops what is
 * written to a HEAD answer, so a stream opened for one never ended (and held a stream's place).
 */
export function send(res: ServerResponse, result: RouteResult, head = false): void {
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
      if (!head) return result.open(res);
      res.writeHead(200, result.headers);
      return void res.end();
  }
}

export interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  headers: Record<string, string>;
}

export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof ServiceError) {
    const headers: Record<string, string> = {};
    const retry = error.retryAfterSeconds ?? (error.status === 503 ? 30 : undefined);
    if (retry !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(retry)));
    return { status: error.status, code: error.code, message: error.message, headers };
  }
  if (error instanceof HttpError)
    return { status: error.status, code: error.code, message: error.message, headers: error.headers };
  return { status: 500, code: 'internal', message: 'Internal error', headers: {} };
}

/**
 * `path` without its trailing slashes ("/" stays "/"), by a loop: /\/+$/ tried again from every slash
 * of a run that does not end the path, so a 16 KB path of "/a////...x" took about a second of the
 * event loop per request (50 such requests froze the service for 40 s).
 */
export function withoutTrailingSlashes(path: string): string {
  if (path.length <= 1) return path;
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end);
}

/**
 * An error answer written on the socket itself, for a connection Node or the connection limits refuse
 * before any request handler runs: the headers of every other JSON answer (sendPayload's, and what the
 * service offers), then the close.
 */
export function rawErrorAnswer(
  status: number,
  reason: string,
  code: string,
  message: string,
  extra: string[] = [],
): string {
  const body = JSON.stringify({ status: 'error', error: code, message });
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    `content-type: ${JSON_TYPE}`,
    `content-length: ${Buffer.byteLength(body)}`,
    'cache-control: no-store',
    'x-content-type-options: nosniff',
    `${CAPABILITIES_HEADER}: ${CAPABILITIES}`,
    ...extra,
    'connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}
