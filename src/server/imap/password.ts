/**
 * Reads an IMAP account's password where its configuration says (PasswordSource), at each connection,
 * so a password changed in the file or environment is used at the next reconnect without a restart.
 * Errors name the variable or the file, never any of its content.
 */
import { readFile } from 'node:fs/promises';
import type { PasswordSource } from '../server-config';

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
  let text: string;
  try {
    text = await readFile(source.file, 'utf8');
  } catch (error) {
    throw new PasswordUnavailableError(`cannot read the password file ${source.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new PasswordUnavailableError(`the password file ${source.file} is empty`);
  return password;
}
