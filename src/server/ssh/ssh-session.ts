/**
 * One SSH session channel: a pty request (size, TERM), environment (NO_COLOR only), window changes, then
 * either a shell (the app, remote-app.tsx) or an exec (ssh-exec.ts). No subsystem (SFTP), no X11, no
 * agent. An error thrown while the app draws or in its key handlers ends this session with a line; one
 * thrown in a timer's or a promise's callback of the app is not caught here and ends the service
 * (docs/server/ssh.md, Limits).
 */
import type { Session as SshSession, ServerChannel } from 'ssh2';
import { safeLine } from '../../text/safe-text';
import { channelTerminal } from './channel-terminal';
import { runExec } from './ssh-exec';
import type { UserData } from './user-data';
import { logEvent } from '../observe/log';

export interface SessionContext {
  apiUrl: string;
  /** The user's stores, being read when the session opens. */
  user: Promise<UserData>;
  idleTimeoutMs: number;
  log: (line: string) => void;
  /** Counts an app session open; false (and nothing counted) past the key's limit. */
  openApp(): boolean;
  closedApp(): void;
}

const TERM_OK = /^[A-Za-z0-9._+-]{1,64}$/;

/**
 * ssh2 tells a session that never became a shell or an exec (a refused SFTP, a client gone after its pty
 * request) from a channel by its class's name (`constructor.name === 'Session'`, lib/utils.js) when the
 * connection closes; the minified bundle renames the class, and that close threw in ssh2's socket
 * handler and ended the whole service. The name is given back.
 */
function keepSessionName(session: SshSession): void {
  const kind = session.constructor;
  if (kind.name !== 'Session') Object.defineProperty(kind, 'name', { value: 'Session' });
}

export function handleSession(session: SshSession, ctx: SessionContext): void {
  keepSessionName(session);
  let size = { columns: 80, rows: 24 };
  let term = 'xterm-256color';
  let noColor = false;
  let resize: ((columns: number, rows: number) => void) | undefined;
  session.on('pty', (accept, _reject, info) => {
    size = { columns: info.cols, rows: info.rows };
    // A TERM with escapes or odd bytes is not believed.
    if (TERM_OK.test(info.term ?? '')) term = info.term;
    accept?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    size = { columns: info.cols, rows: info.rows };
    resize?.(info.cols, info.rows);
    accept?.();
  });
  session.on('env', (accept, reject, info) => {
    if (info.key === 'NO_COLOR' && info.val !== '') {
      noColor = true;
      accept?.();
    } else reject?.();
  });
  session.on('shell', (accept) => {
    const channel = accept();
    resize = startApp(channel, size, noColor || term === 'dumb', ctx);
  });
  session.on('exec', (accept, _reject, info) => startExec(accept(), info.command, ctx));
  session.on('subsystem', (_accept, reject) => reject());
  session.on('x11', (_accept, reject) => reject());
  session.on('auth-agent', (_accept, reject) => reject?.());
  session.on('signal', (accept) => accept?.());
}

function startApp(
  channel: ServerChannel,
  size: { columns: number; rows: number },
  noColor: boolean,
  ctx: SessionContext,
) {
  if (!ctx.openApp()) {
    channel.stderr.write('tempmail-tui: too many sessions open with this key; close one and try again\r\n');
    channel.exit(1);
    channel.end();
    return undefined;
  }
  let ended = false;
  const end = (message?: string, code = 0) => {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    terminal.dispose();
    running?.stop();
    if (message) channel.write(`\r\n${message}\r\n`);
    ctx.closedApp();
    channel.exit(code);
    channel.end();
  };
  const terminal = channelTerminal(channel, size, () => {
    logEvent(ctx.log, {
      level: 'warn',
      event: 'ssh.session_closed',
      text: 'ssh: a client did not read its output; session closed',
      jsonFields: { reason: 'not_reading' },
    });
    channel.destroy();
    end();
  });
  const idle = setTimeout(() => end('tempmail-tui: closed after a long time without a key'), ctx.idleTimeoutMs);
  channel.on('data', (data: Buffer) => {
    idle.refresh();
    terminal.input(data);
  });
  channel.on('close', () => end());
  channel.on('error', () => end());
  let running: { stop: () => void } | undefined;
  // A user whose addresses could not be read was logged (ssh.read_failed) and cut where they were read
  // (ssh-front.ts): this session ends without a second line.
  const user = ctx.user.catch(() => undefined);
  Promise.all([import('./remote-app'), user])
    .then(([{ runRemoteApp }, user]) => {
      if (ended) return;
      if (!user) return end(undefined, 1);
      const app = runRemoteApp({ terminal, apiUrl: ctx.apiUrl, user, noColor });
      running = app;
      return app.done.then((code) => end(undefined, code));
    })
    .catch((error: unknown) => {
      const why = safeLine(error instanceof Error ? error.message : String(error), 200);
      logEvent(ctx.log, {
        level: 'error',
        event: 'ssh.session_error',
        text: `ssh: a session ended on an error: ${why}`,
        jsonFields: { reason: why },
      });
      // The client gets one line; what went wrong (never a stack) is for the service's log only.
      end('tempmail-tui: this session ended on an error (the service logged it); connect again to start over', 1);
    });
  return terminal.resize;
}

function startExec(channel: ServerChannel, command: string, ctx: SessionContext): void {
  const abort = new AbortController();
  channel.on('close', () => abort.abort());
  channel.on('error', () => abort.abort());
  // The command's input is not read: a client that sends some gets it thrown away.
  channel.on('data', () => undefined);
  const out = {
    write: (text: string) => void channel.write(text),
    writeError: (text: string) => void channel.stderr.write(text),
  };
  ctx.user
    .then(async (user) => {
      const code = await runExec(command, {
        apiUrl: ctx.apiUrl,
        sessions: user.sessions,
        out,
        signal: abort.signal,
      }).catch(() => 1);
      await user.flushed();
      return code;
    })
    .catch(() => 1)
    .then((code) => {
      if (abort.signal.aborted) return;
      channel.exit(code);
      channel.end();
    });
}
