/** Random account names and passwords for mail.tm, from the system's secure random source. */
import { randomBytes, randomInt } from 'node:crypto';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ALPHANUMERIC = `${LETTERS}0123456789`;

/** A local part nobody guesses: a letter, then 11 letters or digits ("k3v9x2m7q0ab"). */
export function randomLocalPart(): string {
  let out = LETTERS[randomInt(LETTERS.length)]!;
  for (let i = 0; i < 11; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]!;
  return out;
}

/** A strong account password: 24 random bytes, base64url (32 characters). */
export function randomPassword(): string {
  return randomBytes(24).toString('base64url');
}
