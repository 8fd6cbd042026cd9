/**
 * The scripting subcommands of the one binary: no UI, data on stdout, messages on stderr, and exit
 * codes 0 (ok), 1 (timeout, not found, service error) and 2 (usage or configuration). The token of a
 * saved address is printed only by `new --show-token`.
 */
import { isApiError } from '../client/api-error';
import { ConfigError } from '../state/app-config';
import { safeLine } from '../text/safe-text';
import { fitHelp, HELP_WIDTH } from '../text/help-wrap';
import { SecureFileError } from '../state/secure-file';
import { runDelete, runDomains, runForget, runList, runRead } from './commands';
import { runNew } from './new-command';
import { runProviders } from './providers-command';
import { isScriptCommand, type ScriptCommand } from './commands-list';
import { EXIT, processIo, ScriptError, type LocalEndpoint, type ScriptIo } from './io';

export { processIo };
import { runWait } from './wait';

const COMMON_HELP = `Common options:
  --provider NAME       tempmail, mailtm, guerrilla, tempmaillol, or auto: the first of providerOrder
                        that answers (also TEMPMAIL_PROVIDER or provider in config.json); list, read,
                        wait, delete and forget use the saved address's own provider
  --base-url URL        the provider's address (also TEMPMAIL_BASE_URL or baseUrl in config.json):
                        a service of the interface for tempmail, another host of the same API for the others
  --server-tz TZ        the service's time zone for its times (default UTC)
  --post-encoding E     form (default), json or query
  --json                JSON on stdout instead of lines
  -q, --quiet           no messages on stderr (errors still are)
  -h, --help            this help

Exit codes: 0 ok, 1 timeout / not found / service error, 2 usage or configuration error.`;

const HELP: Record<ScriptCommand, string> = {
  new: `Usage: tempmail-tui new [--provider NAME] [--prefix P] [--domain D] [--extmail [--account EMAIL]] [--json] [--show-token]

Creates an address, saves it (with its token, and a mail.tm account's password, mode 0600) for later
commands and the app, and prints it. --provider mailtm, tempmaillol or guerrilla gives an address any
website can mail; --provider auto the first of them (providerOrder in config.json) that answers.
  --prefix P            the part before the @ (random when omitted)
  --domain D            a domain name or id from \`tempmail-tui domains\`
  --extmail             an alias of an external mail account, picked by the service
  --account EMAIL       ... of this account (implies --extmail)
  --show-token          also print the session token (second line, or "token" in JSON)`,
  domains: `Usage: tempmail-tui domains [--provider NAME] [--json]

Lists the provider's domains and external mail accounts: "id<TAB>domain|extmail<TAB>name" lines.`,
  list: `Usage: tempmail-tui list [--address A] [--json]

Lists the messages of the newest saved address (or A), newest first:
"id<TAB>received (UTC)<TAB>sender<TAB>subject" lines.`,
  read: `Usage: tempmail-tui read ID [--address A] [--json]

Prints one message as text (headers, detected code and link, body with numbered links).`,
  wait: `Usage: tempmail-tui wait [--address A] [--from REGEX] [--subject REGEX] [--timeout SECONDS]
                         [--print code|link|text|json] [--existing] [--interval SECONDS]

Blocks until a new message matching the filters reaches the newest saved address (or A), then prints
its verification code, its confirmation link, its text (default) or the whole message as JSON.
  --from, --subject     case-insensitive regular expressions on "Name <email>" and the subject
  --timeout SECONDS     give up after this long, exit 1 (default 300; 0 = until the address expires)
  --existing            also consider messages already in the inbox (default: only new ones)
  --interval SECONDS    how often to check (default 1.5)
With --print code or link, a matching message without one is skipped and the wait goes on.`,
  delete: `Usage: tempmail-tui delete ID [--address A] [--json]

Deletes one message of the newest saved address (or A) at its provider.`,
  forget: `Usage: tempmail-tui forget [--address A] [--delete-account] [--json]

Forgets the newest saved address (or A): list, read, wait and the app no longer offer it.
  --delete-account      also delete it at the provider first (mail.tm: the account and its mail;
                        Guerrilla Mail: ends the session); without it the address lives on there`,
  providers: `Usage: tempmail-tui providers [--check] [--json]

Lists the providers: "name<TAB>base URL<TAB>offline yes|no<TAB>what to know" lines.
  --check               ask each provider of providerOrder now (one cheap call each, within its rate):
                        "name<TAB>base URL<TAB>verdict<TAB>latency[<TAB>what it said]", the verdict
                        ok, rate-limited, blocked, down or not this kind of service; exit 0 when at
                        least one is ok, 1 when none is`,
};

