/**
 * The app's command line. Until the terminal app lands, running without a subcommand starts the
 * reference service with its defaults, so `npm install && npm start` already shows something real.
 */
export async function runAppCli(argv: string[], version: string): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`tempmail-tui ${version}\n\nUsage:\n  tempmail-tui serve [options]   run the reference service (see --help there)\n`);
    return 0;
  }
  const { runServe } = await import('../server/serve-cli');
  return runServe(argv);
}
