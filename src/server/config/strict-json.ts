/**
 * JSON.parse that refuses an object naming a key twice. RFC 8259 leaves duplicate names to each
 * implementation: JSON.parse keeps the last silently, other parsers (a proxy, a log pipeline) the first,
 * so `{"id":1,"id":2}` can mean one thing to whoever checked a request and another to whoever acts on it.
 * Used for the HTTP bodies and the --config file of `serve`.
 */

/** The text parsed as JSON, but one of its objects names `key` twice. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(readonly key: string) {
    super(`the key ${JSON.stringify(key)} is given twice`);
  }
}

/**
 * The first key that appears twice in one object of `text`, at any depth, comparing keys as JSON.parse
 * reads them (so "f" and "\u0066" are one key); undefined when there is none. `text` must be valid JSON
 * (parse it first). One pass, no recursion: linear in the text, whatever its nesting.
 */
export function findDuplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const keys = open[open.length - 1];
      if (keyNext && keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      keyNext = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
      keyNext = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      keyNext = false;
    } else if (c === 0x2c /* , */) {
      keyNext = open[open.length - 1] != null;
    }
  }
  return undefined;
}

/** JSON.parse, throwing DuplicateKeyError for a key given twice in one object (SyntaxError as JSON.parse does). */
export function parseJsonStrict(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const key = findDuplicateKey(text);
  if (key !== undefined) throw new DuplicateKeyError(key);
  return value;
}
