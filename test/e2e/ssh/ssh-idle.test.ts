/** An app session with no key pressed for sshIdleTimeoutMs is closed with a line saying why. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { newKey, startSshServe, tmuxSsh, type SshServe } from './ssh-harness';

let serve: SshServe;
let key: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ sshIdleTimeoutMs: 3000 }));
  serve = await startSshServe(['--config', join(dir, 'config.json')], dir);
  key = newKey(serve.dir, 'key');
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

describe('ssh idle timeout', () => {
  it('closes a session nobody types in, with a line saying why', async () => {
    const t = tmuxSsh(serve.sshPort, key);
    try {
      await t.waitForScreen('choose an address');
      await t.waitForScreen('closed after a long time without a key');
    } finally {
      t.close();
    }
  });
});
