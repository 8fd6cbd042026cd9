/**
 * The config file is private like the saved sessions (issue 5: "saved-session and config files are 0600
 * in a 0700 directory; a world-readable existing file is tightened or refused with a message"): its
 * baseUrl may carry a password.
 */
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadSettings } from '../../src/state/app-config';
import { appPaths } from '../../src/state/paths';

let home: string;
let paths: ReturnType<typeof appPaths>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tempmail-config-private-'));
  paths = appPaths({ TEMPMAIL_TUI_HOME: home });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
const SETTINGS = JSON.stringify({ baseUrl: 'https://user:secret@mail.example/api/' });

describe('the config file', () => {
  it('a world-readable file in an open directory is tightened to 0600 in 0700, and still read', () => {
    mkdirSync(paths.config, { recursive: true, mode: 0o755 });
    const file = join(paths.config, 'config.json');
    writeFileSync(file, SETTINGS, { mode: 0o644 });
    expect(loadSettings({ env: {}, paths }).baseUrl).toBe('https://user:secret@mail.example/api/');
    expect(mode(file)).toBe(0o600);
    expect(mode(paths.config)).toBe(0o700);
  });

  it('a symbolic link (a dotfile manager) is followed: the target is read and tightened', () => {
    mkdirSync(paths.config, { recursive: true, mode: 0o700 });
    const target = join(home, 'dotfiles-config.json');
    writeFileSync(target, SETTINGS, { mode: 0o664 });
    symlinkSync(target, join(paths.config, 'config.json'));
    expect(loadSettings({ env: {}, paths }).baseUrl).toBe('https://user:secret@mail.example/api/');
    expect(mode(target)).toBe(0o600);
  });

  it.runIf(process.getuid?.() === 0)('a file of another user is refused with a message naming it', () => {
    mkdirSync(paths.config, { recursive: true, mode: 0o700 });
    const file = join(paths.config, 'config.json');
    writeFileSync(file, SETTINGS, { mode: 0o644 });
    chownSync(file, 65534, 65534);
    let error: unknown;
    try {
      loadSettings({ env: {}, paths });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `${file}: belongs to another user (uid 65534); refusing to use it. Remove it or set XDG_CONFIG_HOME to a directory of your own.`,
    );
    expect(mode(file)).toBe(0o644);
  });
});
