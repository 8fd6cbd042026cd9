/**
 * A base URL that leads somewhere other than the service, against real loopback servers: a web server's
 * HTML 404 page, https:// to a plain-HTTP port (EPROTO), a server that answers bytes that are not HTTP
 * (HPE_*), and certificates the client cannot trust. Each is said in a person's words, never as Node's
 * code, and the verdict for the poller (and the picker) is to stop asking by itself until `r`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/client/api-error';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { describeError, pollVerdict } from '../../src/tui/wording/error-text';
import { makeCa, makeServerCert } from '../harness/tls-certs';
import { startFixtureServer, type FixtureServer } from './fixture-server';

const TOKEN = 'tok_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
// Node's codes and got's words: none may reach a person.
const RAW_CODE = /\b(?:E[A-Z]{3,}|HPE_[A-Z_]+|ERR_[A-Z_]+|[A-Z]+_[A-Z_]*CERT[A-Z_]*)\b|RequestError|got/;

let web: FixtureServer;
let garbage: NetServer;
let tls: HttpsServer;
let dir: string;
const sockets = new Set<Socket>();
const portOf = (s: { address(): unknown }) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  // A web server that has never heard of this API: its 404 page for every path.
  web = await startFixtureServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n');
  });
  // Something that is not an HTTP server at all (an SMTP banner, then nonsense).
  garbage = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.end('220 mail.example ESMTP\r\n\x00\x01\x02 garbage\r\n\r\n');
  });
  await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
  // An HTTPS server whose certificate comes from a CA this client was never told to trust.
  dir = mkdtempSync(join(tmpdir(), 'tempmail-wrong-'));
  const ca = makeCa(dir);
  const cert = makeServerCert(ca, 'server', 'localhost');
  tls = createHttpsServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await web.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => garbage.close(resolve));
  tls.closeAllConnections();
  await new Promise((resolve) => tls.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function failure(baseUrl: string, call: 'domains' | 'check'): Promise<ApiError> {
  const api = createApi({ baseUrl, retries: 0, timeoutMs: 5000 });
  try {
    await (call === 'domains' ? api.listDomains() : api.checkMail(TOKEN));
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected a failure');
}

function expectWords(error: ApiError, words: string | RegExp): void {
  const said = describeError(error);
  expect(said).toMatch(words);
  expect(said).not.toMatch(RAW_CODE);
  expect(said).not.toContain(TOKEN);
}

describe('a base URL that is not the service', () => {
  it('an HTML 404 page: "answered with a web page", and asking again stops', async () => {
    for (const call of ['domains', 'check'] as const) {
      const e = await failure(web.baseUrl, call);
      expect(e.kind).toBe('wrong_service');
      expectWords(e, "That address answered with a web page, not this service's API (HTTP 404): check the base URL");
      expect(pollVerdict(e)).toMatchObject({ hold: true });
    }
  });

  it('https:// to a plain-HTTP port (EPROTO): "does not speak HTTPS"', async () => {
    const e = await failure(web.baseUrl.replace('http://', 'https://'), 'check');
    expect(e.kind).toBe('wrong_service');
    expectWords(e, 'That address does not speak HTTPS: try http://, or check the port');
    expect(pollVerdict(e)).toMatchObject({ hold: true });
  });

  it('a server that does not answer in HTTP (HPE_*): "does not speak HTTP"', async () => {
    const e = await failure(`http://127.0.0.1:${portOf(garbage)}/`, 'domains');
    expect(e.kind).toBe('wrong_service');
    expectWords(e, 'That address does not speak HTTP: check the port, or try https://');
    expect(pollVerdict(e)).toMatchObject({ hold: true });
  });

  it('a certificate this computer does not trust, or for another name: words, and asked again later', async () => {
    const e = await failure(`https://127.0.0.1:${portOf(tls)}/`, 'domains');
    expect(e.kind).toBe('network');
    expectWords(
      e,
      /^The secure connection failed: its certificate (?:comes from an authority this computer does not trust|cannot be checked|is for another name)$/,
    );
    expect(pollVerdict(e).hold).toBeUndefined();
  });

  it("the service's own 404 stays what it says", async () => {
    const own = await startFixtureServer();
    try {
      const api = createApi({ baseUrl: own.baseUrl, retries: 0 });
      await expect(api.readMail(TOKEN, 7)).rejects.toMatchObject({ kind: 'not_found' });
    } finally {
      await own.close();
    }
  });
});
