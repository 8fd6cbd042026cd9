/**
 * Issue 36, point 8: `new --provider auto` with providers that take the request and trickle their answer
 * a byte at a time. Each provider's try is bounded (AUTO_TRY_MS, 8 s, every request of it ended then)
 * and the provider being tried is named on stderr; before, each trickling provider cost ~25 s (its
 * requests' timeouts and retries) with nothing said, 73 s for three.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';
import { makeRunner, type Runner } from '../run';

/** A provider that answers 200 and then one space every 200 ms, for ever: each request it was sent. */
async function startTrickler(): Promise<{
  baseUrl: string;
  requests: string[];
  open: () => number;
  close: () => Promise<void>;
}> {
  const requests: string[] = [];
  const live = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    live.add(res);
    const drip = setInterval(() => res.write(' '), 200);
    res.on('close', () => {
      clearInterval(drip);
      live.delete(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    requests,
    open: () => live.size,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let slowMailtm: Awaited<ReturnType<typeof startTrickler>>;
let slowLol: Awaited<ReturnType<typeof startTrickler>>;
let guerrilla: GuerrillaFake;
let r: Runner;

beforeAll(async () => {
  slowMailtm = await startTrickler();
  slowLol = await startTrickler();
  guerrilla = await startGuerrillaFake();
  r = makeRunner();
  mkdirSync(join(r.home, 'config'), { recursive: true, mode: 0o700 });
  const providers = {
    mailtm: { baseUrl: slowMailtm.baseUrl },
    tempmaillol: { baseUrl: slowLol.baseUrl },
    guerrilla: { baseUrl: guerrilla.baseUrl },
  };
  writeFileSync(
    join(r.home, 'config', 'config.json'),
    JSON.stringify({ providers, providerOrder: ['mailtm', 'tempmaillol', 'guerrilla'] }),
    { mode: 0o600 },
  );
});
afterAll(async () => {
  r.cleanup();
  await Promise.all([slowMailtm.close(), slowLol.close(), guerrilla.close()]);
});

// Two tries of 8 s and Guerrilla's answer: far below the ~50 s two trickling providers took before.
it('passes two trickling providers within their deadlines, naming each as it is tried, and makes the address on the third', async () => {
  const made = await r.run('new', ['--provider', 'auto']);
  expect(made.code, made.stderr).toBe(0);
  expect(made.stdout.trim()).toMatch(/@guerrillamail\.com$/);
  const lines = made.stderr.trimEnd().split('\n');
  expect(lines[0]).toBe('trying mail.tm');
  expect(lines[1]).toBe('mail.tm: did not answer in 8 s; trying TempMail.lol');
  expect(lines[2]).toBe('TempMail.lol: did not answer in 8 s; trying Guerrilla Mail');
  expect(lines[3]).toMatch(/^Saved .* on Guerrilla Mail; expires in/);
  // Each slow provider was asked, and its requests were ended at its deadline (none left open).
  expect(slowMailtm.requests.length).toBeGreaterThan(0);
  expect(slowLol.requests.length).toBeGreaterThan(0);
  expect(slowMailtm.open() + slowLol.open()).toBe(0);
}, 35_000);
