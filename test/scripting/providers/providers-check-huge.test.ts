/**
 * Issue 36 ("also found"): `providers --check` kept up to 64 MiB of each probe's answer (518 MB of memory
 * against three hostile providers) where a probe needs a few KB. A probe now reads 64 KiB at most: past
 * it the request ends and the provider fails, saying why. Here a provider streams a JSON array without
 * end; the bytes it got to send before the client closed are counted on its side.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { makeRunner, type Runner } from '../run';

let server: Server;
let baseUrl: string;
let sent = 0;
let closed = 0;
let r: Runner;

beforeAll(async () => {
  const chunk = Buffer.from(`${'"padding",'.repeat(1_600)}`);
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    let open = true;
    const more = () => {
      // Written as fast as the client reads, up to 256 MiB.
      while (open && sent < 256 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
    };
    res.on('close', () => {
      open = false;
      closed++;
    });
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  r = makeRunner();
  mkdirSync(join(r.home, 'config'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(r.home, 'config', 'config.json'),
    JSON.stringify({ providers: { mailtm: { baseUrl } }, providerOrder: ['mailtm'] }),
    { mode: 0o600 },
  );
});
afterAll(async () => {
  r.cleanup();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('a provider streaming an endless answer fails the check at 64 KiB, saying so, and the request is ended there', async () => {
  const res = await r.run('providers', ['--check']);
  expect(res.code).toBe(1);
  const [row] = res.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));
  expect([row![0], row![2]]).toEqual(['mailtm', 'not this kind of service']);
  expect(row![4]).toBe('The service sent an unexpected answer (answer larger than 64 KiB)');
  await waitFor(() => closed === 1, { message: 'the server to see the client close' });
  // What the server wrote before the client closed: 64 KiB read, plus what the sockets' buffers held
  // (a few MiB on loopback). It was 64 MiB and more before.
  expect(sent).toBeLessThan(16 * 1024 * 1024);
});
