/**
 * The app's command line: flags, settings, help. Kept free of React and Ink (type imports aside) so
 * `--help`, `--version` and bad flags answer at bare-Node speed; the app itself is imported only when
 * it is about to run.
 */
import { parseArgs } from 'node:util';
import { describeArgsError } from '../../text/args-error';
import { ConfigError, loadSettings, type Settings } from '../../state/app-config';
import { appPaths } from '../../state/paths';
import { safeLine } from '../../text/safe-text';
import { fitHelp, helpWidth } from '../../text/help-wrap';
import { scriptCommandsHelp } from '../../scripting/commands-list';
import type { CliIo } from './shell-types';
import { answerDeadline, queryGraphemeClustering } from '../terminal/grapheme-query';

const OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'poll-interval': { type: 'string' },
  'no-bell': { type: 'boolean' },
  'server-tz': { type: 'string' },
  'post-encoding': { type: 'string' },
  'download-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** The --help text. */
export function helpText(version: string, configDir: string): string {
  return `tempmail-tui ${version}: a temporary email address in your terminal

Usage:
  tempmail-tui [options]          the app: pick an address, watch the inbox, read mail
  tempmail-tui serve [options]    run the reference service (tempmail-tui serve --help)
  tempmail-tui admin COMMAND      drive a service's admin API (tempmail-tui admin --help)

Scripting (no UI: data on stdout, messages on stderr; each takes --help):
${scriptCommandsHelp()}

Options:
  --provider NAME      where new addresses are made: tempmail, mailtm, guerrilla, tempmaillol, or
                       auto (the first of providerOrder that answers; also TEMPMAIL_PROVIDER or
                       "provider" in the config file); mailtm, tempmaillol and guerrilla are public
                       inboxes any website can mail (\`tempmail-tui providers --check\` tries them)
  --base-url URL       the provider's address (also TEMPMAIL_BASE_URL or "baseUrl" in the config
                       file): a service of the interface for tempmail (default https://mailtemp.us/api),
                       another host of the same API for the others (mailtm: https://api.mail.gw);
                       with neither option, the reference service runs in-process on 127.0.0.1 and
                       only mail sent from this machine arrives (SMTP 127.0.0.1:2525 or the next
                       free port); p in the picker switches to a public provider
  --poll-interval S    seconds between inbox checks (default 5, at least 1)
  --no-bell            no terminal bell on new mail
  --server-tz TZ       the service's time zone for its times: UTC (default), +02:00, Europe/Berlin
  --post-encoding E    how POST parameters are sent: form (default), json or query
  --download-dir DIR   where \`a\` saves attachments (default ~/Downloads)
  -h, --help           this help
  -V, --version        the version

Config file: ${configDir}/config.json (keys provider, baseUrl, pollIntervalSeconds, bell, serverTz,
postEncoding, downloadDir, providers, providerOrder). Environment: TEMPMAIL_PROVIDER, TEMPMAIL_BASE_URL,
TEMPMAIL_POLL_INTERVAL, TEMPMAIL_BELL, TEMPMAIL_SERVER_TZ, TEMPMAIL_POST_ENCODING, TEMPMAIL_DOWNLOAD_DIR,
TEMPMAIL_TEMPMAILLOL_KEY; NO_COLOR turns colours off; TEMPMAIL_TERMINAL_ANSWER_MS how long to wait at start
for the terminal's answer on emoji widths (250; 0 never asks). Flags beat the environment,
which beats the file. Every address you create is saved; the picker offers the live ones first.

Keys: j/k or arrows move, Enter opens, d deletes (asks), r checks now, n new address, c copies it,
s switches between saved addresses, x forgets one, p (picker) the next provider, / filters, ? lists
every key of the screen, q quits.
In a message: y copies the code (or the picked link), 1-9 pick a link, o opens it, a saves an
attachment, Esc or q goes back.

Exit status: 0 done, 1 error, 2 bad usage or setting.
`;
}

/** Parses flags into settings; a usage or setting problem becomes a message (exit 2). */
export function parseAppArgs(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { help?: true; version?: true; settings?: Settings; error?: string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { error: describeArgsError(error) };
  }
  if (values.help) return { help: true };
  if (values.version) return { version: true };
  try {
    const settings = loadSettings({
      flags: {
        provider: values.provider as string | undefined,
        baseUrl: values['base-url'] as string | undefined,
        pollInterval: values['poll-interval'] as string | undefined,
        bell: values['no-bell'] ? false : undefined,
        serverTz: values['server-tz'] as string | undefined,
        postEncoding: values['post-encoding'] as string | undefined,
        downloadDir: values['download-dir'] as string | undefined,
      },
      env,
      paths: appPaths(env),
    });
    return { settings };
  } catch (error) {
    if (error instanceof ConfigError) return { error: safeLine(error.message, 400) };
    throw error;
  }
}

/** Runs the app CLI; resolves with the exit status. */
export async function runAppCli(argv: string[], version: string, io?: Partial<CliIo>): Promise<number> {
  const out: CliIo = {
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
    stdin: io?.stdin ?? process.stdin,
    env: io?.env ?? process.env,
  };
  const parsed = parseAppArgs(argv, out.env);
  if (parsed.error !== undefined) {
    out.stderr.write(`tempmail-tui: ${parsed.error}\nTry 'tempmail-tui --help'.\n`);
    return 2;
  }
  if (parsed.help) {
    out.stdout.write(fitHelp(helpText(version, appPaths(out.env).config), helpWidth(out.stdout)));
    return 0;
  }
  if (parsed.version) {
    out.stdout.write(`${version}\n`);
    return 0;
  }
  if (!out.stdin.isTTY || !out.stdout.isTTY) {
    out.stderr.write('tempmail-tui: the app needs an interactive terminal (stdin and stdout must be a TTY)\n');
    return 2;
  }
  // The terminal is asked whether it clusters graphemes (for the cell widths), the service for its
  // domains, then the UI loads: the answers travel while Ink and React load.
  const graphemes = queryGraphemeClustering(out.stdin, out.stdout, answerDeadline(out.env));
  const { connectService } = await import('./app-service');
  const service = await connectService(parsed.settings!, out.env);
  if ('error' in service) {
    await graphemes;
    out.stderr.write(`tempmail-tui: ${service.error}\n`);
    return 1;
  }
  const { loadWithoutFetch } = await import('./load-ui');
  const { runApp } = await loadWithoutFetch(() => import('./run-app'));
  return runApp({ settings: parsed.settings!, io: out, service, graphemes });
}
