/**
 * A port for a test service that stops and comes back on the same port. A port the kernel handed out for
 * `listen(0)` comes from its ephemeral range, so once the service stops, any other test running at the
 * same time can be handed that very port for its own server: a client that should meet "connection
 * refused" then meets an SMTP greeting ("does not speak HTTP"; seen in a full run). Ports below the
 * ephemeral range are never handed out that way.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The low end of the kernel's ephemeral range (32768 when it cannot be read). */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && low! > 12_000 ? low! : 32_768;
  } catch {
    return 32_768;
  }
}

const tryListen = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });

/** A free port on `host` below the ephemeral range, picked at random (10,000 up to it). */
export async function restartablePort(host = '127.0.0.1'): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow();
  for (let i = 0; i < 200; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await tryListen(port, host)) return port;
  }
  throw new Error('no free port below the ephemeral range');
}
