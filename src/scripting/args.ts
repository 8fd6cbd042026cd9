/** Argument parsing for the scripting commands: node:util parseArgs, with short, safe usage errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { safeLine } from '../core/safe-text';
import { UsageError } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every scripting command accepts. */
export const COMMON_OPTIONS = {
  'base-url': { type: 'string' },
  'server-tz': { type: 'string' },
  'post-encoding': { type: 'string' },
  json: { type: 'boolean' },
  'show-token': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `args` against COMMON_OPTIONS plus `options`; throws UsageError for anything unknown or malformed. */
export function parseCommandArgs(command: string, args: string[], options: Options, maxPositionals = 0): Parsed {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${describeParseError(error)}`);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${command}: unexpected argument ${show(parsed.positionals[maxPositionals]!)}`);
  }
  return { values: parsed.values as Parsed['values'], positionals: parsed.positionals };
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

// node's messages are long and suggest `--`; ours name the option and stop.
function describeParseError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const option = /'([^']+)'/.exec(e.message ?? '')?.[1]?.replace(/ <value>$/, '');
  const name = option ? safeLine(option, 60) : 'an option';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${name}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(e.message ?? '')) return `option ${name} needs a value`;
      // A value starting with "-" (`--server-tz -05:00`) could be the next option, so node refuses it.
      if (/ambiguous/.test(e.message ?? '')) return `option ${name} needs a value; write one that starts with "-" as ${name}=-VALUE`;
      return `option ${name} takes no value`;
    default:
      return safeLine(e.message ?? 'bad arguments', 200);
  }
}
