/**
 * One service per data dir: `service.lock` names the running service; a second one on the dir is
 * refused (in-process and as the built `serve`), a lock left by a dead process is taken over, and the
 * lock goes away on close (and when a start fails after taking it).
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE } from '../../../src/server/store/data-lock';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { spawnCli, startServeProcess, stopServe, type ServeProcess } from '../../harness/serve-process';
import { startTestService, type TestService } from '../../harness/service';

const cleanup = cleanupAfterEach();
const tempDir = () => cleanup.tempDir('tempmail-lock-');
/** A test service on `dataDir`, closed after the test. */
async function started(dataDir: string): Promise<TestService> {
  return cleanup.defer(await startTestService({ dataDir }), (svc) => svc.close());
}
const track = <T extends ServeProcess>(proc: T): T => cleanup.defer(proc, (p) => stopServe(p, 'SIGKILL'));
const lockOf = async (dir: string) => JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as Record<string, unknown>;

/** The pid of a process that has exited (and been reaped): kill(pid, 0) says ESRCH. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('close', resolve));
  return child.pid!;
}

describe('service.lock', () => {
  it('is written (0600) with pid, URL and SMTP once the service listens, and refuses a second service on the dir', async () => {
    const dataDir = await tempDir();
    const first = await started(dataDir);
    const lock = await lockOf(dataDir);
    expect(lock).toMatchObject({ pid: process.pid, httpUrl: first.baseUrl, smtpHost: '127.0.0.1', smtpPort: first.smtpPort });
    expect(Date.parse(lock.startedAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(statSync(join(dataDir, LOCK_FILE)).mode & 0o777).toBe(0o600);

    const second = startTestService({ dataDir });
    await expect(second).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(second).rejects.toThrow(
      `the data dir ${dataDir} is in use by a tempmail-tui service (pid ${process.pid}, ${first.baseUrl}); stop it or pass --data-dir`,
    );
    // The refused start left the first one's lock alone, and the first still serves.
    expect((await lockOf(dataDir)).httpUrl).toBe(first.baseUrl);
    expect((await call(first.baseUrl, '/health')).status).toBe(200);
  });

  it('is removed on close, so the dir can be used again', async () => {
    const dataDir = await tempDir();
    const first = await started(dataDir);
    await first.close();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const again = await started(dataDir);
    expect((await lockOf(dataDir)).httpUrl).toBe(again.baseUrl);
  });

  it('is taken over when its process is gone, when it names our own pid but this process holds no lock, or when unreadable', async () => {
    const dataDir = await tempDir();
    const pid = await deadPid();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    // What kill -9 leaves behind.
    for (const stale of [
      JSON.stringify({ pid, startedAt: '2020-01-01T00:00:00.000Z', httpUrl: 'http://127.0.0.1:1/', smtpHost: '127.0.0.1', smtpPort: 1 }),
      // A restarted container often gets the same pid back: a lock with our pid we do not hold is old.
      JSON.stringify({ pid: process.pid, startedAt: '2020-01-01T00:00:00.000Z' }),
      'not json at all',
    ]) {
      await writeFile(join(dataDir, LOCK_FILE), stale, { mode: 0o600 });
      const svc = await startTestService({ dataDir });
      expect(await lockOf(dataDir)).toMatchObject({ pid: process.pid, httpUrl: svc.baseUrl });
      await svc.close();
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    }
  });

  it('goes to exactly one of two services started at once, on a free dir and over a stale lock', async () => {
    const dataDir = await tempDir();
    for (const before of [undefined, JSON.stringify({ pid: await deadPid(), startedAt: '2020-01-01T00:00:00.000Z' })]) {
      if (before) await writeFile(join(dataDir, LOCK_FILE), before, { mode: 0o600 });
      const results = await Promise.allSettled([startTestService({ dataDir }), startTestService({ dataDir })]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(DataDirInUseError);
      expect((await lockOf(dataDir)).httpUrl).toBe(won[0]!.baseUrl);
      await won[0]!.close();
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    }
  });

  it('is released when the start fails after taking it (port in use)', async () => {
    const dataDir = await tempDir();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    cleanup.defer(busy, (s) => new Promise((resolve) => s.close(resolve)));
    const port = (busy.address() as { port: number }).port;
    await expect(startTestService({ dataDir, httpPort: port })).rejects.toThrow(/already in use/);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('a lock that is a directory is a readable start error, not a hang', async () => {
    const dataDir = await tempDir();
    await mkdir(join(dataDir, LOCK_FILE));
    await expect(startTestService({ dataDir })).rejects.toThrow(/cannot open the data directory/);
  });
});

describe('tempmail-tui serve on a locked data dir', () => {
  it('exits 1 with one line naming the running service; after it stops, serve starts on the dir', async () => {
    const dataDir = await tempDir();
    const first = track(await startServeProcess(['--data-dir', dataDir]));
    const second = spawnCli(['serve', '--data-dir', dataDir, '--http-port', '0', '--smtp-port', '0']);
    expect((await second.exited).code).toBe(1);
    expect(second.stdout()).toBe('');
    expect(second.stderr()).toBe(
      `tempmail-tui serve: the data dir ${dataDir} is in use by a tempmail-tui service (pid ${first.child.pid}, ${first.baseUrl}); stop it or pass --data-dir\n`,
    );
    expect(await stopServe(first)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

    // kill -9 leaves the lock behind; the next serve takes it over.
    const killed = track(await startServeProcess(['--data-dir', dataDir]));
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect((await lockOf(dataDir)).pid).toBe(killed.child.pid);
    const next = track(await startServeProcess(['--data-dir', dataDir]));
    expect((await lockOf(dataDir)).pid).toBe(next.child.pid);
  });
});
