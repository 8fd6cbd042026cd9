/**
 * The real OpenSSH client against the built `serve --ssh-port 0`: keys made with ssh-keygen in a temp
 * dir, commands run with `ssh` (exec), and the app driven in a tmux window running `ssh -t`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

export interface SshServe extends ServeReady {
  sshPort: number;
  fingerprint: string;
  dir: string;
  stop(): Promise<void>;
}

/** `serve --ssh-port 0` on a fresh data dir (or `args` naming a database), with `args` and `env` added. */
export async function startSshServe(
  args: string[] = [],
  dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-')),
  env: NodeJS.ProcessEnv = {},
): Promise<SshServe> {
  const storage = args.includes('--database-url') ? [] : ['--data-dir', join(dir, 'data')];
  // CI=true as CI sets it: the app drawn for an SSH client must not read the server's environment.
  const serve = await startServeProcess(['--ssh-port', '0', ...storage, ...args], {
    TEMPMAIL_TUI_HOME: join(dir, 'home'),
    CI: 'true',
    ...env,
  });
  const found = await waitFor(
    () => {
      const port = /^SSH \S+:(\d+)$/m.exec(serve.stdout());
      const fp = /^SSH-FINGERPRINT (SHA256:\S+)$/m.exec(serve.stdout());
      if (port && fp) return { sshPort: Number(port[1]), fingerprint: fp[1]! };
      return sshListenJson(serve.stdout());
    },
    { timeoutMs: 10_000, message: 'serve to print its SSH port' },
  );
  return { ...serve, ...found, dir, stop: async () => void (await stopServe(serve)) };
}

/** With `--log-format json`, the SSH listen object (src/server/serve/serve-output.ts) instead of the two plain lines. */
function sshListenJson(stdout: string): { sshPort: number; fingerprint: string } | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{') || !line.endsWith('}')) continue;
    const l = JSON.parse(line) as { event?: string; protocol?: string; port?: number; fingerprint?: string };
    if (l.event === 'listen' && l.protocol === 'ssh' && l.port && l.fingerprint)
      return { sshPort: l.port, fingerprint: l.fingerprint };
  }
  return undefined;
}

/** A new ed25519 key pair in `dir`; returns the private key's path. */
export function newKey(dir: string, name: string): string {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  return file;
}

const COMMON = [
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'LogLevel=ERROR',
  '-F',
  '/dev/null',
];

/**
 * ssh's options for `key` (BatchMode, unless `batch` is false: a key with a passphrase asks for it), or
 * for no key (keyboard-interactive, which BatchMode turns off).
 */
export function sshArgs(port: number, key: string | undefined, batch = true): string[] {
  const who = key
    ? [...(batch ? ['-o', 'BatchMode=yes'] : []), '-o', 'IdentitiesOnly=yes', '-i', key]
    : ['-o', 'PubkeyAuthentication=no', '-o', 'PreferredAuthentications=keyboard-interactive'];
  return [...COMMON, ...who, '-p', String(port)];
}

/** Runs `ssh host COMMAND` (host 127.0.0.1 unless given); resolves with its output and exit status. */
export function sshExec(
  port: number,
  key: string | undefined,
  command: string[],
  host = '127.0.0.1',
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn('ssh', [...sshArgs(port, key), host, ...command], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ stdout, stderr, code })));
}

export interface TmuxSsh {
  screen(): string;
  /** The screen with its colours (SGR sequences as tmux writes them). */
  styled(): string;
  /** Every byte `ssh` wrote to its terminal from just after the window opened (with `record`), as text. */
  raw(): string;
  keys(...keys: string[]): void;
  resize(cols: number, rows: number): void;
  waitForScreen(match: RegExp | string, timeoutMs?: number): Promise<string>;
  close(): void;
}

/**
 * `ssh -t` to the app in a tmux window of `cols` x `rows` with `term` as TERM; with `record`, what ssh
 * writes is also kept as it comes, before tmux reads it (escape sequences tmux does not draw included);
 * with `showExit`, ssh's exit status is printed when it ends.
 */
export function tmuxSsh(
  port: number,
  key: string | undefined,
  options: {
    cols?: number;
    rows?: number;
    term?: string;
    env?: Record<string, string>;
    record?: boolean;
    /** Print `ssh exit N` (its exit status) once ssh ends. */
    showExit?: boolean;
    /** false: no BatchMode (ssh may ask for the key's passphrase in the window). */
    batch?: boolean;
  } = {},
): TmuxSsh {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-tmux-ssh-'));
  const socket = join(dir, 'sock');
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C.UTF-8', ...options.env };
  delete env.TMUX;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-S', socket, ...a], { encoding: 'utf8', env });
  const sendEnv = Object.keys(options.env ?? {}).flatMap((name) => ['-o', `SendEnv=${name}`]);
  const command = [
    'env',
    `TERM=${options.term ?? 'xterm-256color'}`,
    'ssh',
    ...sshArgs(port, key, options.batch),
    ...sendEnv,
    '-t',
    '127.0.0.1',
  ]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-x',
    String(options.cols ?? 80),
    '-y',
    String(options.rows ?? 24),
    '-s',
    'app',
    `${command}; ${options.showExit ? 'echo "ssh exit $?"; ' : ''}sleep 60`,
  );
  tmux('set-option', '-g', 'window-size', 'manual');
  const rawFile = join(dir, 'raw');
  if (options.record) tmux('pipe-pane', '-o', '-t', 'app', `cat >> '${rawFile}'`);
  const screen = () => tmux('capture-pane', '-p', '-t', 'app');
  return {
    screen,
    styled: () => tmux('capture-pane', '-p', '-e', '-t', 'app'),
    raw: () => (existsSync(rawFile) ? readFileSync(rawFile, 'utf8') : ''),
    keys: (...keys) => void tmux('send-keys', '-t', 'app', ...keys),
    resize: (cols, rows) => void tmux('resize-window', '-t', 'app', '-x', String(cols), '-y', String(rows)),
    waitForScreen: (match, timeoutMs = 15_000) =>
      waitFor(
        () => {
          const text = screen();
          return (typeof match === 'string' ? text.includes(match) : match.test(text)) ? text : undefined;
        },
        { timeoutMs, message: `the ssh screen to show ${String(match)}` },
      ).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; it was:\n${screen()}`);
      }),
    close() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
