import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appPaths } from '../../src/state/paths';
import { normalizeBaseUrl, openSavedSessions } from '../../src/state/saved-sessions';

const BASE = 'http://127.0.0.1:8025/';
const T0 = new Date('2026-03-01T12:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const mode = (p: string) => statSync(p).mode & 0o777;

let home: string;
let stateDir: string;
let now: Date;
const env = () => ({ TEMPMAIL_TUI_HOME: home });
const open = () => openSavedSessions({ env: env(), clock: () => now });

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tempmail-sessions-'));
  stateDir = appPaths(env()).state;
  now = T0;
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('saved sessions', () => {
  it('saves under the state dir, 0600 in 0700, and lists live ones newest first', () => {
    const store = open();
    store.save({ email: 'a@x.test', token: 'tok-a', expiresAt: minutes(60) }, BASE);
    now = minutes(1);
    store.save({ email: 'b@x.test', token: 'tok-b', expiresAt: minutes(61) }, BASE);
    expect(store.file).toBe(join(stateDir, 'sessions.json'));
    expect(mode(stateDir)).toBe(0o700);
    expect(mode(store.file)).toBe(0o600);
    const live = open().listLive(minutes(2));
    expect(live.map((s) => s.email)).toEqual(['b@x.test', 'a@x.test']);
    expect(live[1]).toEqual({
      email: 'a@x.test',
      token: 'tok-a',
      expiresAt: minutes(60),
      provider: 'tempmail',
      baseUrl: BASE,
      createdAt: T0,
      usedAt: T0,
    });
    const stored = JSON.parse(readFileSync(store.file, 'utf8'));
    expect(stored.sessions[0]).toEqual({
      email: 'b@x.test',
      token: 'tok-b',
      expiresAt: '2026-03-01T13:01:00.000Z',
      provider: 'tempmail',
      baseUrl: BASE,
      createdAt: '2026-03-01T12:01:00.000Z',
      usedAt: '2026-03-01T12:01:00.000Z',
    });
  });

  it('honours XDG_STATE_HOME', () => {
    const xdg = join(home, 'xdg-state');
    const store = openSavedSessions({ env: { XDG_STATE_HOME: xdg }, clock: () => now });
    store.save({ email: 'a@x.test', token: 't', expiresAt: minutes(5) }, BASE);
    expect(store.file).toBe(join(xdg, 'tempmail-tui', 'sessions.json'));
    expect(statSync(store.file).isFile()).toBe(true);
  });

  it('prunes expired sessions on load, with an injected now, and rewrites the file', () => {
    const store = open();
    store.save({ email: 'short@x.test', token: 't1', expiresAt: minutes(10) }, BASE);
    store.save({ email: 'long@x.test', token: 't2', expiresAt: minutes(60) }, BASE);
    expect(
      store
        .listLive(minutes(9))
        .map((s) => s.email)
        .sort(),
    ).toEqual(['long@x.test', 'short@x.test']);
    expect(store.listLive(minutes(10)).map((s) => s.email)).toEqual(['long@x.test']);
    expect(readFileSync(store.file, 'utf8')).not.toContain('short@x.test');
    expect(store.listLive(minutes(61))).toEqual([]);
  });

  it('filters by service, matching spellings of the same URL', () => {
    const store = open();
    store.save({ email: 'a@x.test', token: 't', expiresAt: minutes(5) }, 'http://127.0.0.1:8025');
    store.save({ email: 'b@y.test', token: 't', expiresAt: minutes(5) }, 'https://other.example/api');
    expect(store.listLive(now, 'http://127.0.0.1:8025/').map((s) => s.email)).toEqual(['a@x.test']);
    expect(store.listLive(now, 'HTTPS://Other.Example/api/').map((s) => s.email)).toEqual(['b@y.test']);
    expect(store.listLive(now, 'local')).toEqual([]);
    expect(normalizeBaseUrl('local')).toBe('local');
  });

  it('replaces the same address of the same service, and forgets one', () => {
    const store = open();
    store.save({ email: 'a@x.test', token: 'old', expiresAt: minutes(5) }, BASE);
    store.save({ email: 'A@x.test', token: 'new', expiresAt: minutes(50) }, BASE);
    store.save({ email: 'a@x.test', token: 'elsewhere', expiresAt: minutes(50) }, 'http://other.test/');
    expect(store.listLive(now, BASE).map((s) => s.token)).toEqual(['new']);
    expect(store.forget('a@x.test', BASE)).toBe(true);
    expect(store.forget('a@x.test', BASE)).toBe(false);
    expect(store.listLive(now).map((s) => s.token)).toEqual(['elsewhere']);
  });

  it('marks an address the service refused and clears the mark; saving it anew clears it too', () => {
    const store = open();
    store.save({ email: 'a@x.test', token: 't', expiresAt: minutes(50) }, BASE);
    store.save({ email: 'a@x.test', token: 'u', expiresAt: minutes(50) }, 'http://other.test/');
    expect(store.markRefused('A@x.test', 'http://127.0.0.1:8025', minutes(1))).toBe(true);
    expect(store.markRefused('b@x.test', BASE, minutes(1))).toBe(false);
    // Persisted (a new store reads the file), and only for that service's entry.
    expect(open().listLive(now, BASE)[0]!.refusedAt).toEqual(minutes(1));
    expect(open().listLive(now, 'http://other.test/')[0]!.refusedAt).toBeUndefined();
    expect(store.markRefused('a@x.test', BASE, null)).toBe(true);
    expect(open().listLive(now, BASE)[0]).not.toHaveProperty('refusedAt');
    expect(readFileSync(join(stateDir, 'sessions.json'), 'utf8')).not.toContain('refusedAt');
    store.markRefused('a@x.test', BASE, minutes(2));
    store.save({ email: 'a@x.test', token: 'v', expiresAt: minutes(50) }, BASE);
    expect(store.listLive(now, BASE)[0]).not.toHaveProperty('refusedAt');
  });

  it('records when an address was last used (saving is using it); a file from before has none, and a bad one is ignored', () => {
    const store = open();
    store.save({ email: 'a@x.test', token: 't', expiresAt: minutes(50) }, BASE);
    now = minutes(1);
    store.save({ email: 'b@x.test', token: 'u', expiresAt: minutes(50) }, BASE);
    expect(store.markUsed('A@x.test', 'http://127.0.0.1:8025', minutes(3))).toBe(true);
    expect(store.markUsed('c@x.test', BASE, minutes(3))).toBe(false);
    // Persisted, the list order (newest created first) unchanged.
    expect(
      open()
        .listLive(now, BASE)
        .map((s) => [s.email, s.createdAt, s.usedAt]),
    ).toEqual([
      ['b@x.test', minutes(1), minutes(1)],
      ['a@x.test', T0, minutes(3)],
    ]);
    const entry = {
      email: 'old@x.test',
      token: 't',
      expiresAt: minutes(5).toISOString(),
      baseUrl: BASE,
      createdAt: T0.toISOString(),
    };
    writeFileSync(
      store.file,
      JSON.stringify({ version: 1, sessions: [entry, { ...entry, email: 'bad@x.test', usedAt: 'yesterday' }] }),
      { mode: 0o600 },
    );
    expect(
      open()
        .listLive(now)
        .map((s) => [s.email, s.usedAt]),
    ).toEqual([
      ['old@x.test', undefined],
      ['bad@x.test', undefined],
    ]);
  });

  it('ignores a refusedAt that is not a date, keeping the address and its token', () => {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const entry = {
      email: 'a@x.test',
      token: 't',
      expiresAt: minutes(5).toISOString(),
      baseUrl: BASE,
      createdAt: T0.toISOString(),
    };
    const body = {
      version: 1,
      sessions: [
        { ...entry, refusedAt: 'soon' },
        { ...entry, email: 'b@x.test', refusedAt: T0.toISOString() },
        { ...entry, email: 'c@x.test', refusedAt: 7 },
      ],
    };
    writeFileSync(join(stateDir, 'sessions.json'), JSON.stringify(body), { mode: 0o600 });
    expect(
      open()
        .listLive()
        .map((s) => [s.email, s.token, s.refusedAt]),
    ).toEqual([
      ['a@x.test', 't', undefined],
      ['b@x.test', 't', T0],
      ['c@x.test', 't', undefined],
    ]);
  });

  it('tightens a 0644 sessions file and a 0755 directory when reading', () => {
    mkdirSync(stateDir, { recursive: true });
    const file = join(stateDir, 'sessions.json');
    const body = {
      version: 1,
      sessions: [
        {
          email: 'a@x.test',
          token: 't',
          expiresAt: minutes(5).toISOString(),
          baseUrl: BASE,
          createdAt: T0.toISOString(),
        },
      ],
    };
    writeFileSync(file, JSON.stringify(body));
    chmodSync(file, 0o644);
    chmodSync(stateDir, 0o755);
    expect(
      open()
        .listLive()
        .map((s) => s.email),
    ).toEqual(['a@x.test']);
    expect(mode(file)).toBe(0o600);
    expect(mode(stateDir)).toBe(0o700);
  });

  it('ignores leftover temp files of an interrupted write and leaves none of its own', () => {
    const store = open();
    store.save({ email: 'a@x.test', token: 't', expiresAt: minutes(5) }, BASE);
    // What a crash between writing the temp file and the rename leaves behind: half a JSON document.
    writeFileSync(join(stateDir, '.sessions.json.deadbeef0000.tmp'), '{"version":1,"sessions":[{"email":"half', {
      mode: 0o600,
    });
    expect(store.listLive().map((s) => s.email)).toEqual(['a@x.test']);
    store.save({ email: 'b@x.test', token: 't', expiresAt: minutes(5) }, BASE);
    expect(store.listLive().map((s) => s.email)).toEqual(['b@x.test', 'a@x.test']);
    expect(readdirSync(stateDir).filter((n) => n.endsWith('.tmp') && n !== '.sessions.json.deadbeef0000.tmp')).toEqual(
      [],
    );
    expect(readdirSync(stateDir)).not.toContain('.sessions.json.lock');
    // Once it is clearly a crash's leftover (minutes old), the next write removes it: it may hold tokens.
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(join(stateDir, '.sessions.json.deadbeef0000.tmp'), old, old);
    store.forget('b@x.test', BASE);
    expect(readdirSync(stateDir).sort()).toEqual(['sessions.json']);
  });

  it('drops malformed entries and keeps a corrupt file aside instead of overwriting it', () => {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const file = join(stateDir, 'sessions.json');
    writeFileSync(file, JSON.stringify({ version: 1, sessions: [{ email: 'a@x.test' }, 7, null] }), { mode: 0o600 });
    expect(open().listLive()).toEqual([]);
    writeFileSync(file, '{not json', { mode: 0o600 });
    const store = open();
    expect(store.listLive()).toEqual([]);
    store.save({ email: 'b@x.test', token: 't', expiresAt: minutes(5) }, BASE);
    expect(store.listLive().map((s) => s.email)).toEqual(['b@x.test']);
    const aside = readdirSync(stateDir).filter((n) => n.startsWith('sessions.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(stateDir, aside[0]!), 'utf8')).toBe('{not json');
  });

  it('takes over a stale lock left by a dead process', () => {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const lock = join(stateDir, '.sessions.json.lock');
    writeFileSync(lock, String(spawnSync(process.execPath, ['-e', '0']).pid));
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    open().save({ email: 'a@x.test', token: 't', expiresAt: minutes(5) }, BASE);
    expect(
      open()
        .listLive()
        .map((s) => s.email),
    ).toEqual(['a@x.test']);
  });

  it('two processes saving at the same time lose nothing', async () => {
    const child = fileURLToPath(new URL('./save-sessions-child.ts', import.meta.url));
    const run = (tag: string) =>
      new Promise<number | null>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', child, stateDir, tag, '25'], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        p.on('error', reject);
        p.on('exit', resolve);
      });
    expect(await Promise.all([run('p1'), run('p2')])).toEqual([0, 0]);
    const emails = openSavedSessions({ dir: stateDir })
      .listLive(new Date())
      .map((s) => s.email);
    expect(emails).toHaveLength(50);
    expect(new Set(emails).size).toBe(50);
  });
});
