/** Argument parsing for the scripting commands: node:util parseArgs, with short, safe usage errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { describeArgsError } from '../text/args-error';
import { safeLine } from '../text/safe-text';
import type { ScriptCommand } from './commands-list';
import { UsageError } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every scripting command accepts. */
export const COMMON_OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'server-tz': { type: 'string' },
  'post-encoding': { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

const address = { type: 'string' } as const;

/**
 * What each command takes beyond COMMON_OPTIONS; anything else is an unknown option (exit 2), so a flag
 * that would do nothing is refused rather than silently ignored. Each command's --help lists these.
 */
export const COMMAND_OPTIONS = {
  // Only `new` prints a token, so only `new` takes --show-token.
  new: {
    prefix: { type: 'string' },
    domain: { type: 'string' },
    extmail: { type: 'boolean' },
    account: { type: 'string' },
    'show-token': { type: 'boolean' },
  },
  domains: {},
  list: { address },
  read: { address },
  delete: { address },
  forget: { address, 'delete-account': { type: 'boolean' } },
  providers: { check: { type: 'boolean' } },
  wait: {
    address,
    from: { type: 'string' },
    subject: { type: 'string' },
    timeout: { type: 'string' },
    print: { type: 'string' },
    interval: { type: 'string' },
    existing: { type: 'boolean' },
  },
} as const satisfies Record<ScriptCommand, Options>;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `args` against COMMON_OPTIONS plus the command's own; throws UsageError for anything unknown or malformed. */
export function parseCommandArgs(command: ScriptCommand, args: string[], maxPositionals = 0): Parsed {
  let parsed: Parsed;
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...COMMON_OPTIONS, ...COMMAND_OPTIONS[command] },
      allowPositionals: true,
      strict: true,
    });
    parsed = { values: values as Parsed['values'], positionals };
  } catch (error) {
    throw new UsageError(`${command}: ${describeArgsError(error)}`);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${command}: unexpected argument ${show(parsed.positionals[maxPositionals]!)}`);
  }
  return parsed;
}

/** The value of a string option, or undefined. */
export function str(parsed: Parsed, name: string): string | undefined {
  const v = parsed.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** True when a boolean option was given. */
export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}

/** A number of seconds >= min from an option; throws UsageError naming the option otherwise. */
export function seconds(command: string, parsed: Parsed, name: string, fallback: number, min: number): number {
  const raw = str(parsed, name);
  if (raw === undefined) return fallback;
  const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value < min) {
    throw new UsageError(`${command}: --${name} must be a number of seconds >= ${min}, got ${show(raw)}`);
  }
  return value;
}

/** A user-typed value, quoted and made safe to echo in a message. */
export function show(value: string): string {
  return safeLine(JSON.stringify(value), 80);
}
