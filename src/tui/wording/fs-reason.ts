/**
 * File-system failures as status-line words that lead with the reason ("permission denied") and end
 * with the path: a long path first would push the reason past the edge of an 80-column line.
 */
import { safeLine } from '../../text/safe-text';

const WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EDQUOT: 'over the disk quota',
  EMFILE: 'too many open files',
};

/** The reason alone, in a few words ("permission denied"), else the error's own message. */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code && WORDS[code]) return WORDS[code]!;
  return safeLine(error instanceof Error ? error.message : String(error), 200);
}

/**
 * "permission denied (/home/me/.local/state/tempmail-tui/sessions.json)": the reason first, then the
 * path the error names. A message that opens with one of `paths` ("/x/sessions.json: this file belongs
 * to another user ...", as src/state/secure-file.ts writes them) is turned around the same way.
 */
export function fsProblem(error: unknown, paths: readonly string[] = []): string {
  const e = error as NodeJS.ErrnoException | null;
  const code = e?.code;
  if (code && WORDS[code]) return withPath(WORDS[code]!, e?.path ?? paths[0]);
  const message = error instanceof Error ? error.message : String(error);
  // Longest first: the file's message must not be cut at its directory's name.
  for (const path of [...paths].sort((a, b) => b.length - a.length)) {
    if (!path || !message.startsWith(path)) continue;
    const rest = message.slice(path.length);
    const reason = rest.startsWith(':') ? rest.slice(1).trim() : `it${rest}`;
    return withPath(reason, path);
  }
  // Node's own messages ("ELOOP: too many symbolic links ..., open '/x'") already end with the path.
  return safeLine(message, 300);
}

function withPath(reason: string, path: string | undefined): string {
  return safeLine(path ? `${reason} (${path})` : reason, 300);
}
