import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ensurePrivateDir,
  isTempFileName,
  readPrivateFile,
  SecureFileError,
  writePrivateFile,
} from '../../src/state/secure-file';
import { appPaths } from '../../src/state/paths';

let home: string;
let dir: string;
const mode = (p: string) => statSync(p).mode & 0o777;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tempmail-secure-'));
  dir = appPaths({ TEMPMAIL_TUI_HOME: home }).state;
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('writePrivateFile', () => {
  it('creates the directory 0700 and the file 0600, even under a permissive umask', () => {
    const old = process.umask(0);
    try {
      writePrivateFile(join(dir, 'a.json'), '{"a":1}');
    } finally {
      process.umask(old);
    }
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'a.json'))).toBe(0o600);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{"a":1}');
  });

  it('replaces the content whole and leaves no temp file behind', () => {
    const file = join(dir, 'a.json');
    writePrivateFile(file, 'first');
    writePrivateFile(file, Buffer.from('second'));
    expect(readFileSync(file, 'utf8')).toBe('second');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('tightens an existing group/world-readable file when it rewrites it', () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, 'a.json'), 'old', { mode: 0o644 });
    chmodSync(dir, 0o755);
    writePrivateFile(join(dir, 'a.json'), 'new');
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'a.json'))).toBe(0o600);
  });

  it('a write that fails leaves the old file intact and no temp file', () => {
    const file = join(dir, 'a.json');
    writePrivateFile(file, 'kept');
    // A directory in the target's place makes the rename fail after the temp file was written.
    const blocked = join(dir, 'blocked');
    mkdirSync(join(blocked, 'inside'), { recursive: true });
    expect(() => writePrivateFile(blocked, 'x')).toThrow();
    expect(readFileSync(file, 'utf8')).toBe('kept');
    expect(readdirSync(dir).filter(isTempFileName)).toEqual([]);
  });
});

describe('readPrivateFile', () => {
  it('returns null for a missing file or directory', () => {
    expect(readPrivateFile(join(dir, 'none.json'))).toBeNull();
    ensurePrivateDir(dir);
    expect(readPrivateFile(join(dir, 'none.json'))).toBeNull();
  });

  it('tightens a 0644 file and a 0755 directory, and still reads them', () => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'a.json'), 'content');
    chmodSync(join(dir, 'a.json'), 0o644);
    expect(readPrivateFile(join(dir, 'a.json'))).toBe('content');
    expect(mode(join(dir, 'a.json'))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
  });

  it('refuses a symbolic link instead of following it', () => {
    ensurePrivateDir(dir);
    const target = join(home, 'elsewhere.txt');
    writeFileSync(target, 'secret elsewhere', { mode: 0o644 });
    symlinkSync(target, join(dir, 'a.json'));
    expect(() => readPrivateFile(join(dir, 'a.json'))).toThrow(/symbolic link/);
    expect(mode(target)).toBe(0o644);
  });

  it.runIf(isRoot)('refuses a file owned by another user with a clear message', () => {
    ensurePrivateDir(dir);
    const file = join(dir, 'a.json');
    writeFileSync(file, 'theirs', { mode: 0o600 });
    chownSync(file, 4321, 4321);
    let error: unknown;
    try {
      readPrivateFile(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SecureFileError);
    expect((error as Error).message).toContain('belongs to another user (uid 4321)');
    expect((error as Error).message).toContain(file);
  });

  it.runIf(isRoot)('refuses a directory owned by another user', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownSync(dir, 4321, 4321);
    expect(() => readPrivateFile(join(dir, 'a.json'))).toThrow(/directory belongs to another user/);
    expect(() => writePrivateFile(join(dir, 'a.json'), 'x')).toThrow(SecureFileError);
  });
});

describe('isTempFileName', () => {
  it('recognises the temp names and nothing else', () => {
    expect(isTempFileName('.sessions.json.0a1b2c3d4e5f.tmp')).toBe(true);
    expect(isTempFileName('sessions.json')).toBe(false);
  });
});
