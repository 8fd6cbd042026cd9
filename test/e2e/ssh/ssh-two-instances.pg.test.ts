/**
 * Two built `serve --ssh-port` instances on one database: started together, they show one host key (so
 * `ssh` never warns of a changed key behind one name), and a key's addresses made on one are listed and
 * opened again on the other.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase } from '../../harness/postgres/database';
import { newKey, sshExec, startSshServe, tmuxSsh } from './ssh-harness';

const cleanup = cleanupAfterEach();

describe('ssh on two instances sharing a database', () => {
  it('shows one host key and the same addresses for a key on either instance', async () => {
    const { url } = await freshDatabase(cleanup);
    const [a, b] = await Promise.all([startSshServe(['--database-url', url]), startSshServe(['--database-url', url])]);
    cleanup.defer(a!, (s) => s.stop());
    cleanup.defer(b!, (s) => s.stop());
    expect(a!.fingerprint).toBe(b!.fingerprint);
    const key = newKey(a!.dir, 'key');
    const created = await sshExec(a!.sshPort, key, ['new']);
    expect(created.code).toBe(0);
    const address = created.stdout.trim();
    const listed = await sshExec(b!.sshPort, key, ['list', '--address', address]);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stderr).toContain(`No messages yet for ${address}`);
    const app = cleanup.defer(tmuxSsh(b!.sshPort, key), (t) => t.close());
    await app.waitForScreen(`Resume ${address}`);
  });
});
