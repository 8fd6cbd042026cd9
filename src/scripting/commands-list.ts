/**
 * The names of the scripting subcommands, in one place with no imports: src/cli.tsx dispatches on it
 * before loading any scripting code, and src/scripting/index.ts answers to the same names.
 */

/** Names `runScript` answers to; the CLI sends these there and everything else to the app. */
export const SCRIPT_COMMANDS = ['new', 'domains', 'list', 'read', 'wait', 'delete', 'forget', 'providers'] as const;

/** One of SCRIPT_COMMANDS. */
export type ScriptCommand = (typeof SCRIPT_COMMANDS)[number];

/** True for the names in SCRIPT_COMMANDS. */
export function isScriptCommand(command: string): command is ScriptCommand {
  return (SCRIPT_COMMANDS as readonly string[]).includes(command);
}

// One line each for the top-level --help; a Record, so a new command without a line fails to compile.
const SUMMARIES: Record<ScriptCommand, [usage: string, summary: string]> = {
  new: ['new', 'create and save an address, print it (--provider mailtm: a public inbox)'],
  domains: ['domains', "list the provider's domains and external mail accounts"],
  list: ['list', 'list the messages of the newest saved address (or --address A)'],
  read: ['read ID', 'print one message with its code and link'],
  wait: ['wait', 'wait for a new message; print its code, link, text or JSON'],
  delete: ['delete ID', 'delete one message'],
  forget: ['forget', 'forget a saved address (--delete-account: delete it at the provider too)'],
  providers: ['providers', 'list the providers, their base URLs and whether each works offline'],
};

/** The scripting commands block of the top-level --help, one indented "tempmail-tui CMD  summary" line each. */
export function scriptCommandsHelp(): string {
  return SCRIPT_COMMANDS.map((c) => `  ${`tempmail-tui ${SUMMARIES[c][0]}`.padEnd(30)}  ${SUMMARIES[c][1]}`).join('\n');
}
