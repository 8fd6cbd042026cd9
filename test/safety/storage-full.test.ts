/**
 * The reference service on a data dir that fills up or turns read-only (issue 5), for real: a tiny
 * tmpfs mounted for the test (root only; skipped with a message where mounting is not allowed). SMTP
 * must answer a temporary failure (4xx), never 250, /health must say the storage is failing, nothing
 * half-stored may show, everything acknowledged before stays readable, and the service recovers by
 * itself once there is room (or write access) again.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../harness/http';
import { sendRaw, startTestService, type TestService } from '../harness/service';
import { waitFor } from '../harness/wait';

/** Mounts a tmpfs of `size` at a new temp dir; null where that is not permitted. */
function tryMount(size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  } catch {
    // Already gone.
  }
  rmSync(dir, { recursive: true, force: true });
}

const probe = tryMount('64k');
if (probe) unmount(probe);
const canMount = probe !== null;
if (!canMount)
  console.log(
    'storage-full: cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN): ENOSPC and read-only cases skipped',
  );

const mounts: string[] = [];
let svc: TestService | undefined;
afterAll(async () => {
  await svc?.close();
  for (const m of mounts) unmount(m);
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the message to be refused');
    },
    (e: { responseCode?: number; response?: string }) => e,
  );

async function box(s: TestService) {
  const res = await call(s.baseUrl, '/create-session', { form: {} });
  expect(res.status).toBe(200);
  return res.json as { email: string; token: string };
}

const message = (to: string, subject: string, size: number) =>
  `From: a@example.org\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\n${'x'.repeat(size)}\r\n`;

async function subjects(s: TestService, token: string): Promise<string[]> {
  const res = await call(s.baseUrl, '/check-mail', { query: { token } });
  expect(res.status).toBe(200);
  return (res.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

describe.skipIf(!canMount)('a data dir on a real tmpfs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tryMount('1m')!;
    mounts.push(dir);
    svc = await startTestService({ dataDir: join(dir, 'data') });
  });

  it('full (ENOSPC): 451 and never 250, /health 503, nothing half-stored; room again -> 250 and healthy', async () => {
    const s = svc!;
    const b = await box(s);
    await sendRaw(s, b.email, message(b.email, 'before', 1000));
    // Fill the file system but for a few KB, with a file the test can remove later.
    const filler = join(dir, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(1024 * 1024));
    } catch {
      // ENOSPC at the end of the fill: what is written is the point.
    }
    const results: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const e = await refusal(sendRaw(s, b.email, message(b.email, `while full ${i}`, 40_000)));
      results.push(e.responseCode);
      // The first hears it at the end of DATA; from then on EHLO says 421 while the storage is failing,
      // so a sender (and an SMTP health check) goes elsewhere at once.
      expect(e.response).toMatch(i === 0 ? /^451 4\.3\.0/ : /^(451 4\.3\.0|421 4\.3\.0 Mail storage is unavailable)/);
    }
    expect(results.every((c) => c === 451 || c === 421)).toBe(true);
    const health = await call(s.baseUrl, '/health');
    expect(health.status).toBe(503);
    // One word to the client; the reason is the log's.
    expect(health.json).toEqual({ status: 'unavailable' });
    expect(s.logs.join('\n')).toMatch(/storage failing: ENOSPC/);
    expect(await subjects(s, b.token)).toEqual(['before']);
    // The HTTP side says so too: no new address can be stored.
    const create = await call(s.baseUrl, '/create-session', { form: {} });
    expect(create.status).toBe(503);
    expect(create.json).toMatchObject({ status: 'error', error: 'storage_unavailable' });

    await rm(filler);
    // The service finds the room itself (it probes the data dir while failing), and says it is back.
    await waitFor(async () => (await call(s.baseUrl, '/health')).status === 200, {
      message: '/health 200 once there is room',
    });
    expect(s.logs.join('\n')).toMatch(/storage is back after/);
    await sendRaw(s, b.email, message(b.email, 'after', 40_000));
    expect(await subjects(s, b.token)).toEqual(['after', 'before']);
    expect((await call(s.baseUrl, '/health')).json).toEqual({ status: 'ok' });
    console.log(
      `storage-full: ENOSPC answered ${results.join(', ')}; /health ${health.status}; recovered after freeing space`,
    );
  });

  it('read-only (remount ro): 451 and never 250, /health 503; remount rw -> 250 and healthy', async () => {
    const s = svc!;
    const b = await box(s);
    await sendRaw(s, b.email, message(b.email, 'before ro', 100));
    execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' });
    try {
      const e = await refusal(sendRaw(s, b.email, message(b.email, 'while ro', 100)));
      expect(e.responseCode).toBe(451);
      const health = await call(s.baseUrl, '/health');
      expect(health.status).toBe(503);
      expect(health.json).toEqual({ status: 'unavailable' });
      expect(s.logs.join('\n')).toMatch(/storage failing: EROFS/);
      // Reading still works: what was acknowledged is there.
      expect(await subjects(s, b.token)).toEqual(['before ro']);
      console.log(`storage-full: read-only answered ${e.responseCode}; /health ${health.status}`);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', dir], { stdio: 'pipe' });
    }
    await waitFor(async () => (await call(s.baseUrl, '/health')).status === 200, {
      message: '/health 200 once writable again',
    });
    await sendRaw(s, b.email, message(b.email, 'after ro', 100));
    expect(await subjects(s, b.token)).toEqual(['after ro', 'before ro']);
    expect((await call(s.baseUrl, '/health')).status).toBe(200);
  });
});
