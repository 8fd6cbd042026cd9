/**
 * The names of the scripting subcommands, in one place with no imports: src/cli.tsx dispatches on it
 * before loading any scripting code, and src/scripting/index.ts answers to the same names.
 */

/** Names `runScript` answers to; the CLI sends these there and everything else to the app. */
export const SCRIPT_COMMANDS = ['new', 'domains', 'list', 'read', 'wait'] as const;

/** One of SCRIPT_COMMANDS. */
export type ScriptCommand = (typeof SCRIPT_COMMANDS)[number];

/** True for the names in SCRIPT_COMMANDS. */
export function isScriptCommand(command: string): command is ScriptCommand {
  return (SCRIPT_COMMANDS as readonly string[]).includes(command);
}
