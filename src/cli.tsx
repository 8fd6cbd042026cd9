/**
 * Entry point of the one binary: `tempmail-tui serve ...` runs the reference service, the scripting
 * subcommands run without a UI, anything else starts the terminal app. Subcommands are imported
 * lazily so `--help` and `--version` answer without loading React or the server.
 */
// The list alone (a module with no imports), so dispatch loads nothing it does not run.
import { isScriptCommand } from './scripting/commands-list';

declare const __VERSION__: string;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') {
    const { runServe } = await import('./server/serve-cli');
    return runServe(rest);
  }
  if (command !== undefined && isScriptCommand(command)) {
    const { runScript } = await import('./scripting/index');
    return runScript(command, rest);
  }
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${__VERSION__}\n`);
    return 0;
  }
  const { runAppCli } = await import('./tui/app-cli');
  return runAppCli(argv, __VERSION__);
}

main(process.argv.slice(2)).then(
  (code) => {
    // A long-running command (serve, the app) resolves only when it is done.
    process.exitCode = code;
  },
  (error: unknown) => {
    // Never a stack trace for the user: one readable line. The token never reaches error text.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tempmail-tui: ${message}\n`);
    process.exitCode = 1;
  },
);