/**
 * Runs a scripting command; resolves to its exit code. Never throws, never prints a stack. Whatever the
 * command left in flight when it ended (a request its timeout gave up on, a stream, a wait before a
 * request) is cancelled then, so the process exits with its result (issue 37.1).
 */
export async function runScript(command: string, args: string[], given: ScriptIo = processIo()): Promise<number> {
  if (!isScriptCommand(command)) {
    given.stderr.write(`tempmail-tui: unknown command ${safeLine(JSON.stringify(command), 60)}\n`);
    return EXIT.usage;
  }
  if (args.includes('--help') || args.includes('-h')) {
    // Fitted to the terminal (io.columns is set on one), else to 80 columns.
    given.stdout.write(fitHelp(`${HELP[command]}\n\n${COMMON_HELP}\n`, given.columns ?? HELP_WIDTH));
    return EXIT.ok;
  }
  const done = new AbortController();
  // The local service, opened at most once a command, and closed (when this process runs it) at its end.
  let local: Promise<LocalEndpoint> | undefined;
  const openLocal = given.openLocal;
  const io: ScriptIo = {
    ...given,
    signal: given.signal ? AbortSignal.any([given.signal, done.signal]) : done.signal,
    openLocal: openLocal && (() => (local ??= openLocal())),
  };
  try {
    return await runCommand(command, args, io);
  } catch (error) {
    const { message, code } = describe(error, command);
    io.stderr.write(`tempmail-tui ${command}: ${message}\n`);
    return code;
  } finally {
    done.abort();
    await (await local?.catch(() => undefined))?.close();
  }
}

async function runCommand(command: ScriptCommand, args: string[], io: ScriptIo): Promise<number> {
  switch (command) {
    case 'new':
      return await runNew(args, io);
    case 'domains':
      return await runDomains(args, io);
    case 'list':
      return await runList(args, io);
    case 'read':
      return await runRead(args, io);
    case 'wait':
      return await runWait(args, io);
    case 'delete':
      return await runDelete(args, io);
    case 'forget':
      return await runForget(args, io);
    case 'providers':
      return await runProviders(args, io);
  }
}

const PROVIDER_TROUBLE: ReadonlySet<string> = new Set([
  'network',
  'timeout',
  'rate_limited',
  'service',
  'bad_response',
]);

// Errors become one line and an exit code. ApiError and ConfigError messages are written to be shown
// (token-free, terminal-safe); anything unexpected shows its message only, never its stack.
function describe(error: unknown, command: string): { message: string; code: number } {
  if (error instanceof ScriptError) {
    const message = error.message.startsWith(`${command}: `) ? error.message.slice(command.length + 2) : error.message;
    const hint =
      error.exitCode === EXIT.usage && !message.startsWith('no service') ? ` (see tempmail-tui ${command} --help)` : '';
    return { message: safeLine(message, 500) + hint, code: error.exitCode };
  }
  if (error instanceof ConfigError) return { message: safeLine(error.message, 500), code: EXIT.usage };
  if (isApiError(error)) {
    // The wait a 429 asked for is in its details; a script (or its user) wants to know it.
    const wait = error.kind === 'rate_limited' ? error.details.retryAfterSeconds : undefined;
    const after = wait !== undefined ? `; try again in ${Math.ceil(wait)} s` : '';
    // A provider that is down, blocked or limiting: a new address can come from another one.
    const elsewhere =
      (command === 'new' || command === 'domains') && PROVIDER_TROUBLE.has(error.kind)
        ? '; or try another provider (tempmail-tui providers)'
        : '';
    return { message: safeLine(error.message, 500) + after + elsewhere, code: EXIT.failed };
  }
  if (error instanceof SecureFileError) return { message: safeLine(error.message, 500), code: EXIT.failed };
  const text = error instanceof Error ? error.message : String(error);
  return { message: `unexpected error: ${safeLine(text, 300)}`, code: EXIT.failed };
}
