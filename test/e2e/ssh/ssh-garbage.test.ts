/**
 * Garbage typed into a session (issue 39.7) through the real OpenSSH client in tmux: a few thousand
 * random bytes (broken escape sequences, invalid UTF-8, controls) neither end the service nor reach
 * another session, which keeps answering its keys.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, sshExec, startSshServe, tmuxSsh, type SshServe, type TmuxSsh } from './ssh-harness';

let serve: SshServe;
const open: TmuxSsh[] = [];

beforeAll(async () => {
  serve = await startSshServe();
}, 30_000);

afterAll(async () => {
  for (const t of open.splice(0)) t.close();
  await serve?.stop();
});

describe('garbage typed over ssh', () => {
  it('leaves the service and the other sessions running', async () => {
    const noisy = tmuxSsh(serve.sshPort, newKey(serve.dir, 'noisy'));
    const calm = tmuxSsh(serve.sshPort, newKey(serve.dir, 'calm'));
    open.push(noisy, calm);
    await noisy.waitForScreen('choose an address');
    await calm.waitForScreen('choose an address');
    // Random bytes but those that quit (q, Ctrl-C), in chunks as tmux sends them.
    const bytes = [...randomBytes(4000)].filter((b) => b !== 0x71 && b !== 0x03 && b !== 0x51);
    for (let i = 0; i < bytes.length; i += 400)
      noisy.keys('-H', ...bytes.slice(i, i + 400).map((b) => b.toString(16).padStart(2, '0')));
    const domains = await sshExec(serve.sshPort, newKey(serve.dir, 'after'), ['domains']);
    expect(domains.code, domains.stderr).toBe(0);
    // The other session still answers its keys: it creates an address.
    const picker = await calm.waitForScreen(/(\d) Random address on tempmail\.test/);
    calm.keys(/(\d) Random address on tempmail\.test/.exec(picker)![1]!);
    await calm.waitForScreen(/\S+@tempmail\.test\s+expires in/);
    expect(calm.screen()).not.toMatch(/[\x00-\x08\x0b-\x1f]/);
  }, 60_000);
});
