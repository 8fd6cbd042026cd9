/**
 * `tempmail-tui serve`: runs the reference service until SIGINT/SIGTERM (SIGHUP reloads the config file,
 * certificate and admin token where there is one; without, it stops serve too). Prints `HTTP <url>` and
 * `SMTP <host>:<port>` on stdout once both listen (scripts and tests parse them); logs go to stderr.
 */
import { parseArgs } from 'node:util';
import { describeArgsError } from '../../text/args-error';
import { safeLine } from '../../text/safe-text';
import { fitHelp, helpWidth } from '../../text/help-wrap';
import { startServer, type RunningServer } from './assemble';
import { createLogger, type Logger } from '../observe/log';
import { secretScrubber, urlHasPassword } from '../store/postgres/connection/database-url';
import { buildServerConfig, ConfigFileError, SERVE_OPTIONS, UsageError, type ServeFlags } from '../config/serve-config';
import { hangupReloads, reloadConfig } from '../reload/sighup';
import type { ServerConfig } from '../config/server-config';
import { holdHeapNearLive } from '../../platform/young-generation';
import { VERSION } from '../../platform/version';
import { fatalLine, jsonProcessOutput, listenLines, type OutputFormat } from './serve-output';

const HELP = `Usage: tempmail-tui serve [options]

Runs the reference temp-mail service: the HTTP API described in docs/server/http-api.md, an
SMTP receiver for its domains, and IMAP fetching of external mail accounts that have "imap".

Options:
  --host ADDR                 listen address for HTTP and SMTP (default 127.0.0.1)
  --http-host ADDR            listen address for HTTP only (default: --host)
  --smtp-host ADDR            listen address for SMTP only (default: --host)
  --trust-proxy               behind a reverse proxy on this machine: a request from a loopback
                              address is the client named last in X-Forwarded-For (rate limit)
  --http-port N               HTTP port, 0 = any free port (default 8025)
  --smtp-port N               SMTP port, 0 = any free port (default 2525)
  --data-dir DIR              where sessions and messages live (default: the XDG data dir,
                              or $TEMPMAIL_TUI_HOME/data)
  --database-url URL          keep everything in PostgreSQL instead (postgres://user@host/db),
                              shared by any number of serve instances; or TEMPMAIL_DATABASE_URL.
                              Give the password by PGPASSWORD or PGPASSFILE, not in the URL
  --domain D                  a domain to hand out addresses on; repeatable
                              (default tempmail.test and inbox.test)
  --extmail-account EMAIL     an external mail account to hand out aliases of; repeatable.
                              EMAIL:dots marks it dot-insensitive, EMAIL:nodots dot-sensitive;
                              by default gmail.com and googlemail.com are dot-insensitive.
                              To fetch an account's mail over IMAP, give it in --config with
                              an "imap" object (docs/server/imap.md)
  --lifetime-minutes N        session lifetime (default 60)
  --lifetime-seconds N        session lifetime in seconds (for tests)
  --max-message-bytes N       SMTP SIZE limit (default 10485760)
  --max-recipients N          recipients per SMTP transaction (default 50)
  --inbox-limit N             messages an inbox holds before SMTP answers 452 (default 500)
  --create-per-minute N       create-session calls per client address per minute (default 30, 0: off)
  --tls-cert FILE             PEM certificate (or full chain) to offer through SMTP STARTTLS;
                              with --tls-key. SIGHUP reads both files again
  --tls-key FILE              the certificate's PEM private key
  --admin-token-file FILE     turn on the admin API (/admin/...) for the token this file holds
                              (16+ characters; mode 600); drive it with \`tempmail-tui admin\`
                              (the token named "admin"; config adminTokens: [{"name": ...,
                              "file": ...}] gives each person a token of their own, and the
                              log names who acted)
  --admin-listen HOST:PORT    serve the admin API there only (a private address); /admin/ is
                              then 404 on the HTTP port
  --config FILE               JSON file with the same settings in camelCase (httpPort, domains,
                              extmailAccounts, lifetimeSeconds, ...); flags override it
  -V, --version               print the version
  -h, --help                  this help

Limits (0 turns one off; docs/server/operations.md):
  --smtp-max-connections N    SMTP connections at once (default 200)
  --smtp-connections-per-client N
                              SMTP connections at once from one client (default: a tenth
                              of --smtp-max-connections)
  --smtp-messages-per-minute N
                              messages (MAIL FROM) per client per minute (default 300)
  --smtp-recipients-per-minute N
                              recipients (RCPT TO) per client per minute (default 1000)
  --http-requests-per-minute N
                              HTTP requests per client per minute (default 1200)
  --max-stored-messages N     refuse new mail (452 4.3.1) once this many are stored (default: no cap)
  --max-stored-bytes N        the same for the bytes stored (a database: the messages as received)

Operations:
  --metrics                   serve GET /metrics (Prometheus text format)
  --metrics-listen HOST:PORT  serve /metrics there instead of on the HTTP port
  --log-format text|json      log lines as text (default) or one JSON object a line

SSH (docs/server/ssh.md; off unless --ssh-port is given):
  --ssh-port N                \`ssh -p N host\` opens the app on this service, \`ssh -p N host new\`
                              (wait, list, read, domains) runs a command; 0 = any free port.
                              Users are their keys: a key's addresses are kept by the service;
                              without a key, a fresh address. The login name is ignored
  --ssh-host ADDR             listen address for SSH only (default: --host)
  --ssh-host-key FILE         the host key (OpenSSH format); default: an ed25519 key made on
                              first start and kept with the data (printed: SSH-FINGERPRINT)
  Config file only: sshMaxConnections (100), sshConnectionsPerClient (10), sshSessionsPerKey
  (5), sshIdleTimeoutMs (1800000), sshHandshakeTimeoutMs (10000), sshAuthTimeoutMs (20000)

Storage: flags beat TEMPMAIL_DATABASE_URL, which beats the config file.
  tempmail-tui serve migrate --from-data-dir DIR --database-url URL
                              copies a data dir's sessions and messages into PostgreSQL (serve
                              stopped; safe to run again; docs/server/operations.md)

HTTP routes (JSON; a token as the token parameter or in Authorization: Bearer):
  GET  /domains                      POST /create-session
  GET  /check-mail?token             GET  /read-mail?token&id
  POST /delete-mail (token, id)      GET  /raw-mail?token&id
  GET  /attachment?token&id&attachment_id
  GET  /events?token                 new-mail events (text/event-stream)
  GET  /health                       ok (200) or unavailable (503), for people and monitors
  GET  /ready                        the same for load balancers; 503 also while closing
  GET  /metrics                      Prometheus text, with --metrics (or on --metrics-listen)
  /admin/stats, /admin/sessions, /admin/messages, /admin/delete-session, /admin/delete-message,
  /admin/blocks, /admin/block, /admin/unblock   with --admin-token-file only (on --admin-listen
                                                when it is given)

Signals:
  SIGINT, SIGTERM   stop accepting, finish what is in flight, exit 0 (a second one: exit 130 at once)
  SIGHUP            read the config file, certificate and admin token file again (what changed is
                    logged; a file that does not check out keeps the running config); with none of
                    them, stop as for SIGTERM

Exit codes: 0 stopped normally (or --help, --version); 1 could not start (port in use, unusable
data dir, database unreachable, certificate or admin token unreadable); 2 bad usage or config file.
`;

