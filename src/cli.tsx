/**
 * Entry point of the one binary: `tempmail-tui serve ...` runs the reference service, `admin ...` drives
 * its admin API, the scripting subcommands run without a UI, anything else starts the terminal app. Subcommands are imported
 * lazily so `--help` and `--version` answer without loading React or the server.
 */
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { appPaths } from './state/paths';
// The list alone (a module with no imports), so dispatch loads nothing it does not run.
import { isScriptCommand } from './scripting/commands-list';
// The terminal-safe boundary has no imports of its own: the catch-all below needs it for any error.
import { safeLine } from './text/safe-text';
import { VERSION } from './platform/version';

// Node keeps the code it compiled from our bundle on disk and reuses it at the next start, as long as
// the files are unchanged (docs/performance.md: ~10% of the instructions to the app's first frame).
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; a cache that cannot be written is simply not used.
enableCompileCache(join(appPaths().cache, 'compile'));

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve' && rest[0] === 'migrate') {
    const { runMigrate } = await import('./server/serve/migrate-cli');
    return runMigrate(rest.slice(1));
  }
  if (command === 'serve') {
    const { runServe } = await import('./server/serve/serve-cli');
    return runServe(rest);
  }
  if (command === 'admin') {
    const { runAdmin } = await import('./scripting/admin/admin-command');
    return runAdmin(rest);
  }
  if (command !== undefined && isScriptCommand(command)) {
    const { runScript, processIo } = await import('./scripting/index');
    // The app's local service, found running or started as the app starts it, for its saved addresses.
    const openLocal = async () => (await import('./tui/shell/local-service')).startLocalService(process.env);
    return runScript(command, rest, { ...processIo(), openLocal });
  }
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { runAppCli } = await import('./tui/shell/app-cli');
  return runAppCli(argv, VERSION);
}

main(process.argv.slice(2)).then(
  (code) => {
    // A long-running command (serve, the app) resolves only when it is done.
    process.exitCode = code;
  },
  (error: unknown) => {
    // Never a stack trace for the user: one readable line. The token never reaches error text.
    // The message can hold anything an error quoted (a path, a value, text from the network): it is
    // made terminal-safe like every other line we write.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tempmail-tui: ${safeLine(message, 500)}\n`);
    process.exitCode = 1;
  },
);
