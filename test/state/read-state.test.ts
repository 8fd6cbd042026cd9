import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appPaths } from '../../src/state/paths';
import { MAX_ADDRESSES, MAX_IDS, openReadState } from '../../src/state/read-state';
import { SecureFileError } from '../../src/state/secure-file';

const SERVICE = 'http://127.0.0.1:8025/';
const T0 = new Date('2026-03-01T12:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const mode = (p: string) => statSync(p).mode & 0o777;

let home: string;
let now: Date;
const env = () => ({ TEMPMAIL_TUI_HOME: home });
const open = () => openReadState({ env: env(), clock: () => now });

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tempmail-read-'));
  now = T0;
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('read state', () => {
  it('keeps the opened ids per address and service, privately, across opens of the store', () => {
    open().save(SERVICE, 'Ann@x.test', minutes(60), ['3', '1']);
    open().save(SERVICE, 'bob@x.test', minutes(60), ['2']);
    open().save('local:/data', 'ann@x.test', minutes(60), ['9']);
    const store = open();
    expect(store.file).toBe(join(appPaths(env()).state, 'read-state.json'));
    expect(mode(store.file)).toBe(0o600);
    expect(mode(appPaths(env()).state)).toBe(0o700);
    // An address is one whatever its letter case.
    expect([...store.load(SERVICE, 'ann@X.test')]).toEqual(['3', '1']);
    expect([...store.load(SERVICE, 'bob@x.test')]).toEqual(['2']);
    expect([...store.load('local:/data', 'ann@x.test')]).toEqual(['9']);
    expect(store.load(SERVICE, 'nobody@x.test').size).toBe(0);
  });

  it('adds to what another window saved; listed ids drop the marks of deleted messages', () => {
    open().save(SERVICE, 'a@x.test', minutes(60), ['1', '2']);
    open().save(SERVICE, 'a@x.test', minutes(60), ['3']);
    expect([...open().load(SERVICE, 'a@x.test')]).toEqual(['1', '2', '3']);
    open().save(SERVICE, 'a@x.test', minutes(60), ['4'], new Set(['2', '3', '4', '5']));
    expect([...open().load(SERVICE, 'a@x.test')]).toEqual(['2', '3', '4']);
  });

  it("keeps the marks of an address that does not expire (mail.tm) until it is forgotten; ids are any provider's", () => {
    open().save(SERVICE, 'acct@mail.test', null, ['6512ab34cd', '6512ab34ce']);
    now = minutes(100_000);
    expect([...open().load(SERVICE, 'acct@mail.test')]).toEqual(['6512ab34cd', '6512ab34ce']);
    open().forget(SERVICE, 'acct@mail.test');
    expect(open().load(SERVICE, 'acct@mail.test').size).toBe(0);
  });

  it('forgets an address, and drops it once expired', () => {
    open().save(SERVICE, 'a@x.test', minutes(10), ['1']);
    open().save(SERVICE, 'b@x.test', minutes(60), ['2']);
    open().forget(SERVICE, 'A@x.test');
    expect(open().load(SERVICE, 'a@x.test').size).toBe(0);
    now = minutes(11);
    open().save(SERVICE, 'c@x.test', minutes(60), ['3']);
    now = minutes(61);
    expect(open().load(SERVICE, 'b@x.test').size).toBe(0);
    open().save(SERVICE, 'd@x.test', minutes(120), ['4']);
    const stored = JSON.parse(readFileSync(open().file, 'utf8')) as { addresses: { email: string }[] };
    expect(stored.addresses.map((a) => a.email)).toEqual(['d@x.test']);
  });

  it('is bounded: the newest marks of an address, the most recently changed addresses', () => {
    const many = Array.from({ length: MAX_IDS + 50 }, (_, i) => String(i));
    open().save(SERVICE, 'big@x.test', minutes(60), many);
    const kept = [...open().load(SERVICE, 'big@x.test')];
    expect(kept).toHaveLength(MAX_IDS);
    expect(kept[0]).toBe('50');
    for (let i = 0; i <= MAX_ADDRESSES; i++) {
      now = new Date(T0.getTime() + i * 1000);
      open().save(SERVICE, `a${i}@x.test`, minutes(60), [String(i)]);
    }
    const stored = JSON.parse(readFileSync(open().file, 'utf8')) as { addresses: { email: string }[] };
    expect(stored.addresses).toHaveLength(MAX_ADDRESSES);
    expect(open().load(SERVICE, 'big@x.test').size).toBe(0);
    expect(open().load(SERVICE, 'a0@x.test').size).toBe(0);
    expect([...open().load(SERVICE, `a${MAX_ADDRESSES}@x.test`)]).toEqual([String(MAX_ADDRESSES)]);
  });

  it('a damaged file or entry costs only the marks, never an error', () => {
    const store = open();
    store.save(SERVICE, 'a@x.test', minutes(60), ['1']);
    writeFileSync(store.file, '{ not json', { mode: 0o600 });
    expect(store.load(SERVICE, 'a@x.test').size).toBe(0);
    writeFileSync(
      store.file,
      JSON.stringify({
        version: 1,
        addresses: [{ service: SERVICE, email: 'a@x.test', expiresAt: 'soon', updatedAt: '', read: ['1'] }, 7],
      }),
      { mode: 0o600 },
    );
    expect(store.load(SERVICE, 'a@x.test').size).toBe(0);
    store.save(SERVICE, 'a@x.test', minutes(60), ['2']);
    expect([...store.load(SERVICE, 'a@x.test')]).toEqual(['2']);
  });

  it('refuses a symbolic link planted in place of the file', () => {
    const store = open();
    store.save(SERVICE, 'a@x.test', minutes(60), ['1']);
    rmSync(store.file);
    symlinkSync('/etc/hostname', store.file);
    expect(() => store.load(SERVICE, 'a@x.test')).toThrow(SecureFileError);
  });

  it('two processes marking at the same time lose nothing', async () => {
    const child = fileURLToPath(new URL('./read-state-child.ts', import.meta.url));
    const dir = appPaths(env()).state;
    const run = (first: number) =>
      new Promise<number | null>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(first), '25'], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        p.on('error', reject);
        p.on('exit', resolve);
      });
    expect(await Promise.all([run(0), run(1000)])).toEqual([0, 0]);
    expect(openReadState({ dir }).load(SERVICE, 'shared@x.test').size).toBe(50);
  });
});
