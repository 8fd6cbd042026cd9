/**
 * The admin API's blocks apply to the SSH front: a client address blocked there is refused before the
 * key exchange, with the one-line reason the real `ssh` prints, counted in /metrics and in the JSON log;
 * unblocked, it gets in again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { newKey, sshExec, startSshServe, type SshServe } from './ssh-harness';

const TOKEN = 'ssh-blocked-admin-0123456789abcdef';
let serve: SshServe;
let key: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-'));
  writeFileSync(join(dir, 'admin-token'), `${TOKEN}\n`, { mode: 0o600 });
  serve = await startSshServe(
    ['--admin-token-file', join(dir, 'admin-token'), '--metrics', '--log-format', 'json'],
    dir,
  );
  key = newKey(serve.dir, 'key');
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

async function admin(path: string, form: Record<string, string>): Promise<unknown> {
  const res = await fetch(new URL(path, serve.baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: new URLSearchParams(form),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** The JSON log lines (serve writes its log on stderr) with `event`. */
const logged = (event: string) =>
  serve
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.event === event);

describe('admin blocks over ssh', () => {
  it('refuses a blocked client address with the reason, counts it in metrics and the JSON log, and takes it once unblocked', async () => {
    expect((await sshExec(serve.sshPort, key, ['new'])).code).toBe(0);
    await admin('/admin/block', { kind: 'ip', value: '127.0.0.1' });
    const refused = await sshExec(serve.sshPort, key, ['new']);
    expect(refused.code).toBe(255);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('connections from your address are refused');
    const metrics = await (await fetch(`${serve.baseUrl}metrics`)).text();
    expect(metrics).toMatch(/^tempmail_ssh_refused_total\{reason="blocked"\} 1$/m);
    const line = await waitFor(() => logged('ssh.refused')[0], {
      timeoutMs: 5000,
      message: 'the ssh.refused log line',
    });
    expect(line).toMatchObject({ client: '127.0.0.1', reason: 'blocked' });
    await admin('/admin/unblock', { kind: 'ip', value: '127.0.0.1' });
    const again = await sshExec(serve.sshPort, key, ['new']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/@/);
  });
});
