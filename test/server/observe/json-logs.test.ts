/**
 * `serve --log-format json` as a log collector reads it (the built program): every line it writes, on
 * stdout and stderr, is one JSON object, the listen lines and a fatal start-up error included; requests
 * and deliveries carry their facts as fields (method, route, status, duration_ms, size, request_id;
 * size and recipients), a refused reload is a warning, storage failing an error (then storage.back,
 * after every failure and its repeats), and a token rotation is logged by name.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { spawnCli, startServeProcess, stopServe, type ServeProcess } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
type Line = Record<string, unknown>;

/** Every line of `text` as a JSON object (a line that is not one fails the test, naming it). */
function jsonLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
}

function allJson(proc: ServeProcess): { out: Line[]; err: Line[] } {
  return { out: jsonLines(proc.stdout()), err: jsonLines(proc.stderr()) };
}

describe('serve --log-format json', () => {
  it('writes only JSON lines: the listen lines on stdout, and requests and mail with their facts as fields', async () => {
    const dir = await cleanup.tempDir('tempmail-json-logs-');
    const serve = cleanup.defer(
      await startServeProcess([
        '--data-dir',
        dir,
        '--log-format',
        'json',
        '--metrics-listen',
        '127.0.0.1:0',
        '--ssh-port',
        '0',
      ]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    const box = await newSession(serve.baseUrl);
    await sendMail(serve, { to: box.email, subject: 'fields', text: 'the body' });
    expect((await call(serve.baseUrl, '/check-mail', { query: { token: box.token } })).status).toBe(200);
    expect((await call(serve.baseUrl, '/nowhere')).status).toBe(404);
    await waitFor(() => serve.stderr().includes('"route":"other"'), { message: 'the 404 line' });
    await stopServe(serve);

    const { out, err } = allJson(serve);
    expect(out.map((l) => [l.event, l.protocol])).toEqual([
      ['listen', 'http'],
      ['listen', 'smtp'],
      ['listen', 'ssh'],
    ]);
    expect(out[0]).toMatchObject({ level: 'info', url: serve.baseUrl });
    expect(out[1]).toMatchObject({ host: serve.smtpHost, port: serve.smtpPort });
    expect(out[2]).toMatchObject({
      host: '127.0.0.1',
      port: expect.any(Number),
      fingerprint: expect.stringMatching(/^SHA256:/),
    });
    for (const line of [...out, ...err])
      expect(Object.keys(line).slice(0, 4)).toEqual(['time', 'level', 'event', 'msg']);
    expect(err.find((l) => l.event === 'listen')).toMatchObject({
      protocol: 'metrics',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/),
    });

    const checked = err.find((l) => l.event === 'http.request' && l.route === 'check-mail')!;
    expect(checked).toMatchObject({ level: 'info', method: 'GET', status: 200, client: '127.0.0.1' });
    expect(checked.duration_ms).toEqual(expect.any(Number));
    expect(checked.size).toBeGreaterThan(0);
    expect(checked.request_id).toMatch(/^[0-9a-f]{6}-[0-9a-z]+$/);
    const missing = err.find((l) => l.event === 'http.request' && l.route === 'other')!;
    expect(missing).toMatchObject({ method: 'GET', status: 404, reason: 'not_found' });
    expect(missing.size).toBeGreaterThan(0);
    expect(missing.request_id).not.toBe(checked.request_id);
    expect(err.find((l) => l.event === 'smtp.stored')).toMatchObject({
      level: 'info',
      size: expect.any(Number),
      recipients: 1,
    });
    expect(err.map((l) => l.event)).toEqual(
      expect.arrayContaining(['serve.started', 'serve.stopping', 'serve.closed']),
    );
  });

  it('writes a fatal start-up error (a port in use) as one JSON line, level error', async () => {
    const dir = await cleanup.tempDir('tempmail-json-logs-');
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanup.defer(taken, (s) => new Promise<void>((resolve) => s.close(() => resolve())));
    const port = (taken.address() as net.AddressInfo).port;
    const proc = spawnCli([
      'serve',
      '--data-dir',
      dir,
      '--log-format',
      'json',
      '--http-port',
      String(port),
      '--smtp-port',
      '0',
    ]);
    expect((await proc.exited).code).toBe(1);
    const { out, err } = allJson(proc);
    expect(out).toEqual([]);
    expect(err.at(-1)).toMatchObject({
      level: 'error',
      event: 'serve.failed',
      msg: `HTTP port ${port} on 127.0.0.1 is already in use (try another port, or 0 for any free one)`,
    });
  });

  it('writes a usage error given with --log-format json as JSON too', async () => {
    const proc = spawnCli(['serve', '--log-format', 'json', '--lifetime-minutes', '1', '--lifetime-seconds', '1']);
    expect((await proc.exited).code).toBe(2);
    expect(allJson(proc).err).toEqual([
      expect.objectContaining({ level: 'error', event: 'serve.usage', msg: expect.stringContaining('not both') }),
    ]);
    // Arguments that do not parse at all (an unknown option), --log-format json among them.
    const unknown = spawnCli(['serve', '--log-format', 'json', '--no-such-flag']);
    expect((await unknown.exited).code).toBe(2);
    expect(allJson(unknown).err).toEqual([
      expect.objectContaining({ level: 'error', event: 'serve.usage', msg: expect.stringContaining('--no-such-flag') }),
    ]);
  });

  it('writes what Node would say itself (a process warning, an exception nothing caught) as JSON', async () => {
    const dir = await cleanup.tempDir('tempmail-json-logs-');
    // Loaded before serve: on SIGUSR2, a warning, then an exception thrown where nothing catches it.
    const preload = join(dir, 'trouble.cjs');
    await writeFile(
      preload,
      "process.on('SIGUSR2', () => { process.emitWarning('a test warning'); setTimeout(() => { throw new Error('boom'); }, 50); });\n",
    );
    const serve = await startServeProcess(['--data-dir', join(dir, 'data'), '--log-format', 'json'], {
      NODE_OPTIONS: `--require ${preload}`,
    });
    cleanup.defer(serve, (p) => stopServe(p, 'SIGKILL'));
    serve.child.kill('SIGUSR2');
    expect((await serve.exited).code).toBe(1);
    const { err } = allJson(serve);
    expect(err.find((l) => l.event === 'node.warning')).toMatchObject({
      level: 'warn',
      msg: 'Warning: a test warning',
    });
    expect(err.at(-1)).toMatchObject({ level: 'error', event: 'serve.crashed', msg: 'serve crashed: Error: boom' });
  });

  it('warns (level warn) of an admin token file others can read', async () => {
    const dir = await cleanup.tempDir('tempmail-json-logs-');
    const tokenFile = join(dir, 'admin.token');
    await writeFile(tokenFile, 'open-admin-token-0123456789abcdef\n', { mode: 0o644 });
    const serve = cleanup.defer(
      await startServeProcess([
        '--data-dir',
        join(dir, 'data'),
        '--log-format',
        'json',
        '--admin-token-file',
        tokenFile,
      ]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    expect(allJson(serve).err.find((l) => l.event === 'admin.token_readable')).toMatchObject({
      level: 'warn',
      msg: expect.stringContaining('chmod 600'),
    });
  });

  it('logs a refused reload as a warning, and a rotated admin token by name (never the token)', async () => {
    const dir = await cleanup.tempDir('tempmail-json-logs-');
    const tokenFile = join(dir, 'admin.token');
    const config = join(dir, 'serve.json');
    await writeFile(tokenFile, 'first-admin-token-0123456789abcdef\n', { mode: 0o600 });
    await writeFile(
      config,
      JSON.stringify({ dataDir: join(dir, 'data'), logFormat: 'json', adminTokenFile: tokenFile }),
    );
    const serve = cleanup.defer(await startServeProcess(['--config', config]), (p) => stopServe(p, 'SIGKILL'));
    const hangup = async (event: string) => {
      const before = serve.stderr().length;
      serve.child.kill('SIGHUP');
      return waitFor(() => jsonLines(serve.stderr().slice(before)).find((l) => l.event === event), { message: event });
    };

    await writeFile(tokenFile, 'second-admin-token-0123456789abcdef\n', { mode: 0o600 });
    expect(await hangup('admin.tokens')).toMatchObject({
      level: 'info',
      rotated: 'admin',
      msg: 'SIGHUP: admin tokens read again: rotated admin',
    });
    await writeFile(config, '{ not json');
    const refused = await hangup('reload.refused');
    expect(refused).toMatchObject({ level: 'warn', part: 'config' });
    expect(String(refused.msg)).toMatch(/^SIGHUP: kept the config in use: /);
    await writeFile(
      config,
      JSON.stringify({ dataDir: join(dir, 'data'), logFormat: 'json', adminTokenFile: tokenFile }),
    );
    await writeFile(tokenFile, 'short\n', { mode: 0o600 });
    expect(await hangup('reload.refused')).toMatchObject({ level: 'warn', part: 'admin token' });
    expect(serve.stderr()).not.toMatch(/first-admin-token|second-admin-token/);
    allJson(serve);
  });

  it('logs storage failing as an error, then storage.back at info counting every failure', async () => {
    const dir = await cleanup.tempDir('tempmail-json-logs-');
    const data = join(dir, 'data');
    const serve = cleanup.defer(await startServeProcess(['--data-dir', data, '--log-format', 'json']), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    const box = await newSession(serve.baseUrl);
    await sendMail(serve, { to: box.email, subject: 'before', text: 'x' });
    // A real failure: the messages directory moved aside and a plain file in its place.
    await rename(join(data, 'messages'), join(dir, 'aside'));
    await writeFile(join(data, 'messages'), 'not a directory');
    for (let i = 0; i < 3; i++) {
      const refused = await sendMail(serve, { to: box.email, subject: `during ${i}`, text: 'x' }).catch(
        (e: { responseCode?: number }) => e.responseCode,
      );
      // 451 at the end of DATA; once failing, 421 at EHLO (a health check must see it).
      expect([421, 451]).toContain(refused);
    }
    await rm(join(data, 'messages'));
    await rename(join(dir, 'aside'), join(data, 'messages'));
    // The storage is seen back at the next look (at most a second old), then mail is taken again.
    await waitFor(
      () =>
        sendMail(serve, { to: box.email, subject: 'after', text: 'x' }).then(
          () => true,
          () => undefined,
        ),
      { timeoutMs: 15_000, message: 'mail taken again' },
    );
    const lines = await waitFor(
      () => {
        const all = jsonLines(serve.stderr());
        return all.some((l) => l.event === 'storage.back') ? all : undefined;
      },
      { message: 'storage.back in the log' },
    );
    const failing = lines.flatMap((l, i) => (l.event === 'storage.failing' ? [{ line: l, at: i }] : []));
    const back = lines.findIndex((l) => l.event === 'storage.back');
    expect(failing.length).toBeGreaterThan(0);
    for (const { line } of failing)
      expect(line).toMatchObject({ level: 'error', reason: expect.stringMatching(/ENOTDIR/) });
    // Every failure is written or counted in a repeats line, all before the line that ends them.
    expect(failing.every((l) => l.at < back)).toBe(true);
    expect(lines[back]).toMatchObject({ level: 'info', failures: expect.any(Number) });
    expect(failing.reduce((n, f) => n + 1 + Number(f.line.repeats ?? 0), 0)).toBe(lines[back]!.failures);
  });
});
