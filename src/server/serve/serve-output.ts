/**
 * What `serve` prints itself, outside its log: where it listens (stdout) and why it could not start
 * (stderr). As text, `HTTP <url>`, `SMTP <host>:<port>`, `SSH <host>:<port>` and `SSH-FINGERPRINT <fp>`,
 * the lines scripts and tests read, as they always were; with `--log-format json`, every line the
 * service writes is one JSON object, these too: `{"event":"listen","protocol":"http","url":...}` on
 * stdout, and a fatal start-up error as `{"level":"error","event":"serve.failed","msg":...}` on stderr.
 */
import { safeLine } from '../../text/safe-text';
import type { Logger } from '../observe/log';

export type OutputFormat = 'text' | 'json';

/** Where serve listens, as `listenLines` prints it. */
export interface Listening {
  httpUrl: string;
  smtpHost: string;
  smtpPort: number;
  ssh?: { host: string; port: number; fingerprint: string };
}

/** An IPv6 host bracketed, as in a URL, so "host:port" stays unambiguous. */
const bracketed = (host: string) => (host.includes(':') ? `[${host}]` : host);

const jsonLine = (fields: Record<string, unknown>) =>
  JSON.stringify({ time: new Date().toISOString(), level: 'info', ...fields });

/** The listen lines for stdout, each ending with a newline. */
export function listenLines(where: Listening, format: OutputFormat): string {
  if (format === 'text') {
    const lines = [`HTTP ${where.httpUrl}`, `SMTP ${bracketed(where.smtpHost)}:${where.smtpPort}`];
    if (where.ssh)
      lines.push(`SSH ${bracketed(where.ssh.host)}:${where.ssh.port}`, `SSH-FINGERPRINT ${where.ssh.fingerprint}`);
    return lines.map((l) => `${l}\n`).join('');
  }
  const listen = (protocol: string, fields: Record<string, unknown>, msg: string) =>
    jsonLine({ event: 'listen', msg, protocol, ...fields });
  const lines = [
    listen('http', { url: where.httpUrl }, `HTTP ${where.httpUrl}`),
    listen(
      'smtp',
      { host: where.smtpHost, port: where.smtpPort },
      `SMTP ${bracketed(where.smtpHost)}:${where.smtpPort}`,
    ),
  ];
  if (where.ssh) {
    const { host, port, fingerprint } = where.ssh;
    lines.push(listen('ssh', { host, port, fingerprint }, `SSH ${bracketed(host)}:${port}`));
  }
  return lines.map((l) => `${l}\n`).join('');
}

/** Why serve could not start or was used wrongly, one line for stderr (`message` made terminal-safe). */
export function fatalLine(format: OutputFormat, message: string, event = 'serve.failed'): string {
  const text = safeLine(message, 1000);
  if (format === 'text') return `tempmail-tui serve: ${text}\n`;
  return `${jsonLine({ level: 'error', event, msg: text })}\n`;
}

/**
 * With `--log-format json`, what Node itself would write to stderr comes as JSON too: a process warning
 * (a deprecation) is a `node.warning` line at level warn instead of Node's text, and an exception nothing
 * caught is one `serve.crashed` line at level error (its message, no stack) before the exit (1), where
 * Node would print a stack trace a collector cannot read.
 */
export function jsonProcessOutput(log: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    log.event({ level: 'warn', event: 'node.warning', text: `${warning.name}: ${warning.message}`, fold: false });
  });
  process.on('uncaughtException', (error) => {
    log.event({
      level: 'error',
      event: 'serve.crashed',
      text: `serve crashed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      fold: false,
    });
    log.flush();
    process.exit(1);
  });
}
