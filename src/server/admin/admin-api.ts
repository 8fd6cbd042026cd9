/**
 * The admin API's door: on only when serve was given `--admin-token-file FILE`, and then only for a
 * request with `Authorization: Bearer <that token>` (never in the URL, so never in a proxy's log). The
 * token is compared in constant time (the SHA-256 digests of both, so not even its length shows in the
 * timing), and is never logged or echoed. SIGHUP reads the file again (a rotated token).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { OperatorFileError, readSecretFile } from '../operator-file';
import { HttpError } from '../http/params';
import type { EventHub } from '../http/events';
import type { AdminService } from './admin-service';

/** Shortest token accepted: a guessable admin token would open every inbox. */
const MIN_ADMIN_TOKEN = 16;
const MAX_ADMIN_TOKEN = 512;
/** The admin token file holds one token and a line end; more is not a token file. */
const ADMIN_TOKEN_FILE_MAX_BYTES = 4096;
/** A token file on a stuck network file system must not leave the start (or a reload) waiting forever. */
const ADMIN_TOKEN_READ_TIMEOUT_MS = 5000;

export interface AdminApi {
  service: AdminService;
  /** The event streams, so a deleted session's streams end. */
  events?: EventHub;
  /** Throws 401 unless `bearer` is the admin token. */
  authorize(bearer: string | undefined): void;
  /** Puts a new token in effect (a reload). */
  setToken(token: string): void;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Reads the admin token from `file`: its content without the final line end, 16 to 512 printable
 * characters. Throws a sentence naming the file (never quoting it). `warn` hears of a file others may read.
 */
export async function readAdminToken(file: string, warn: (line: string) => void = () => undefined): Promise<string> {
  let token: string;
  try {
    // As every file an operator names: a regular file of a few KB, read within 5 s (operator-file.ts).
    token = await readSecretFile(file, { maxBytes: ADMIN_TOKEN_FILE_MAX_BYTES, timeoutMs: ADMIN_TOKEN_READ_TIMEOUT_MS });
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    throw new Error(`cannot read the admin token file ${file} (${why})`);
  }
  const mode = await stat(file).then((info) => info.mode, () => 0);
  if ((mode & 0o077) !== 0) warn(`warning: the admin token file ${file} can be read by other users (chmod 600 it)`);
  if (!/^[\x21-\x7e]+$/.test(token) || token.length < MIN_ADMIN_TOKEN || token.length > MAX_ADMIN_TOKEN) {
    throw new Error(`the admin token file ${file} must hold one token of ${MIN_ADMIN_TOKEN} to ${MAX_ADMIN_TOKEN} printable characters (no spaces)`);
  }
  return token;
}

export function createAdminApi(token: string, service: AdminService, events?: EventHub): AdminApi {
  let expected = digest(token);
  return {
    service,
    events,
    authorize(bearer) {
      // Hashed first: timingSafeEqual wants equal lengths, and the digests always are.
      const ok = bearer !== undefined && timingSafeEqual(digest(bearer), expected);
      if (!ok) {
        throw new HttpError(401, 'invalid_token', bearer === undefined ? 'The admin API needs Authorization: Bearer <admin token>' : 'Wrong admin token', {
          'www-authenticate': 'Bearer realm="tempmail-tui admin"',
        });
      }
    },
    setToken(next) {
      expected = digest(next);
    },
  };
}
