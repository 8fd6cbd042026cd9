/**
 * What a config file hears about a key it may not hold. A misspelt key is never ignored, and the words
 * point at the key meant: `unknown key "domians" (did you mean "domains"?)`. With no key close to it,
 * a short list of keys is given whole; a long one (serve's top level has over fifty) is named by where
 * it is written down, since a line of a thousand characters is read by nobody (and the start-up error's
 * line is cut at 1,000).
 */
import { unknownName } from '../../text/closest-key';
import { show } from './show';

/** Past this many keys the list is not written into the line. */
const LISTED_KEYS = 12;

/** `unknown key "k" (did you mean "key"?)`, `(known: a, b)` or `(the keys: <where>)`. */
export function unknownKey(key: unknown, known: readonly string[], where: string): string {
  const otherwise = known.length <= LISTED_KEYS ? `known: ${known.join(', ')}` : `the keys: ${where}`;
  return unknownName('key', key, show(key), known, otherwise);
}
