/**
 * Reads an IMAP account's password where its configuration says (PasswordSource), at each connection,
 * so a password changed in the file or environment is used at the next reconnect without a restart.
 * Errors name the variable or the file, never any of its content.
 */
import { OperatorFileError, readSecretFile } from '../../platform/operator-file';
import type { PasswordSource } from '../config/server-config';

/** A password is a line; a file of more than this is not a password file. */
export const PASSWORD_FILE_MAX_BYTES = 64 * 1024;
/** A password file on a stuck network file system must not stall the account's reconnects forever. */
const PASSWORD_READ_TIMEOUT_MS = 5000;

/** Why a password could not be had, in words for the log (no secret in it). */
export class PasswordUnavailableError extends Error {
  override readonly name = 'PasswordUnavailableError';
}

/** The password, or PasswordUnavailableError. A file's one trailing line break is not part of it. */
export async function readPassword(source: PasswordSource, env: NodeJS.ProcessEnv): Promise<string> {
  if ('env' in source) {
    const value = env[source.env];
    if (!value) throw new PasswordUnavailableError(`the environment variable ${source.env} is not set (or empty)`);
    return value;
  }
  let password: string;
  try {
    password = await readSecretFile(source.file, {
      maxBytes: PASSWORD_FILE_MAX_BYTES,
      timeoutMs: PASSWORD_READ_TIMEOUT_MS,
    });
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    throw new PasswordUnavailableError(`cannot read the password file ${source.file} (${why})`);
  }
  if (password === '') throw new PasswordUnavailableError(`the password file ${source.file} is empty`);
  return password;
}
