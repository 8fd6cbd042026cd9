/**
 * `tempmail-tui admin ...`: drives a serve's admin API (abuse handling) from a shell. The token comes
 * from a file (--token-file, or TEMPMAIL_ADMIN_TOKEN_FILE) or the environment (TEMPMAIL_ADMIN_TOKEN),
 * never from the command line, where any user could read it in the process list. Text lines on stdout
 * (tab-separated, terminal-safe), or the service's answer as JSON with --json; messages on stderr.
 * Exit codes as the other scripting commands: 0 ok, 1 refused / not found / service error, 2 usage.
 */
import { parseArgs } from 'node:util';
import { OperatorFileError, readSecretFile } from '../../platform/operator-file';
import { describeArgsError } from '../../text/args-error';
import { safeLine } from '../../text/safe-text';
import { fitHelp, HELP_WIDTH } from '../../text/help-wrap';
import { EXIT, processIo, ScriptError, UsageError, type ScriptIo } from '../io';
import { adminCall, type AdminTarget } from './admin-client';
import { formatAnswer, safeJson } from './admin-format';

const ADMIN_HELP = `Usage: tempmail-tui admin COMMAND [options]

Drives the admin API of a tempmail-tui serve started with --admin-token-file.

Commands:
  stats                          sessions, messages, stored bytes, blocks, open event streams
  sessions [FILTER]              sessions: the one holding --recipient, or those with mail matching
  messages [FILTER]              messages matching the filter, newest first
  delete-session SESSION_ID      delete a session and its mail
  delete-message SESSION_ID ID   delete one message
  blocks                         the blocks in effect
  block sender|domain|ip VALUE   refuse mail from a sender address, a sender domain (and its
                                 subdomains) or a client address or range (203.0.113.0/24)
  unblock sender|domain|ip VALUE remove a block

Filter (at least one; all given must match):
  --recipient ADDRESS   an address the service handed out
  --sender S            a sender address, or a domain and its subdomains (From or envelope sender)
  --client-ip IP        the SMTP client's address, or a CIDR range
  --limit N             at most N rows (default 100, at most 1000)

Options:
  --base-url URL        the service (default TEMPMAIL_ADMIN_URL, else http://127.0.0.1:8025/);
                        --url is the same
  --token-file FILE     a file holding the admin token (default TEMPMAIL_ADMIN_TOKEN_FILE); or put the
                        token itself in TEMPMAIL_ADMIN_TOKEN. Never on the command line.
  --json                the service's answer as JSON on stdout
  -h, --help            this help

Exit codes: 0 ok, 1 refused, not found or service error, 2 usage.`;

