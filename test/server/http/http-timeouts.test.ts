/**
 * Slow HTTP clients get 408 `timeout` in JSON and lose their connection, at the configured limits
 * (15 s for headers and 30 s for the whole request by default; seconds here, from the config), while
 * a prompt client on the same service is served. Raw sockets over loopback, the real service.
 */
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import { createHttpFront } from '../../../src/server/http/http-server';
import { applyConfigFile, buildServerConfig, UsageError } from '../../../src/server/config/serve-config';
import { call } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const HEADERS_MS = 1000;
const REQUEST_MS = 2500;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ httpHeadersTimeoutMs: HEADERS_MS, httpRequestTimeoutMs: REQUEST_MS });
});
afterAll(() => svc?.close());

interface SlowResult {
  text: string;
  /** ms from connecting to the server closing the connection. */
  closedAfterMs: number;
}

/**
 * Connects, writes `first`, then `drip` every `everyMs` (never finishing the request), and collects
 * what comes back until the server closes the connection (or 10 s pass: a failure).
 */
function slowClient(first: string, drip = '', everyMs = 200, connected = { at: 0 }): Promise<SlowResult> {
  const url = new URL(svc.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      started = Date.now();
      connected.at = started;
      socket.write(first);
      if (drip) timer = setInterval(() => socket.writable && socket.write(drip), everyMs);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined); // a reset after the answer still ends in 'close'
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedAfterMs: Date.now() - started });
    });
    socket.setTimeout(10_000, () => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`not closed by the server; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    });
  });
}

function expect408(result: SlowResult): void {
  expect(result.text).toMatch(/^HTTP\/1\.1 408 /);
  expect(result.text.toLowerCase()).toContain('connection: close');
  const body = result.text.slice(result.text.indexOf('\r\n\r\n') + 4);
  expect(JSON.parse(body)).toMatchObject({ status: 'error', error: 'timeout' });
}

describe('slow HTTP clients', () => {
  it('headers that never finish: 408 after the header limit, connection closed', async () => {
    const result = await slowClient('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');
    expect408(result);
    // Not before the limit, and within Node's once-a-second check after it.
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(result.closedAfterMs).toBeLessThan(HEADERS_MS + 5000);
  });

  it('a body that trickles in: 408 after the whole-request limit, connection closed', async () => {
    const head =
      'POST /create-session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n';
    const result = await slowClient(head, 'a', 200);
    expect408(result);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(result.closedAfterMs).toBeLessThan(REQUEST_MS + 5000);
  });

  it('a prompt client is served while a slow one is held', async () => {
    const connected = { at: 0 };
    const slow = slowClient('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', '', 200, connected);
    await waitFor(() => connected.at > 0, { message: 'the slow client to connect' });
    const res = await call(svc.baseUrl, '/health');
    expect(res.status).toBe(200);
    const servedAt = Date.now();
    const held = await slow;
    expect408(held);
    // Served while the slow one still held its connection.
    expect(servedAt).toBeLessThan(connected.at + held.closedAfterMs);
  });
});

describe('the limits as settings', () => {
  it('default to 15 s for headers and 30 s for the whole request', async () => {
    const config = defaultServerConfig({});
    expect([config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs]).toEqual([15_000, 30_000]);
    const front = createHttpFront({} as never);
    expect([front.server.headersTimeout, front.server.requestTimeout]).toEqual([15_000, 30_000]);
  });

  it('are read from the config file, in range, and the whole request may not be shorter than its headers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tempmail-http-timeouts-'));
    try {
      const file = join(dir, 'serve.json');
      await writeFile(file, JSON.stringify({ httpHeadersTimeoutMs: 5000, httpRequestTimeoutMs: 9000 }));
      const config = buildServerConfig({ config: file }, {});
      expect([config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs]).toEqual([5000, 9000]);

      await writeFile(file, JSON.stringify({ httpHeadersTimeoutMs: 40_000 }));
      expect(() => buildServerConfig({ config: file }, {})).toThrow(
        /httpRequestTimeoutMs: must be at least httpHeadersTimeoutMs/,
      );
      await writeFile(file, JSON.stringify({ httpHeadersTimeoutMs: 10 }));
      expect(() => applyConfigFile(defaultServerConfig({}), file)).toThrow(UsageError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
