/**
 * Every file `serve` reads from a path the operator named (the --config file, an IMAP account's
 * passwordFile, the data dir's service.lock, fetch-cursors.json and blocks.json) is read only if it is a regular file
 * of sane size: a FIFO in its place used to hang the start for good (and the process could not even
 * exit: a libuv pool thread stuck in open() keeps it up), /dev/zero to fill the memory. Each is now
 * refused in words (or, for the data dir's own cursor file, set aside). The built program in a child
 * process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_MAX_BYTES, applyConfigFile } from '../../../src/server/config/serve-config';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import { cleanupAfterEach } from '../../harness/cleanup';
import { spawnCli, startServeProcess, stopServe, type ServeProcess } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const PORTS = ['--http-port', '0', '--smtp-port', '0'];

/** Runs `serve args`; resolves with its exit code and stderr, or fails when it has not exited within 10 s. */
async function refusal(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const proc: ServeProcess = cleanup.defer(spawnCli(['serve', ...args]), (p) => stopServe(p, 'SIGKILL'));
  let code: number | null | undefined;
  void proc.exited.then((how) => (code = how.code));
  await waitFor(() => code !== undefined, { timeoutMs: 10_000, message: `serve ${args.join(' ')} to exit` });
  return { code: code ?? null, stderr: proc.stderr() };
}

/** `{...json}` as a file of exactly `bytes` bytes (spaces before the closing brace). */
function jsonOfSize(value: Record<string, unknown>, bytes: number): string {
  const text = JSON.stringify(value);
  return `${text.slice(0, -1)}${' '.repeat(bytes - text.length)}}`;
}

