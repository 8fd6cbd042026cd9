/**
 * Tokens in an `Authorization: Bearer` header (RFC 6750), accepted on every route beside the `token`
 * parameter, so a client can keep its token out of URLs (and so out of proxies' logs); and the
 * `Tempmail-Capabilities` header on every answer, which tells a client that it may (our client reads it:
 * src/client/tempmail/capabilities.ts).
 */
import type { IncomingMessage } from 'node:http';
import { HttpError, type Params } from './params';

/** The answer header naming what this service offers beyond the interface. */
export const CAPABILITIES_HEADER = 'tempmail-capabilities';

/**
 * What it offers: `bearer` (a session token in an Authorization header is taken on every route) and
 * `events` (GET /events streams news of mail: src/server/http/events.ts).
 */
export const CAPABILITIES = 'bearer, events';

/** Longest Authorization value looked at: tokens are 43 characters, admin tokens a few hundred at most. */
const MAX_AUTHORIZATION = 1024;

/**
 * The token of a request's `Authorization: Bearer <token>` header, or undefined when there is none.
 * Another scheme (a proxy's Basic login passed on) is not ours, and is ignored.
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const value = req.headers.authorization;
  if (value === undefined || value.length > MAX_AUTHORIZATION) return undefined;
  const match = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(value);
  return match?.[1];
}

/**
 * Adds a Bearer token as the request's `token` parameter. A different `token` in the query or the body
 * as well is refused: which one was meant is anyone's guess (as for any parameter given twice).
 */
export function addBearerToken(params: Params, token: string | undefined): void {
  if (token === undefined) return;
  const given = params.get('token');
  if (given !== undefined && String(given) !== token) {
    throw new HttpError(
      400,
      'bad_request',
      'The token was given twice (Authorization header and parameter) with different values',
    );
  }
  params.set('token', token);
}
