/**
 * The word someone most likely meant when they typed one that is not known: a config key spelt with a
 * letter left out, two swapped, another case or the flag's dashes. Used for the app's and serve's
 * config files ("unknown key "domians" (did you mean "domains"?)").
 */

/** The Damerau-Levenshtein distance of `a` and `b` (adjacent swaps count one), capped past `cap`. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known key `key` most likely meant: the same but for case, `-` and `_`; one that starts with it (4
 * characters at least, and only one such key); else the nearest within 2 edits, or 1 when either is
 * 5 characters or fewer (`port` is 2 edits from `host`, and a short key is no evidence of a typo).
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  // Keys are short; a long unknown key (up to a file's 1 MiB) is compared by its first 64 characters.
  const plain = (k: string) => k.slice(0, 64).toLowerCase().replace(/[-_]/g, '');
  const wanted = plain(key);
  const starting = wanted.length >= 4 ? known.filter((k) => plain(k).startsWith(wanted)) : [];
  if (starting.length === 1) return starting[0];
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const other = plain(k);
    const cap = Math.min(wanted.length, other.length) <= 5 ? 1 : 2;
    const d = distance(wanted, other, cap);
    if (d <= cap && (best === undefined || d < best.d)) best = { key: k, d };
  }
  return best?.key;
}

/**
 * The line for a name that is not known: `unknown <what> <shown> (did you mean "key"?)` when a known key
 * is close to `typed`, else `unknown <what> <shown> (<otherwise>)`. `shown` is `typed` quoted and made
 * terminal-safe by the caller (each caller bounds it for its own line).
 */
export function unknownName(
  what: string,
  typed: unknown,
  shown: string,
  known: readonly string[],
  otherwise: string,
): string {
  const near = typeof typed === 'string' ? closestKey(typed, known) : undefined;
  // A known key is ours (plain ASCII): quoted as it is.
  return `unknown ${what} ${shown} (${near === undefined ? otherwise : `did you mean ${JSON.stringify(near)}?`})`;
}
