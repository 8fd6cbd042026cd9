/**
 * Request parameters of the HTTP front end: read from the query string, a form body and a JSON body alike
 * (docs/server/http-api.md), merged into one flat map, then validated one by one. Nothing here knows routes.
 */
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../service/service-types';
import { DuplicateKeyError, parseJsonStrict } from '../config/strict-json';

/** An error of the HTTP layer itself (not of the mail service): bad framing, size, media type, route. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers, e.g. Allow for 405. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A value as it came: a string from a query or form, or a JSON scalar. */
export type ParamValue = string | number | boolean;
export type Params = Map<string, ParamValue>;

const bad = (message: string) => new HttpError(400, 'bad_request', message);

/** Past this much discarded body we stop reading and drop the connection instead of draining it. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

/**
 * Reads the whole body, up to `limit` bytes. Over the limit it keeps draining (so the client gets to read
 * our 413 instead of a reset) up to DRAIN_LIMIT, then gives up on the connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const tooLarge = () =>
      new HttpError(413, 'too_large', `Request body is larger than ${limit} bytes`, { connection: 'close' });
    if (Number.isFinite(declared) && declared > DRAIN_LIMIT) {
      // Not worth draining: answer now; the server closes the connection after the answer.
      req.resume();
      reject(tooLarge());
      return;
    }
    // A client that left before its body was read: its request's 'close' is past, nothing more will come.
    const left = () => reject(new HttpError(400, 'bad_request', 'The client closed the connection'));
    if (req.destroyed) return left();
    req.on('close', left); // after 'end' a no-op
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (!over) chunks.push(chunk);
      else if (size > DRAIN_LIMIT) {
        req.pause();
        reject(tooLarge());
      }
    });
    req.on('end', () => (over ? reject(tooLarge()) : resolve(Buffer.concat(chunks, size))));
    req.on('error', (error) =>
      reject(new HttpError(400, 'bad_request', `Request body could not be read (${error.message})`)),
    );
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw bad('Request body is not valid UTF-8');
  }
}

function addParam(into: Params, key: string, value: ParamValue | null): void {
  if (value === null) return; // JSON null reads as "not given"
  const prev = into.get(key);
  // The same parameter in the query and the body is fine when both agree; two different values are
  // ambiguous, and guessing which one the caller meant is how a delete hits the wrong message.
  if (prev !== undefined && String(prev) !== String(value))
    throw bad(`Parameter "${key}" was given twice with different values`);
  into.set(key, value);
}

function addSearchParams(into: Params, search: URLSearchParams): void {
  for (const [key, value] of search) addParam(into, key, value);
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function addJson(into: Params, text: string): void {
  let parsed: unknown;
  try {
    parsed = parseJsonStrict(text);
  } catch (error) {
    // Which value was meant is anyone's guess (JSON.parse would keep the last): refused, at any depth.
    if (error instanceof DuplicateKeyError)
      throw bad(`The JSON body names the key ${JSON.stringify(error.key.slice(0, 64))} twice`);
    throw bad('Request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('JSON body must be an object');
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      addParam(into, key, value);
    } else {
      throw bad(`Parameter "${key}" must be a string, number or boolean`);
    }
  }
}

/** Merges the query string and the body (form or JSON, by content type) into one parameter map. */
export function parseParams(req: IncomingMessage, url: URL, body: Buffer): Params {
  const params: Params = new Map();
  addSearchParams(params, url.searchParams);
  if (body.length === 0) return params;
  const type = mediaType(req);
  const text = decodeUtf8(body);
  if (type === 'application/json' || type.endsWith('+json')) addJson(params, text.trim() === '' ? '{}' : text);
  else if (type === 'application/x-www-form-urlencoded') addSearchParams(params, new URLSearchParams(text));
  else if (type === '') {
    // No content type (a bare `curl --data-binary`): JSON when it looks like an object, else a form.
    if (text.trimStart().startsWith('{')) addJson(params, text);
    else addSearchParams(params, new URLSearchParams(text));
  } else {
    throw new HttpError(
      415,
      'unsupported_media_type',
      'Send parameters as application/x-www-form-urlencoded, application/json or in the query string',
    );
  }
  return params;
}

/** Tokens are 43 characters; anything far longer is not one, and is not worth hashing. */
const MAX_TOKEN_LENGTH = 512;

/** The session token (the `token` parameter, or a Bearer header: bearer.ts). */
export function requireToken(params: Params): string {
  const value = params.get('token');
  if (value === undefined || value === '') throw new ServiceError('invalid_token', 'A session token is required');
  // Never echo the token back: the message stays generic whatever was sent.
  if (typeof value !== 'string' || value.length > MAX_TOKEN_LENGTH)
    throw new ServiceError('invalid_token', 'Unknown session token');
  return value;
}

/** An optional string parameter; numbers are taken as their decimal text. */
export function optionalString(params: Params, key: string, maxLength = 1024): string | undefined {
  const value = params.get(key);
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') throw bad(`Parameter "${key}" must be a string`);
  const text = String(value);
  if (text.length > maxLength) throw bad(`Parameter "${key}" is longer than ${maxLength} characters`);
  return text;
}

/** An optional non-negative integer: 7, "7" (no sign, no fraction, no exponent, at most 15 digits). */
export function optionalInt(params: Params, key: string): number | undefined {
  const value = params.get(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  throw bad(`Parameter "${key}" must be a non-negative integer`);
}

/** A required non-negative integer. */
export function requiredInt(params: Params, key: string): number {
  const value = optionalInt(params, key);
  if (value === undefined) throw bad(`Parameter "${key}" is required`);
  return value;
}

/** An optional flag: 1/"1"/true/"true"/"yes"/"on" and 0/"0"/false/"false"/"no"/"off"/"". */
export function optionalFlag(params: Params, key: string): boolean | undefined {
  const value = params.get(key);
  if (value === undefined) return undefined;
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  }
  throw bad(`Parameter "${key}" must be 1 or 0`);
}
