/**
 * Local mode: with no service configured, the app runs the reference service in-process on loopback
 * (HTTP on any free port, SMTP on 2525 or the next free port up to 2535, else any), with its data in
 * the default XDG data directory so addresses and mail survive a restart.
 */
import { createServer } from 'node:net';
import type { LocalServiceInfo } from './types';

export interface LocalService extends LocalServiceInfo {
  httpUrl: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
/** SMTP ports tried in order; 0 (any free port) is the last resort. */
export const SMTP_PORTS = [2525, 2526, 2527, 2528, 2529, 2530, 2531, 2532, 2533, 2534, 2535, 0];

/** True when nothing listens on `port` (probed by listening briefly). */
export function portFree(port: number, host = HOST): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** Starts the reference service for the app; `env` picks the data directory (XDG, TEMPMAIL_TUI_HOME). */
export async function startLocalService(env: NodeJS.ProcessEnv = process.env, ports = SMTP_PORTS): Promise<LocalService> {
  // Imported here, not at the top: a run against a remote service never loads the server code.
  const { startServer } = await import('../server/assemble');
  const { defaultServerConfig } = await import('../server/config');
  const base = { ...defaultServerConfig(env), host: HOST, httpPort: 0 };
  let lastError: unknown;
  for (const smtpPort of ports) {
    if (!(await portFree(smtpPort))) continue;
    try {
      // Silent: a log line written while Ink draws would tear the screen.
      const server = await startServer({ ...base, smtpPort }, { log: () => undefined });
      return { httpUrl: server.httpUrl, smtpHost: server.smtpHost, smtpPort: server.smtpPort, close: () => server.close() };
    } catch (error) {
      // Taken between the probe and the listen: try the next port; anything else is fatal.
      if (!(error instanceof Error && /already in use/.test(error.message))) throw error;
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error('no free SMTP port for the local service');
}
