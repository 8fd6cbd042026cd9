/**
 * The admin API's door: on only when serve was given an admin token (`--admin-token-file FILE`, the token
 * named "admin", and/or named ones in `adminTokens`), and then only for a request with
 * `Authorization: Bearer <one of them>` (never in the URL, so never in a proxy's log). Each token is
 * compared in constant time (the SHA-256 digests, so not even its length shows in the timing), every one
 * of them each time, and is never logged or echoed: the log names the token's name, the actor. SIGHUP
 * reads the files again (a rotated token).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { OperatorFileError, readSecretFile } from '../../platform/operator-file';
import { HttpError } from '../http/params';
import type { EventHub } from '../http/events';
import type { ServerConfig } from '../config/server-config';
import { logEvent, type Logger } from '../observe/log';
import { adminAudit, type AdminAudit } from './admin-audit';
import type { AdminService } from './admin-service';

/** Shortest token accepted: a guessable admin token would open every inbox. */
const MIN_ADMIN_TOKEN = 16;
const MAX_ADMIN_TOKEN = 512;
/** The admin token file holds one token and a line end; more is not a token file. */
const ADMIN_TOKEN_FILE_MAX_BYTES = 4096;
/** A token file on a stuck network file system must not leave the start (or a reload) waiting forever. */
const ADMIN_TOKEN_READ_TIMEOUT_MS = 5000;

/** An admin token and the name the log knows it by. */
export interface NamedToken {
  name: string;
  token: string;
}

/** Where a named admin token is read from (config `adminTokens`; `--admin-token-file` is named "admin"). */
export interface NamedTokenFile {
  name: string;
  file: string;
}

export interface AdminApi {
  service: AdminService;
  /** The event streams, so a deleted session's streams end. */
  events?: EventHub;
  /** The name of the token `bearer` is (the actor); throws 401 when it is none of them. */
  authorize(bearer: string | undefined): string;
  /** Puts new tokens in effect (a reload). */
  setTokens(tokens: readonly NamedToken[]): void;
  /** Logs what an actor did (admin-audit.ts). */
  audit: AdminAudit;
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
    token = await readSecretFile(file, {
      maxBytes: ADMIN_TOKEN_FILE_MAX_BYTES,
      timeoutMs: ADMIN_TOKEN_READ_TIMEOUT_MS,
    });
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    throw new Error(`cannot read the admin token file ${file} (${why})`);
  }
  const mode = await stat(file).then(
    (info) => info.mode,
    () => 0,
  );
  if ((mode & 0o077) !== 0) {
    logEvent(warn, {
      level: 'warn',
      event: 'admin.token_readable',
      text: `warning: the admin token file ${file} can be read by other users (chmod 600 it)`,
    });
  }
  if (!/^[\x21-\x7e]+$/.test(token) || token.length < MIN_ADMIN_TOKEN || token.length > MAX_ADMIN_TOKEN) {
    throw new Error(
      `the admin token file ${file} must hold one token of ${MIN_ADMIN_TOKEN} to ${MAX_ADMIN_TOKEN} printable characters (no spaces)`,
    );
  }
  return token;
}

/** The token files a configuration names: `adminTokenFile` as "admin", then `adminTokens`. */
export function adminTokenFiles(config: Pick<ServerConfig, 'adminTokenFile' | 'adminTokens'>): NamedTokenFile[] {
  const single = config.adminTokenFile !== undefined ? [{ name: 'admin', file: config.adminTokenFile }] : [];
  return [...single, ...(config.adminTokens ?? [])];
}

/**
 * Reads every named token file (readAdminToken each). Refuses two tokens of one name, and one token under
 * two names: the log could not tell who acted.
 */
export async function readAdminTokens(
  files: readonly NamedTokenFile[],
  warn?: (line: string) => void,
): Promise<NamedToken[]> {
  const tokens: NamedToken[] = [];
  for (const { name, file } of files) {
    if (tokens.some((t) => t.name === name)) throw new Error(`two admin tokens are named ${name}`);
    const token = await readAdminToken(file, warn);
    const twin = tokens.find((t) => t.token === token);
    if (twin)
      throw new Error(
        `the admin tokens ${twin.name} and ${name} are the same token (give each its own: the log names who acted)`,
      );
    tokens.push({ name, token });
  }
  return tokens;
}

export function createAdminApi(
  tokens: readonly NamedToken[],
  service: AdminService,
  parts: { log: Logger; events?: EventHub },
): AdminApi {
  let expected = tokens.map(({ name, token }) => ({ name, digest: digest(token) }));
  return {
    service,
    events: parts.events,
    audit: adminAudit(parts.log),
    authorize(bearer) {
      // Hashed first: timingSafeEqual wants equal lengths, and the digests always are. Every token is
      // compared, so the time does not say which one came closest.
      const given = digest(bearer ?? '');
      let actor: string | undefined;
      for (const { name, digest: want } of expected)
        if (timingSafeEqual(given, want) && bearer !== undefined) actor ??= name;
      if (actor === undefined) {
        throw new HttpError(
          401,
          'invalid_token',
          bearer === undefined ? 'The admin API needs Authorization: Bearer <admin token>' : 'Wrong admin token',
          {
            'www-authenticate': 'Bearer realm="tempmail-tui admin"',
          },
        );
      }
      return actor;
    },
    setTokens(next) {
      expected = next.map(({ name, token }) => ({ name, digest: digest(token) }));
    },
  };
}
