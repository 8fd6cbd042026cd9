/**
 * A server program from a Debian package (nginx, haproxy) run in the foreground for one test: killed
 * after it, its stderr kept (the last 4 KB, for a failure's message), and ready once its loopback port
 * takes a connection (nothing is sent through it before then).
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import type { Cleanup } from './cleanup';
import { waitFor } from './wait';

/** Starts `bin args`, waits until 127.0.0.1:`port` accepts, and returns its stderr so far on demand. */
export async function startDaemon(
  cleanup: Cleanup,
  bin: string,
  args: string[],
  port: number,
): Promise<{ stderr(): string }> {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4096)));
  cleanup.defer(child, (c) => {
    c.kill('SIGKILL');
    return new Promise((resolve) => (c.exitCode !== null ? resolve(undefined) : c.once('exit', resolve)));
  });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const probe = net.connect(port, '127.0.0.1', () => {
          probe.destroy();
          resolve(true);
        });
        probe.on('error', () => resolve(false));
      }),
    { message: `${bin} to listen on ${port} (${stderr})` },
  );
  return { stderr: () => stderr };
}
