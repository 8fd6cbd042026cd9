/**
 * One wording for command-line mistakes, shared by the app, the scripting commands and `serve`:
 * node:util parseArgs explains how to pass positionals that start with "-" and suggests `--`, which is
 * not what a user who mistyped a flag needs. Ours names the option and says what to do.
 */
import { safeLine } from './safe-text';

/** A parseArgs error as one short line ("unknown option --x", "option --y needs a value", ...). */
export function describeArgsError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  const option = /'([^']+)'/.exec(message)?.[1]?.replace(/ <value>$/, '');
  const name = option ? safeLine(option, 60) : 'an option';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${name}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(message)) return `option ${name} needs a value`;
      // A value starting with "-" (`--server-tz -05:00`) could be the next option, so node refuses it.
      if (/ambiguous/.test(message))
        return `option ${name} needs a value; write one that starts with "-" as ${name}=-VALUE`;
      return `option ${name} takes no value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${name}`;
    default:
      return safeLine(message, 200);
  }
}
