/** The form in which a session token is kept and looked up: never the token itself. */
import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';

/**
 * The one-shot digest (Node >= 20.12), read off the namespace so an older Node 20 links and falls back.
 * Every request that carries a token hashes it: the one-shot form skips the Hash stream object, which a
 * CPU profile of check-mail under load showed as a third of the handler's own time.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** sha256 of a token (its UTF-8 bytes), hex: the only form in which a token is stored. */
export function hashToken(token: string): string {
  return oneShotHash ? oneShotHash('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}
