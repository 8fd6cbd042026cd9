/**
 * The server-time-zone and post-encoding settings change what the commands do, not only what they parse:
 * serverTz moves every zone-less wire time the client reads, postEncoding changes how create-session's
 * parameters travel. Against the real reference service; a small recording proxy in front of it shows the
 * requests as they were sent.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendMail, startTestService, type TestService } from '../harness/service';
import { waitFor } from '../harness/wait';
import { makeRunner, type Runner } from './run';

// The service's clock stands still, so two addresses made a moment apart get the same wire times and
// a zone setting's effect is exactly its offset. Whole seconds: the wire carries no milliseconds.
const FROZEN_MS = Math.floor(Date.now() / 1000) * 1000;
// Long enough that an expiry read one or two hours early is still in the future (a live address).
const LIFETIME_S = 4 * 3600;
const HOUR_MS = 3_600_000;

interface Recorded {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
}

interface RecordingProxy {
  baseUrl: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** An HTTP proxy on loopback port 0 that records each request (method, path, content type, body) and passes it on. */
async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        body: body.toString('utf8'),
      });
      const headers: IncomingHttpHeaders = { ...req.headers, host: to.host };
      const upstream = request(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let svc: TestService;
let proxy: RecordingProxy;
let r: Runner;

beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000, lifetimeSeconds: LIFETIME_S }, { clock: () => FROZEN_MS });
  proxy = await startRecordingProxy(svc.baseUrl);
  r = makeRunner();
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await proxy.close();
  await svc.close();
});

/** Writes `settings` as the config file of the runner's home (TEMPMAIL_TUI_HOME/config/config.json). */
function writeConfig(settings: Record<string, unknown>, dir = join(r.home, 'config')): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(settings), { mode: 0o600 });
}

/** `new --json` through the runner; returns the printed expiry in ms. */
async function newExpiry(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const res = await r.run('new', ['--base-url', svc.baseUrl, '--json', '-q', ...args], { env });
  expect(res, res.stderr).toMatchObject({ code: 0, stderr: '' });
  return Date.parse(JSON.parse(res.stdout).expiresAt);
}

describe('serverTz: the service zone moves the times read from the wire', () => {
  beforeEach(() => rmSync(join(r.home, 'config'), { recursive: true, force: true }));

  it('new --json: +01:00 reads the same wire expiry one hour earlier than UTC; -02:00 two hours later', async () => {
    const utc = await newExpiry([]);
    // The reference service writes UTC, so with the default the expiry is its clock plus the lifetime.
    expect(utc).toBe(FROZEN_MS + LIFETIME_S * 1000);
    expect(await newExpiry(['--server-tz', 'UTC'])).toBe(utc);
    expect(await newExpiry(['--server-tz', '+01:00'])).toBe(utc - HOUR_MS);
    expect(await newExpiry([], { TEMPMAIL_SERVER_TZ: '-02:00' })).toBe(utc + 2 * HOUR_MS);
    writeConfig({ serverTz: '+01:00' });
    expect(await newExpiry([])).toBe(utc - HOUR_MS);
    // flags > env > file
    expect(await newExpiry([], { TEMPMAIL_SERVER_TZ: 'UTC' })).toBe(utc);
    // A negative offset goes after "=": node's parser takes a separate "-02:00" for an option.
    expect(await newExpiry(['--server-tz=-02:00'], { TEMPMAIL_SERVER_TZ: 'UTC' })).toBe(utc + 2 * HOUR_MS);
  });

  it('--server-tz -02:00 (a separate value with a dash) is exit 2 saying how to write it', async () => {
    const res = await r.run('new', ['--base-url', svc.baseUrl, '--server-tz', '-02:00']);
    expect(res).toMatchObject({ code: 2, stdout: '' });
    expect(res.stderr).toBe(
      'tempmail-tui new: option --server-tz needs a value; write one that starts with "-" as --server-tz=-VALUE (see tempmail-tui new --help)\n',
    );
  });

  it('list --json: a message time moves by the same offset', async () => {
    const email = (await r.run('new', ['--base-url', svc.baseUrl, '-q'])).stdout.trim();
    await sendMail(svc, { to: email, subject: 'zone check', text: 'hello' });
    const listAt = async (args: string[]) => {
      const res = await r.run('list', ['--address', email, '--json', ...args]);
      expect(res.code, res.stderr).toBe(0);
      return JSON.parse(res.stdout).messages as Array<{ receivedAt: string }>;
    };
    const utc = await waitFor(async () => (await listAt([]))[0], { message: 'the mail to be listed' });
    expect(Date.parse(utc.receivedAt)).toBe(FROZEN_MS);
    const [shifted] = await listAt(['--server-tz', '+01:00']);
    expect(Date.parse(shifted!.receivedAt)).toBe(FROZEN_MS - HOUR_MS);
  });
});

