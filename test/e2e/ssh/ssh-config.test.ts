/**
 * `serve`'s SSH settings (issue 39.1, 39.7) with the real OpenSSH client: off unless asked for; sshPort,
 * sshHost and sshMaxConnections from the config file (the total limit refuses the next connection before
 * the key exchange, with its reason).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';
import { newKey, sshExec } from './ssh-harness';

const running: ServeReady[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of running.splice(0)) await stopServe(s);
});

describe('serve and SSH', () => {
  it('listens for SSH only when asked to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-off-'));
    const serve = await startServeProcess(['--data-dir', join(dir, 'data')], { TEMPMAIL_TUI_HOME: dir });
    running.push(serve);
    // The line that ends the start-up, printed after every listen line.
    await waitFor(() => / serving /.test(serve.stdout() + serve.stderr()), {
      timeoutMs: 10_000,
      message: 'the serving line',
    });
    expect(serve.stdout()).toMatch(/^HTTP /m);
    expect(serve.stdout()).not.toMatch(/^SSH/m);
  });

  it('takes sshPort, sshHost and sshMaxConnections from the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-config-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ sshPort: 0, sshHost: '127.0.0.2', sshMaxConnections: 1 }));
    const serve = await startServeProcess(['--data-dir', join(dir, 'data'), '--config', config], {
      TEMPMAIL_TUI_HOME: dir,
    });
    running.push(serve);
    const port = Number(
      await waitFor(() => /^SSH 127\.0\.0\.2:(\d+)$/m.exec(serve.stdout())?.[1], {
        timeoutMs: 10_000,
        message: 'the SSH line on 127.0.0.2',
      }),
    );
    // The one connection allowed, held open without a word.
    const held = connect(port, '127.0.0.2');
    sockets.push(held);
    await new Promise((resolve) => held.once('data', resolve));
    const key = newKey(dir, 'k');
    const refused = await sshExec(port, key, ['domains'], '127.0.0.2');
    expect(refused.code).toBe(255);
    expect(refused.stderr).toContain('too many SSH connections to this service; try again later');
    held.destroy();
    const taken = await waitFor(
      async () => {
        const r = await sshExec(port, key, ['domains'], '127.0.0.2');
        return r.code === 0 ? r : undefined;
      },
      { timeoutMs: 10_000, message: 'ssh to be taken once the other connection closed' },
    );
    expect(taken.stdout).toContain('tempmail.test');
  });
});
