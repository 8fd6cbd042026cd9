/**
 * The host key: made once and kept (a 0600 file in the data dir), the same key read at the next start,
 * its fingerprint the one ssh-keygen prints, an operator's OpenSSH key file used as is, and a file that
 * is no key refused with a line naming it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHostKey } from '../../../src/server/ssh/host-key';
import { fileKv } from '../../../src/server/ssh/ssh-kv';

const fresh = () => mkdtempSync(join(tmpdir(), 'tempmail-hostkey-'));

describe('ssh host key', () => {
  it('is made on first start, kept 0600 in the data dir, and the same at the next start', async () => {
    const dir = fresh();
    const first = await loadHostKey(undefined, fileKv(dir));
    expect(first.publicLine).toMatch(/^ssh-ed25519 AAAA/);
    expect(statSync(join(dir, 'ssh', 'host-key')).mode & 0o777).toBe(0o600);
    const again = await loadHostKey(undefined, fileKv(dir));
    expect(again.fingerprint).toBe(first.fingerprint);
  });

  it('has the fingerprint ssh-keygen prints, and is a key OpenSSH reads', async () => {
    const dir = fresh();
    const key = await loadHostKey(undefined, fileKv(dir));
    writeFileSync(join(dir, 'key.pub'), `${key.publicLine}\n`);
    expect(execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'key.pub')], { encoding: 'utf8' })).toContain(
      key.fingerprint,
    );
    // ssh-keygen -y derives the public key from the private one we wrote.
    const derived = execFileSync('ssh-keygen', ['-y', '-f', join(dir, 'ssh', 'host-key')], { encoding: 'utf8' });
    expect(derived.trim().split(' ').slice(0, 2).join(' ')).toBe(key.publicLine);
  });

  it("uses the operator's OpenSSH key file, and refuses a file that is no key", async () => {
    const dir = fresh();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'op')]);
    const key = await loadHostKey(join(dir, 'op'), fileKv(dir));
    expect(key.publicLine).toBe(readFileSync(join(dir, 'op.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' '));
    writeFileSync(join(dir, 'bad'), 'hello\n');
    await expect(loadHostKey(join(dir, 'bad'), fileKv(dir))).rejects.toThrow(/bad: not a private key/);
  });
});
