/**
 * Starts the SSH front for a running service (assemble.ts calls it when `sshPort` is set): the data's
 * place (ssh-kv.ts), the host key, the listener. A start error is one line naming what to fix.
 */
import type { Logger } from '../observe/log';
import type { ServerConfig } from '../config/server-config';
import { loadHostKey } from './host-key';
import { createSshFront, type SshFront } from './ssh-front';
import { openSshKv } from './ssh-kv';

export interface RunningSsh {
  host: string;
  port: number;
  /** "SHA256:..." */
  fingerprint: string;
  /** "ssh-ed25519 AAAA..." */
  publicKey: string;
  front: SshFront;
}

/** The loopback URL of the HTTP API listening on `host`:`port` (every interface: its loopback). */
export function loopbackUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}/`;
  if (host === '::') return `http://[::1]:${port}/`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
}

export async function startSsh(
  config: ServerConfig,
  http: { host: string; port: number },
  log: Logger,
  blocked: (ip: string) => string | undefined,
): Promise<RunningSsh> {
  const host = config.sshHost ?? config.host;
  const port = config.sshPort ?? 2222;
  const kv = await openSshKv(config, log);
  let front: SshFront;
  try {
    const hostKey = await loadHostKey(config.sshHostKeyFile, kv);
    front = createSshFront({
      hostKey,
      kv,
      apiUrl: loopbackUrl(http.host, http.port),
      log,
      blocked,
      idleTimeoutMs: config.sshIdleTimeoutMs ?? 30 * 60_000,
      handshakeTimeoutMs: config.sshHandshakeTimeoutMs,
      authTimeoutMs: config.sshAuthTimeoutMs,
      limits: {
        maxConnections: config.sshMaxConnections ?? 100,
        connectionsPerClient: config.sshConnectionsPerClient ?? 10,
        sessionsPerKey: config.sshSessionsPerKey ?? 5,
      },
    });
    const listening = await front.listen(port, host).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        code === 'EADDRINUSE'
          ? `SSH port ${port} on ${host} is already in use (try another port, or 0 for any free one)`
          : code === 'EACCES'
            ? `SSH port ${port} on ${host} needs privileges (see docs/server/ssh.md)`
            : `SSH could not listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return { host, port: listening, fingerprint: hostKey.fingerprint, publicKey: hostKey.publicLine, front };
  } catch (error) {
    await kv.close().catch(() => undefined);
    throw error;
  }
}