describe('postEncoding: how create-session parameters travel', () => {
  beforeEach(() => {
    rmSync(join(r.home, 'config'), { recursive: true, force: true });
    proxy.requests.length = 0;
  });

  /** `new --prefix P` through the proxy; returns the create-session request it sent. */
  async function createThroughProxy(
    prefix: string,
    args: string[] = [],
    env: NodeJS.ProcessEnv = {},
  ): Promise<Recorded> {
    const res = await r.run('new', ['--base-url', proxy.baseUrl, '--prefix', prefix, '-q', ...args], { env });
    // The service understood the parameters however they travelled: the address has the asked-for prefix.
    expect(res, res.stderr).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^${prefix}@`)) });
    const sent = proxy.requests.filter((q) => q.path.startsWith('/create-session'));
    expect(sent).toHaveLength(1);
    proxy.requests.length = 0;
    return sent[0]!;
  }

  it('the default is a form body', async () => {
    const sent = await createThroughProxy('enc-default');
    expect(sent.method).toBe('POST');
    expect(sent.contentType).toMatch(/^application\/x-www-form-urlencoded\b/);
    expect(new URLSearchParams(sent.body).get('prefix')).toBe('enc-default');
  });

  it('"postEncoding": "json" in the config file sends a JSON body; the env and the flag override the file', async () => {
    writeConfig({ postEncoding: 'json' });
    const fromFile = await createThroughProxy('enc-file');
    expect(fromFile.contentType).toMatch(/^application\/json\b/);
    expect(JSON.parse(fromFile.body)).toMatchObject({ prefix: 'enc-file' });

    const fromFlag = await createThroughProxy('enc-flag', ['--post-encoding', 'form']);
    expect(fromFlag.contentType).toMatch(/^application\/x-www-form-urlencoded\b/);

    const fromEnv = await createThroughProxy('enc-env', [], { TEMPMAIL_POST_ENCODING: 'query' });
    expect(fromEnv.path).toMatch(/^\/create-session\?(.*&)?prefix=enc-env(&|$)/);
    expect(fromEnv.body).toBe('');

    // The flag beats the environment too.
    const flagOverEnv = await createThroughProxy('enc-both', ['--post-encoding', 'json'], {
      TEMPMAIL_POST_ENCODING: 'query',
    });
    expect(flagOverEnv.contentType).toMatch(/^application\/json\b/);
    expect(flagOverEnv.path).toBe('/create-session');
  });

  it('the config file found through XDG_CONFIG_HOME counts as well', async () => {
    const xdg = join(r.home, 'xdg');
    writeConfig({ postEncoding: 'json' }, join(xdg, 'config', 'tempmail-tui'));
    const env = { TEMPMAIL_TUI_HOME: '', XDG_CONFIG_HOME: join(xdg, 'config'), XDG_STATE_HOME: join(xdg, 'state') };
    const sent = await createThroughProxy('enc-xdg', [], env);
    expect(sent.contentType).toMatch(/^application\/json\b/);
    rmSync(xdg, { recursive: true, force: true });
  });
});
