/**
 * The SSH host key: ed25519, made with Node's crypto on first start and kept with the service's data
 * (ssh-kv.ts: a 0600 file in the data dir, a row in the database so every instance shows the same key),
 * or read from the file an operator names (`--ssh-host-key`, OpenSSH's own format). Node writes a new key
 * as PKCS#8, which ssh2 does not read: it is written out in OpenSSH's "openssh-key-v1" layout (no
 * cipher), the byte layout of PROTOCOL.key, no cryptography of ours.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { utils } from 'ssh2';
import { readOperatorFile } from '../../platform/operator-file';
import type { SshKv } from './ssh-kv';

export interface HostKey {
  /** The private key in OpenSSH's format, as ssh2 takes it. */
  pem: string;
  /** "ssh-ed25519 AAAA..." (the known_hosts line's key part). */
  publicLine: string;
  /** "SHA256:..." as `ssh` and `ssh-keygen -l` print it. */
  fingerprint: string;
}

const HOST_KEY_ENTRY = 'host-key';

function sshString(data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A new ed25519 key in OpenSSH's private key format. */
export function newHostKeyPem(): string {
  const pair = generateKeyPairSync('ed25519');
  // The raw 32-byte seed and public key end the PKCS#8 and SPKI encodings.
  const seed = pair.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const publicBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let secret = Buffer.concat([
    check,
    check,
    sshString('ssh-ed25519'),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString('tempmail-tui'),
  ]);
  const padding = [];
  for (let i = 1; (secret.length + padding.length) % 8 !== 0; i++) padding.push(i);
  secret = Buffer.concat([secret, Buffer.from(padding)]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    Buffer.from([0, 0, 0, 1]),
    sshString(publicBlob),
    sshString(secret),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** "SHA256:..." of a public key blob (the wire form), as OpenSSH prints it. */
export function fingerprintOf(publicBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;
}

/** Reads a private key's text; a key ssh2 cannot use is an error naming `where`. */
export function describeHostKey(pem: string, where: string): HostKey {
  const parsed = utils.parseKey(pem);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error)
    throw new Error(`${where}: not a private key ssh can use (${key instanceof Error ? key.message : 'empty'})`);
  if (!key.isPrivateKey()) throw new Error(`${where}: a public key; give the private key`);
  if (key.getPrivatePEM() === '' || key.type === undefined) throw new Error(`${where}: not a private key ssh can use`);
  const blob = key.getPublicSSH();
  return { pem, publicLine: `${key.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) };
}

/**
 * The host key: the operator's file when named, else the one kept in `kv` (made and kept there on first
 * start; when two instances start at once on one database, both keep the one stored first).
 */
export async function loadHostKey(file: string | undefined, kv: SshKv): Promise<HostKey> {
  if (file !== undefined) {
    const text = (await readOperatorFile(file, { maxBytes: 64 * 1024, timeoutMs: 5000 })).toString('utf8');
    return describeHostKey(text, file);
  }
  const kept = await kv.get(HOST_KEY_ENTRY);
  if (kept !== undefined) return describeHostKey(kept, kv.describe(HOST_KEY_ENTRY));
  const stored = await kv.insertIfAbsent(HOST_KEY_ENTRY, newHostKeyPem());
  return describeHostKey(stored, kv.describe(HOST_KEY_ENTRY));
}
