/**
 * Loopback ports for tests that need one with nothing behind it: "the service is down" (and later "it came
 * back" on the same port). Bound on port 0, then closed: free a moment ago, so nothing answers there.
 */
import { createServer } from 'node:net';

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
