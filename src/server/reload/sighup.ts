/**
 * SIGHUP for `serve`: the configuration is built again from the same flags, the environment and the
 * config file as it is now, and put in effect (apply-config.ts); what changed is logged, one line. A file
 * that does not parse or check out, or a certificate or admin token that does not, is refused whole: the
 * running configuration stays, and the log says why. With nothing to read again (no config file, no
 * certificate, no admin token file) SIGHUP keeps its meaning of "your terminal is gone": serve stops.
 */
import { buildServerConfig, UsageError, type ServeFlags } from '../serve-config';
import type { ServerConfig } from '../server-config';
import type { RunningServer } from '../assemble';
import { ReloadError } from './apply-config';

/** Whether SIGHUP reloads (else it stops serve, as when its terminal closes). */
export function hangupReloads(flags: ServeFlags, config: ServerConfig): boolean {
  return flags.config !== undefined || config.tlsCertFile !== undefined || config.adminTokenFile !== undefined;
}

const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reads the configuration again and puts it in effect on `running`. What is refused (a file that does not
 * check out, a certificate or token) is logged here; anything else rejects (serve-cli.ts logs it).
 */
export async function reloadConfig(running: RunningServer, flags: ServeFlags, log: (line: string) => void): Promise<void> {
  let next: ServerConfig;
  try {
    next = buildServerConfig(flags, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`SIGHUP: kept the config in use: ${text(error)}`);
    return;
  }
  try {
    const report = await running.applyConfig(next);
    if (report.tls !== undefined) log(`SIGHUP: STARTTLS now offers ${report.tls}`);
    log(`SIGHUP: config reloaded: ${report.changed.length > 0 ? report.changed.join('; ') : 'nothing else changed'}`);
    for (const what of report.restart) log(`SIGHUP: ${what} changed; that takes a restart (the running value stays)`);
  } catch (error) {
    // Refused whole: the rest of the new config is not put in effect either.
    if (error instanceof ReloadError) log(`SIGHUP: kept the ${error.part} in use: ${error.message}`);
    else log(`SIGHUP: kept the config in use: ${text(error)}`);
  }
}