describe('files serve reads from paths the operator named', () => {
  it('refuses a --config that is a FIFO, a symlink to /dev/zero, a directory, or past 1 MiB (exit 2, in words)', async () => {
    const dir = await cleanup.tempDir('tempmail-opfiles-');
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const zero = join(dir, 'zero.json');
    symlinkSync('/dev/zero', zero);
    const big = join(dir, 'big.json');
    writeFileSync(big, jsonOfSize({ domains: ['big.test'] }, CONFIG_FILE_MAX_BYTES + 1));
    const cases: [string, string][] = [
      [fifo, 'not a regular file but a FIFO'],
      [zero, 'not a regular file but a character device'],
      [dir, 'not a regular file but a directory'],
      [big, `larger than ${CONFIG_FILE_MAX_BYTES} bytes`],
    ];
    for (const [file, why] of cases) {
      const { code, stderr } = await refusal(['--config', file, '--data-dir', join(dir, 'data'), ...PORTS]);
      expect(code, file).toBe(2);
      expect(stderr).toBe(`tempmail-tui serve: --config: cannot read the file (${why}) (in ${file})\n`);
    }
    // The cap itself: a config of exactly 1 MiB is read.
    writeFileSync(big, jsonOfSize({ domains: ['big.test'] }, CONFIG_FILE_MAX_BYTES));
    expect(statSync(big).size).toBe(CONFIG_FILE_MAX_BYTES);
    const config = defaultServerConfig({});
    applyConfigFile(config, big, {});
    expect(config.domains).toEqual(['big.test']);
  });

  it('refuses an IMAP passwordFile that is a FIFO or /dev/zero when the config is read (exit 2)', async () => {
    const dir = await cleanup.tempDir('tempmail-opfiles-');
    const fifo = join(dir, 'password-fifo');
    execFileSync('mkfifo', [fifo]);
    const zero = join(dir, 'password-zero');
    symlinkSync('/dev/zero', zero);
    for (const [file, why] of [
      [fifo, 'a FIFO'],
      [zero, 'a character device'],
    ] as const) {
      const config = join(dir, 'serve.json');
      writeFileSync(
        config,
        JSON.stringify({
          extmailAccounts: [{ email: 'me@ext.test', imap: { host: '127.0.0.1', tls: 'none', passwordFile: file } }],
        }),
      );
      const { code, stderr } = await refusal(['--config', config, '--data-dir', join(dir, 'data'), ...PORTS]);
      expect(code, file).toBe(2);
      expect(stderr).toContain(`passwordFile: cannot read "${file}" (not a regular file but ${why})`);
    }
  });

  it('says so when a passwordFile becomes a FIFO while serve runs, and still stops on SIGTERM', async () => {
    const dir = await cleanup.tempDir('tempmail-opfiles-');
    const password = join(dir, 'password');
    writeFileSync(password, 'S3cret-pw\n', { mode: 0o600 });
    const config = join(dir, 'serve.json');
    // Nothing listens on port 1: each attempt fails, and the next one (after 1-2 s) reads the file again.
    writeFileSync(
      config,
      JSON.stringify({
        extmailAccounts: [
          { email: 'me@ext.test', imap: { host: '127.0.0.1', port: 1, tls: 'none', passwordFile: password } },
        ],
      }),
    );
    const proc = cleanup.defer(await startServeProcess(['--config', config, '--data-dir', join(dir, 'data')]), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    await waitFor(() => proc.stderr().includes('connection refused by 127.0.0.1:1'), {
      timeoutMs: 10_000,
      message: 'the first failed attempt',
    });
    // Swapped in by a rename: no attempt in between can find the file missing.
    execFileSync('mkfifo', [`${password}.fifo`]);
    renameSync(`${password}.fifo`, password);
    await waitFor(
      () =>
        proc
          .stderr()
          .includes(
            `inactive (not offered by GET /domains): cannot read the password file ${password} (not a regular file but a FIFO)`,
          ),
      {
        timeoutMs: 15_000,
        message: 'the password file to be refused',
      },
    );
    let exited: { code: number | null } | undefined;
    void proc.exited.then((how) => (exited = how));
    proc.child.kill('SIGTERM');
    expect((await waitFor(() => exited, { timeoutMs: 10_000, message: 'serve to exit on SIGTERM' })).code).toBe(0);
  });

  it('refuses to start on a data dir whose service.lock is a FIFO (exit 1, in words)', async () => {
    const dir = await cleanup.tempDir('tempmail-opfiles-');
    const data = join(dir, 'data');
    mkdirSync(data, { mode: 0o700 });
    execFileSync('mkfifo', [join(data, 'service.lock')]);
    const { code, stderr } = await refusal(['--data-dir', data, ...PORTS]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `tempmail-tui serve: cannot open the data directory ${data}: cannot read ${data}/service.lock (not a regular file but a FIFO)\n`,
    );
  });

  it('sets aside a fetch-cursors.json that is a FIFO and starts', async () => {
    const dir = await cleanup.tempDir('tempmail-opfiles-');
    const data = join(dir, 'data');
    mkdirSync(data, { mode: 0o700 });
    execFileSync('mkfifo', [join(data, 'fetch-cursors.json')]);
    const proc = cleanup.defer(await startServeProcess(['--data-dir', data], {}, 10_000), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    expect(proc.stderr()).toContain(`store: set aside ${data}/fetch-cursors.json: not a cursor file`);
    expect(existsSync(join(data, 'fetch-cursors.json.corrupt'))).toBe(true);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });

  it('sets aside a blocks.json that is a FIFO and starts with no blocks', async () => {
    const dir = await cleanup.tempDir('tempmail-opfiles-');
    const data = join(dir, 'data');
    mkdirSync(data, { mode: 0o700 });
    execFileSync('mkfifo', [join(data, 'blocks.json')]);
    const proc = cleanup.defer(await startServeProcess(['--data-dir', data], {}, 10_000), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    await waitFor(() => proc.stderr().includes(`store: set aside ${data}/blocks.json: not a block list`));
    expect(existsSync(join(data, 'blocks.json.corrupt'))).toBe(true);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });
});
