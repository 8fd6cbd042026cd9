/** Random account names and passwords for mail.tm, from the system's secure random source. */
import { createRequire } from 'node:module';

// node:crypto is loaded on the first name, not with the app (its cost before the first frame:
// docs/performance.md, "Figures the code relies on").
const load = createRequire(import.meta.url);
const crypto = (): typeof import('node:crypto') => load('node:crypto') as typeof import('node:crypto');

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ALPHANUMERIC = `${LETTERS}0123456789`;

/** A local part nobody guesses: a letter, then 11 letters or digits ("k3v9x2m7q0ab"). */
export function randomLocalPart(): string {
  let out = LETTERS[crypto().randomInt(LETTERS.length)]!;
  for (let i = 0; i < 11; i++) out += ALPHANUMERIC[crypto().randomInt(ALPHANUMERIC.length)]!;
  return out;
}

/** A strong account password: 24 random bytes, base64url (32 characters). */
export function randomPassword(): string {
  return crypto().randomBytes(24).toString('base64url');
}
