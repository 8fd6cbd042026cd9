/**
 * `ssh host new|wait|list|read ...`: the scripting commands (src/scripting/), run in-process against this
 * service's own HTTP API for the caller, on the caller's own saved addresses (user-data.ts), with the
 * same output and exit status as the installed CLI (the status goes back as SSH's exit-status). The
 * command line is split like a shell's words, without a shell: quotes group, nothing is expanded.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeBaseUrl } from '../../model/service-url';
import type { SavedSessionStore } from '../../state/saved-sessions';
import { safeLine } from '../../text/safe-text';
import { SSH_SERVICE_KEY } from './ssh-service-key';

/** The commands a caller may run. */
export const EXEC_COMMANDS = ['new', 'wait', 'list', 'read', 'domains'] as const;
const MAX_COMMAND = 4096;

export interface ExecOutput {
  write(text: string): void;
  writeError(text: string): void;
}

/** Shell-like words: 'single' and "double" quotes group, a backslash escapes; null for an open quote. */
export function splitWords(line: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i]!;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== null) return null;
  if (word !== null) words.push(word);
  return words;
}

/** The user's store as the scripting commands see it: their addresses at `apiUrl` (kept under the SSH key). */
export function storeAt(store: SavedSessionStore, apiUrl: string): SavedSessionStore {
  const url = normalizeBaseUrl(apiUrl);
  const key = (baseUrl: string) => (baseUrl === url || baseUrl === apiUrl ? SSH_SERVICE_KEY : baseUrl);
  const out = <T extends { baseUrl: string }>(s: T): T => (s.baseUrl === SSH_SERVICE_KEY ? { ...s, baseUrl: url } : s);
  return {
    file: store.file,
    listLive: (now, baseUrl, provider) =>
      store.listLive(now, baseUrl === undefined ? undefined : key(baseUrl), provider).map(out),
    save: (session, baseUrl, provider) => out(store.save(session, key(baseUrl), provider)),
    forget: (email, baseUrl, provider) => store.forget(email, key(baseUrl), provider),
    setToken: (email, baseUrl, token, provider) => store.setToken(email, key(baseUrl), token, provider),
    markRefused: (email, baseUrl, at, provider) => store.markRefused(email, key(baseUrl), at, provider),
    markUsed: (email, baseUrl, at, provider) => store.markUsed(email, key(baseUrl), at, provider),
  };
}

/** Runs one command line for a caller; resolves with its exit status. */
export async function runExec(
  line: string,
  options: { apiUrl: string; sessions: SavedSessionStore; out: ExecOutput; signal: AbortSignal; columns?: number },
): Promise<number> {
  const words = line.length > MAX_COMMAND ? null : splitWords(line);
  const [command, ...args] = words ?? [];
  const allowed = (EXEC_COMMANDS as readonly string[]).includes(command ?? '');
  if (!words || !allowed) {
    const what = words
      ? command === undefined
        ? 'no command'
        : `unknown command ${safeLine(JSON.stringify(command), 60)}`
      : 'a command line it cannot read';
    options.out.writeError(
      `tempmail-tui: ${what}; over SSH: ${EXEC_COMMANDS.join(', ')} (or no command for the app)\n`,
    );
    return 2;
  }
  const { runScript } = await import('../../scripting/index');
  const home = join(tmpdir(), `tempmail-tui-ssh-${process.pid}`);
  // Only this service, whatever the server's own environment or files say.
  const env = { TEMPMAIL_TUI_HOME: home, TEMPMAIL_PROVIDER: 'tempmail', TEMPMAIL_BASE_URL: options.apiUrl };
  return runScript(command!, args, {
    stdout: { write: (text: string) => options.out.write(text) },
    stderr: { write: (text: string) => options.out.writeError(text) },
    env,
    columns: options.columns,
    signal: options.signal,
    sessions: storeAt(options.sessions, options.apiUrl),
  });
}
