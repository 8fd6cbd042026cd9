/**
 * A loopback TCP gate in front of a real service: while shut, every connection is reset at once (the
 * service "is down" for its clients, while its SMTP side still takes mail), and connections already
 * through are cut; opened, bytes pass both ways unchanged. Lets a test decide exactly when a client's first request gets through.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface Gate {
  /** http://127.0.0.1:<port>/ of the gate, for a client's base URL. */
  url: string;
  open(): void;
  shut(): void;
  /** From now on every new connection is taken and left (never passed on, never answered); those through are cut. */
  hold(): void;
  /** Connections taken while holding. */
  held(): number;
  /** Connections reset while shut: proof that a client tried. */
  refused(): number;
  close(): Promise<void>;
}

/** A gate to `target` (an http://host:port/ URL), shut at first. */
export async function startGate(target: string): Promise<Gate> {
  const { hostname, port } = new URL(target);
  let isOpen = false;
  let holding = false;
  let refused = 0;
  let held = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (holding) {
      held += 1;
      return;
    }
    if (!isOpen) {
      refused += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/`,
    open: () => {
      isOpen = true;
      holding = false;
    },
    // Connections already through are cut, as by shut: a kept-alive one must not pass by the hold.
    hold: () => {
      holding = true;
      for (const s of sockets) s.destroy();
    },
    held: () => held,
    // Connections already through (a kept-alive one) are cut too: shut means nothing gets through.
    shut: () => {
      isOpen = false;
      holding = false;
      for (const s of sockets) s.destroy();
    },
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
