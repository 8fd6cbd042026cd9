/**
 * SIGHUP for `serve`: the configuration is built again from the same flags, the environment and the
 * config file as it is now, and put in effect (apply-config.ts); what changed is logged, one line. A file
 * that does not parse or check out, or a certificate or admin token that does not, is refused whole: the
 * running configuration stays, and the log says why. With nothing to read again (no config file, no
 * certificate, no admin token file) SIGHUP keeps its meaning of "your terminal is gone": serve stops.
 */
import { buildServerConfig, UsageError, type ServeFlags } from '../config/serve-config';
import type { ServerConfig } from '../config/server-config';
import type { RunningServer } from '../serve/assemble';
import { ReloadError, type ReloadReport } from './apply-config';
import type { Logger } from '../observe/log';

/** Whether SIGHUP reloads (else it stops serve, as when its terminal closes). */
export function hangupReloads(flags: ServeFlags, config: ServerConfig): boolean {
  return flags.config !== undefined || config.tlsCertFile !== undefined || config.adminTokenFile !== undefined;
}

const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reads the configuration again and puts it in effect on `running`. What is refused (a file that does not
 * check out, a certificate or token) is logged here, a warning; anything else that fails is an error
 * line. Each reload is counted by its result (tempmail_reloads_total). Never rejects.
 */
export async function reloadConfig(running: RunningServer, flags: ServeFlags, log: Logger): Promise<void> {
  try {
    await reload(running, flags, log);
  } catch (error) {
    // Not a refusal of what was read: something broke on the way (an error line, and the reload counted as failed).
    const why = text(error);
    running.ops.observer.reload('failed');
    log.event({
      level: 'error',
      event: 'reload.failed',
      text: `SIGHUP: reload failed: ${why}`,
      jsonFields: { reason: why },
      fold: false,
    });
  }
}

async function reload(running: RunningServer, flags: ServeFlags, log: Logger): Promise<void> {
  const refused = (part: string, why: string) => {
    running.ops.observer.reload('refused');
    log.event({
      level: 'warn',
      event: 'reload.refused',
      text: `SIGHUP: kept the ${part} in use: ${why}`,
      jsonFields: { reason: why, part },
      fold: false,
    });
  };
  let next: ServerConfig;
  try {
    next = buildServerConfig(flags, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refused('config', text(error));
  }
  let report: ReloadReport;
  try {
    report = await running.applyConfig(next);
  } catch (error) {
    // Refused whole: the rest of the new config is not put in effect either.
    return refused(error instanceof ReloadError ? error.part : 'config', text(error));
  }
  running.ops.observer.reload('ok');
  if (report.tls !== undefined)
    log.event({ level: 'info', event: 'reload.tls', text: `SIGHUP: STARTTLS now offers ${report.tls}` });
  const changed = report.changed.length > 0 ? report.changed.join('; ') : 'nothing else changed';
  log.event({ level: 'info', event: 'reload.done', text: `SIGHUP: config reloaded: ${changed}` });
  for (const what of report.restart) {
    log.event({
      level: 'warn',
      event: 'reload.needs_restart',
      text: `SIGHUP: ${what} changed; that takes a restart (the running value stays)`,
      jsonFields: { setting: what },
      fold: false,
    });
  }
}