const OPTIONS = {
  'base-url': { type: 'string' },
  // The name admin had before every command took --base-url; kept so scripts written for it still work.
  url: { type: 'string' },
  'token-file': { type: 'string' },
  recipient: { type: 'string' },
  sender: { type: 'string' },
  'client-ip': { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const DEFAULT_URL = 'http://127.0.0.1:8025/';
const TOKEN_FILE_MAX_BYTES = 4096;
const TOKEN_READ_TIMEOUT_MS = 5000;

/** What each command takes: its positionals, and whether the filter options apply. */
const COMMANDS: Record<string, { args: string[]; filter?: boolean }> = {
  stats: { args: [] },
  sessions: { args: [], filter: true },
  messages: { args: [], filter: true },
  'delete-session': { args: ['SESSION_ID'] },
  'delete-message': { args: ['SESSION_ID', 'ID'] },
  blocks: { args: [] },
  block: { args: ['sender|domain|ip', 'VALUE'] },
  unblock: { args: ['sender|domain|ip', 'VALUE'] },
};

/** Runs `admin` with its arguments; resolves with the exit code. Never throws, never prints a stack. */
export async function runAdmin(args: string[], io: ScriptIo = processIo()): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    const e =
      error instanceof ScriptError
        ? error
        : new ScriptError(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    const hint = e.exitCode === EXIT.usage ? ' (see tempmail-tui admin --help)' : '';
    io.stderr.write(`tempmail-tui admin: ${safeLine(e.message, 500)}${hint}\n`);
    return e.exitCode;
  }
}

async function run(args: string[], io: ScriptIo): Promise<number> {
  // A token on the command line would be in every user's process list: refused without echoing it.
  if (args.some((a) => a === '--token' || a.startsWith('--token='))) {
    throw new UsageError(
      'the admin token is never given on the command line: use --token-file FILE or TEMPMAIL_ADMIN_TOKEN',
    );
  }
  const { values, positionals } = parseAdminArgs(args);
  if (values.help || positionals.length === 0) {
    io.stdout.write(fitHelp(`${ADMIN_HELP}\n`, io.columns ?? HELP_WIDTH));
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const [command = '', ...rest] = positionals;
  const spec = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!spec) throw new UsageError(`unknown command ${safeLine(JSON.stringify(command), 60)}`);
  if (rest.length !== spec.args.length)
    throw new UsageError(`${command} takes ${spec.args.length ? spec.args.join(' ') : 'no arguments'}`);
  const filterGiven =
    values.recipient !== undefined ||
    values.sender !== undefined ||
    values['client-ip'] !== undefined ||
    values.limit !== undefined;
  if (filterGiven && !spec.filter)
    throw new UsageError(`${command} takes no --recipient, --sender, --client-ip or --limit`);
  if (
    spec.filter &&
    values.recipient === undefined &&
    values.sender === undefined &&
    values['client-ip'] === undefined
  ) {
    throw new UsageError(`${command} needs --recipient, --sender or --client-ip`);
  }

  const target: AdminTarget = {
    baseUrl: baseUrl(values['base-url'] ?? values.url ?? io.env.TEMPMAIL_ADMIN_URL ?? DEFAULT_URL),
    token: await token(values['token-file'], io.env),
  };
  const filter = {
    recipient: values.recipient,
    sender: values.sender,
    client_ip: values['client-ip'],
    limit: values.limit,
  };
  const [a, b] = rest;
  const answer =
    command === 'stats'
      ? await adminCall(target, 'GET', 'stats', {})
      : command === 'sessions' || command === 'messages'
        ? await adminCall(target, 'GET', command, filter)
        : command === 'blocks'
          ? await adminCall(target, 'GET', 'blocks', {})
          : command === 'delete-session'
            ? await adminCall(target, 'POST', 'delete-session', { session_id: a })
            : command === 'delete-message'
              ? await adminCall(target, 'POST', 'delete-message', { session_id: a, id: b })
              : await adminCall(target, 'POST', command, { kind: a, value: b });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(safeJson(answer), null, 2)}\n`);
    return EXIT.ok;
  }
  const { lines, note } = formatAnswer(command, answer, rest);
  for (const line of lines) io.stdout.write(`${line}\n`);
  if (note) io.stderr.write(`${note}\n`);
  return EXIT.ok;
}

/** The flags and the command's words; a malformed flag is a UsageError in parseArgs' own words. */
function parseAdminArgs(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeArgsError(error));
  }
}

function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--base-url (or TEMPMAIL_ADMIN_URL) must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--base-url (or TEMPMAIL_ADMIN_URL) must be an http:// or https:// URL');
  // Said without the URL: it holds a password. The admin API is reached with its token, never with these.
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      '--base-url (or TEMPMAIL_ADMIN_URL) must not contain a user name or password: the admin API takes its token (--token-file or TEMPMAIL_ADMIN_TOKEN)',
    );
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

/** The admin token: from --token-file, TEMPMAIL_ADMIN_TOKEN_FILE, or TEMPMAIL_ADMIN_TOKEN. */
async function token(file: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const path = file ?? env.TEMPMAIL_ADMIN_TOKEN_FILE;
  let value: string;
  if (path !== undefined && path !== '') {
    try {
      // Read as serve reads its own (a regular file of a few KB, within 5 s): a FIFO named here must not hang the command.
      value = await readSecretFile(path, { maxBytes: TOKEN_FILE_MAX_BYTES, timeoutMs: TOKEN_READ_TIMEOUT_MS });
    } catch (error) {
      const why = error instanceof OperatorFileError ? error.reason : 'error';
      throw new UsageError(`cannot read the admin token file ${safeLine(path, 200)} (${safeLine(why, 60)})`);
    }
  } else if (env.TEMPMAIL_ADMIN_TOKEN) value = env.TEMPMAIL_ADMIN_TOKEN.replace(/\r?\n$/, '');
  else
    throw new UsageError(
      'no admin token: give --token-file FILE, or set TEMPMAIL_ADMIN_TOKEN_FILE or TEMPMAIL_ADMIN_TOKEN',
    );
  if (!/^[\x21-\x7e]{1,512}$/.test(value))
    throw new UsageError('the admin token must be one line of printable characters, no spaces');
  return value;
}