// Messages can carry what the user typed or a config file held (an option name, a path, a value with a
// `\u001b` in it): like every line bound for a terminal, they pass the terminal-safe boundary.
// A config file's mistake ends with the file's path instead of the --help hint: the fix is in the file.
function usage(message: string, hint = true, format: OutputFormat = 'text'): number {
  const help = hint ? " Try 'tempmail-tui serve --help'." : '';
  if (format === 'json') process.stderr.write(fatalLine('json', `${message}${help}`, 'serve.usage'));
  else process.stderr.write(`tempmail-tui serve: ${safeLine(message, 1000)}${help ? `\n${help.trim()}` : ''}\n`);
  return 2;
}

function textLine(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${safeLine(line, 2000)}\n`);
}

// The heap held near what serve keeps alive (young-generation.ts): the new space at 8 MB a semi-space, the
// old generation collected at 1.25x its live size (measured in docs/performance.md, "Where serve's memory
// goes").
const SERVE_YOUNG_GENERATION_BYTES = 16 * 1024 * 1024;
const SERVE_HEAP_GROWING_PERCENT = 25;

/**
 * The command line and the settings it names, read: the flags and the config to run with, or the exit
 * code when there is nothing to run (`--help`, `--version`, a usage error said on stderr).
 */
function readServeArgs(
  args: string[],
): { code: number } | { flags: ServeFlags; config: ServerConfig; notes: string[] } {
  let flags: ServeFlags;
  try {
    flags = parseArgs({ args, options: SERVE_OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (error) {
    // The arguments did not parse, but one may still ask for JSON: its refusal is JSON then.
    const at = args.indexOf('--log-format');
    const json = args.includes('--log-format=json') || (at >= 0 && args[at + 1] === 'json');
    return { code: usage(describeArgsError(error), true, json ? 'json' : 'text') };
  }
  if (flags.help) {
    process.stdout.write(fitHelp(HELP, helpWidth(process.stdout)));
    return { code: 0 };
  }
  if (flags.version) {
    process.stdout.write(`${VERSION}\n`);
    return { code: 0 };
  }
  // Known before the config is read: a usage error is JSON too when the command line asks for it.
  const asked: OutputFormat = flags['log-format'] === 'json' ? 'json' : 'text';
  if (flags['lifetime-minutes'] !== undefined && flags['lifetime-seconds'] !== undefined) {
    return { code: usage('give --lifetime-minutes or --lifetime-seconds, not both', true, asked) };
  }
  let config: ServerConfig;
  // What one source of settings overrode of another (the storage), said once the log is there.
  const notes: string[] = [];
  try {
    config = buildServerConfig(flags, process.env, notes);
  } catch (error) {
    if (error instanceof UsageError) return { code: usage(error.message, !(error instanceof ConfigFileError), asked) };
    throw error;
  }
  return { flags, config, notes };
}

/** Runs `serve` with its arguments; resolves with the exit code once the service has stopped. */
export async function runServe(args: string[]): Promise<number> {
  const read = readServeArgs(args);
  if ('code' in read) return read.code;
  const { flags, config, notes } = read;

  const scrub = secretScrubber(config.databaseUrl);
  // Every line from here on is in the --log-format (text by default).
  const logLine: Logger = createLogger({
    format: config.logFormat,
    write: config.logFormat === 'json' ? (line) => process.stderr.write(`${line}\n`) : textLine,
    scrub,
  });
  if (config.logFormat === 'json') jsonProcessOutput(logLine);
  const info = (event: string, text: string) => logLine.event({ level: 'info', event, text });
  for (const note of notes) info('config.note', note);
  if (flags['database-url'] !== undefined && urlHasPassword(flags['database-url'])) {
    const text =
      'warning: the --database-url on the command line holds a password, which other users can read in the process list; give it by PGPASSWORD or PGPASSFILE (or TEMPMAIL_DATABASE_URL)';
    logLine.event({ level: 'warn', event: 'config.password_in_argv', text });
  }

  // The signal handlers come before anything is started or printed. Installed after the addresses
  // were printed (as they once were), a SIGTERM sent in between (a supervisor, or a script that stops
  // serve the moment it printed) met the default action: killed by the signal, lock left behind.
  let running: RunningServer | undefined;
  let stopping = false;
  let closed = false;
  const { promise: stopped, resolve: resolveStopped } = Promise.withResolvers<number>();
  const close = (server: RunningServer) => {
    server.close().then(
      () => {
        closed = true;
        info('serve.closed', 'closed');
        resolveStopped(0);
      },
      (error: unknown) => {
        closed = true;
        const why = error instanceof Error ? error.message : String(error);
        logLine.event({
          level: 'error',
          event: 'serve.close_failed',
          text: `close failed: ${why}`,
          jsonFields: { reason: why },
        });
        resolveStopped(1);
      },
    );
  };
  const stop = (signal: NodeJS.Signals) => {
    if (closed) return; // the process is on its way out already
    if (stopping) {
      // A second signal means "now": skip the graceful part.
      logLine.event({
        level: 'warn',
        event: 'serve.exit_now',
        text: `${signal} again, exiting at once`,
        jsonFields: { signal },
      });
      logLine.flush();
      process.exit(130);
    }
    stopping = true;
    if (!running) {
      info('serve.stopping', `${signal} while starting: closing as soon as the service is up`);
      return;
    }
    info('serve.stopping', `${signal}: closing (finishing requests in flight)`);
    close(running);
  };
  // SIGHUP reads the config file, the certificate and the admin token again (reload/sighup.ts); with
  // none of them there is nothing to reload, and SIGHUP keeps its meaning of "your terminal is gone".
  let reloads = Promise.resolve();
  const hangup = () => {
    if (!hangupReloads(flags, config)) return stop('SIGHUP');
    if (closed || stopping) return;
    if (!running) {
      info('reload.skipped', 'SIGHUP while starting: the config is being read now anyway');
      return;
    }
    const server = running;
    reloads = reloads.then(() => reloadConfig(server, flags, logLine));
  };
  // Kept until the process ends: a late second signal must not meet the default action either.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', hangup);

  try {
    running = await startServer(config, { log: logLine });
  } catch (error) {
    logLine.flush();
    process.stderr.write(fatalLine(config.logFormat, scrub(error instanceof Error ? error.message : String(error))));
    return 1;
  }
  if (stopping) {
    // Stopped before it was up: nobody is waiting for the addresses any more.
    close(running);
    return stopped;
  }
  process.stdout.write(listenLines(running, config.logFormat));
  void holdHeapNearLive(SERVE_YOUNG_GENERATION_BYTES, SERVE_HEAP_GROWING_PERCENT);
  info(
    'serve.started',
    `serving ${[...config.domains, ...config.extmailAccounts.map((a) => a.email)].join(', ')}; data in ${running.storage}`,
  );
  return stopped;
}
